#include "api/agent/reporter.h"

#include <utility>

#include "base/status_macros.h"
#include "client/rpc_status.h"

namespace topoplace::agent {

absl::StatusOr<std::unique_ptr<Reporter>> Reporter::Connect(const std::string& server) {
  TP_ASSIGN_OR_RETURN(client::ClientOptions options, client::ClientOptionsFromEnv(server));
  options.timeout = kReportTimeout;
  TP_ASSIGN_OR_RETURN(std::unique_ptr<client::TopoplaceClient> c,
                      client::TopoplaceClient::Connect(options));
  return std::unique_ptr<Reporter>(new Reporter(std::move(c)));
}

absl::Status Reporter::Probes(const v1::ReportProbeResultsRequest& request) {
  return client_->ReportProbeResults(request).status();
}

absl::Status Reporter::Counters(const v1::ReportPortCountersRequest& request) {
  return client_->ReportPortCounters(request).status();
}

}  // namespace topoplace::agent
