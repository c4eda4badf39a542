// What an agent mode sends to the daemon's Telemetry service: probe results and port
// counters, through one client (credentials from the environment; every daemon of a list
// tried in turn), each report bounded by kReportTimeout so one stuck daemon does not hold
// the agent's loop for long.
//
//   TP_ASSIGN_OR_RETURN(std::unique_ptr<Reporter> r, Reporter::Connect("10.0.0.254:7469"));
//   TP_RETURN_IF_ERROR(r->Counters(request));
//
// Not thread-safe: one loop owns it.
#ifndef TOPOPLACE_API_AGENT_REPORTER_H_
#define TOPOPLACE_API_AGENT_REPORTER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/topoplace_client.h"

namespace topoplace::agent {

class Reporter {
 public:
  // A report is small.
  static constexpr absl::Duration kReportTimeout = absl::Seconds(10);

  static absl::StatusOr<std::unique_ptr<Reporter>> Connect(const std::string& server);
  absl::Status Probes(const v1::ReportProbeResultsRequest& request);
  absl::Status Counters(const v1::ReportPortCountersRequest& request);

 private:
  explicit Reporter(std::unique_ptr<client::TopoplaceClient> client) : client_(std::move(client)) {}
  std::unique_ptr<client::TopoplaceClient> client_;
};

}  // namespace topoplace::agent

#endif  // TOPOPLACE_API_AGENT_REPORTER_H_
