#include "api/server/wiring/rpc_metrics_interceptor.h"

#include <string>

#include "absl/status/status.h"

namespace topoplace::server {
namespace {

using grpc::experimental::InterceptionHookPoints;

class RpcMetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(grpc::experimental::ServerRpcInfo* info, telemetry::DaemonMetrics* metrics)
      : method_(info->method() != nullptr ? info->method() : "unknown"), metrics_(metrics) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      metrics_->CountRpc(
          method_, absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code())));
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  telemetry::DaemonMetrics* const metrics_;
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit Factory(telemetry::DaemonMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new RpcMetricsInterceptor(info, metrics_);
  }

 private:
  telemetry::DaemonMetrics* const metrics_;
};

}  // namespace

std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
RpcMetricsInterceptors(telemetry::DaemonMetrics* metrics) {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> out;
  out.push_back(std::make_unique<Factory>(metrics));
  return out;
}

}  // namespace topoplace::server
