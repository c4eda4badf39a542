// Counts every gRPC call the daemon answers, by method and status code, into
// topoplace_rpc_requests_total (a server interceptor, so no service has to remember).
//
//   builder.experimental().SetInterceptorCreators(RpcMetricsInterceptors(metrics));
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_WIRING_RPC_METRICS_INTERCEPTOR_H_
#define TOPOPLACE_API_SERVER_WIRING_RPC_METRICS_INTERCEPTOR_H_

#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <vector>

#include "telemetry/metrics/daemon_metrics.h"

namespace topoplace::server {

// `metrics` must outlive the server.
std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
RpcMetricsInterceptors(telemetry::DaemonMetrics* metrics);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_WIRING_RPC_METRICS_INTERCEPTOR_H_
