// Configuration of the SPANK plugin: the plugstack.conf arguments and the user's
// `--topoplace=` value.
//
//   plugstack.conf:
//   required /usr/lib/topoplace/spank_topoplace.so server=ctl:7469 timeout=5 on_failure=proceed
//
//   TP_ASSIGN_OR_RETURN(SpankConfig config, ParseSpankArgs({"server=ctl:7469", "timeout=5"}));
//   TP_ASSIGN_OR_RETURN(std::string spec, ValidateTopoplaceOption("tp=8,pp=2,dp=4"));
//
// Pure functions; thread-safe.
#ifndef TOPOPLACE_PLUGINS_SLURM_SPANK_SPANK_CONFIG_H_
#define TOPOPLACE_PLUGINS_SLURM_SPANK_SPANK_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::slurm {

// What a submission does when it cannot get a placement for a reason other than a bad
// `--topoplace` value (daemon unreachable, deadline passed, job does not fit now).
enum class FailurePolicy { kProceed, kRefuse };

struct SpankConfig {
  std::string server = "127.0.0.1:7469";      // server=HOST:PORT
  absl::Duration timeout = absl::Seconds(5);  // timeout=SECONDS, per RPC, in (0, 300]
  std::string token_file;  // token_file=PATH; first line is the bearer token; readable by users
  // munge_socket=PATH: authenticate with MUNGE instead (each process as its own uid: users
  // at submission, root in prolog and epilog); no shared secret. Wins over token_file.
  std::string munge_socket;
  std::string ca_file;  // ca_file=PATH: TLS to the daemon trusting these roots
  FailurePolicy on_failure = FailurePolicy::kProceed;  // on_failure=proceed|refuse
  int64_t ttl_seconds = 0;  // ttl=SECONDS held before the job starts; 0 = daemon default
  std::string policy;       // policy=NAME placement policy; empty = daemon default
  std::string node_map;     // node_map=PATH "FABRIC_HOST SLURM_NODE" lines (export's format)
  std::string hostfile_dir = "/tmp";  // hostfile_dir=DIR where sbatch writes the hostfile
};

// Parses plugstack arguments "key=value" (keys above). InvalidArgument names the argument
// for an unknown key, a missing '=', or a bad value.
absl::StatusOr<SpankConfig> ParseSpankArgs(const std::vector<std::string>& args);

// Checks a `--topoplace=` value with the scheduler's own job-spec rules and returns its
// canonical form. InvalidArgument says which field is wrong ("--topoplace: job spec field
// 'tp': expected ...").
absl::StatusOr<std::string> ValidateTopoplaceOption(absl::string_view value);
// The same check, returning the parsed spec.
absl::StatusOr<sched::JobSpec> ParseTopoplaceOption(absl::string_view value);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_SPANK_SPANK_CONFIG_H_
