#include "plugins/slurm/spank/spank_config.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::slurm {
namespace {

absl::Status BadArg(absl::string_view arg, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("spank_topoplace plugstack argument '", arg, "': ", problem));
}

// "5", "2.5" (seconds) or an absl duration ("500ms", "1m").
absl::StatusOr<absl::Duration> ParseTimeout(absl::string_view text) {
  double seconds = 0;
  absl::Duration d;
  if (absl::SimpleAtod(text, &seconds)) {
    d = absl::Seconds(seconds);
  } else if (!absl::ParseDuration(text, &d)) {
    return absl::InvalidArgumentError("expected seconds or a duration like 500ms");
  }
  if (d <= absl::ZeroDuration() || d > absl::Seconds(300)) {
    return absl::InvalidArgumentError("expected a timeout in (0, 300] seconds");
  }
  return d;
}

}  // namespace

absl::StatusOr<SpankConfig> ParseSpankArgs(const std::vector<std::string>& args) {
  SpankConfig config;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) return BadArg(arg, "expected key=value");
    const absl::string_view key = absl::string_view(arg).substr(0, eq);
    const std::string value = arg.substr(eq + 1);
    if (key == "server") {
      if (value.empty() || value.find(':') == std::string::npos) {
        return BadArg(arg, "expected HOST:PORT[,HOST:PORT...]");
      }
      config.server = value;
    } else if (key == "timeout") {
      absl::StatusOr<absl::Duration> timeout = ParseTimeout(value);
      if (!timeout.ok()) return BadArg(arg, timeout.status().message());
      config.timeout = *timeout;
    } else if (key == "token_file") {
      config.token_file = value;
    } else if (key == "munge_socket") {
      if (value.empty()) return BadArg(arg, "expected munged's socket path");
      config.munge_socket = value;
    } else if (key == "ca_file") {
      config.ca_file = value;
    } else if (key == "on_failure") {
      if (value == "proceed") {
        config.on_failure = FailurePolicy::kProceed;
      } else if (value == "refuse") {
        config.on_failure = FailurePolicy::kRefuse;
      } else {
        return BadArg(arg, "expected proceed or refuse");
      }
    } else if (key == "ttl") {
      if (!absl::SimpleAtoi(value, &config.ttl_seconds) || config.ttl_seconds < 0 ||
          config.ttl_seconds > 86400) {
        return BadArg(arg, "expected whole seconds in [0, 86400]");
      }
    } else if (key == "policy") {
      config.policy = value;
    } else if (key == "node_map") {
      config.node_map = value;
    } else if (key == "hostfile_dir") {
      if (value.empty()) return BadArg(arg, "expected a directory");
      config.hostfile_dir = value;
    } else {
      return BadArg(
          arg,
          "unknown key (server, timeout, token_file, munge_socket, ca_file, on_failure, ttl, "
          "policy, node_map, hostfile_dir)");
    }
  }
  return config;
}

absl::StatusOr<sched::JobSpec> ParseTopoplaceOption(absl::string_view value) {
  if (value.empty()) {
    return absl::InvalidArgumentError("--topoplace: expected a job spec like tp=8,pp=2,dp=4");
  }
  absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(value);
  if (!job.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--topoplace: ", job.status().message()));
  }
  return job;
}

absl::StatusOr<std::string> ValidateTopoplaceOption(absl::string_view value) {
  TP_ASSIGN_OR_RETURN(sched::JobSpec job, ParseTopoplaceOption(value));
  return sched::FormatJobSpec(job);
}

}  // namespace topoplace::slurm
