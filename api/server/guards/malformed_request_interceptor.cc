#include "api/server/guards/malformed_request_interceptor.h"

#include <google/protobuf/descriptor.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"

namespace topoplace::server {
namespace {

using grpc::experimental::InterceptionHookPoints;

// The request type of one of our methods ("/topoplace.v1.Service/Method"), or empty. Only
// our own services: the process also knows messages of services it does not serve (e.g.
// reflection when it is off), whose UNIMPLEMENTED is true.
std::string RequestTypeOf(absl::string_view path) {
  if (!absl::ConsumePrefix(&path, "/") || !absl::StartsWith(path, "topoplace.")) return "";
  const google::protobuf::MethodDescriptor* method =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
          absl::StrReplaceAll(path, {{"/", "."}}));
  return method == nullptr ? "" : method->input_type()->full_name();
}

class Interceptor final : public grpc::experimental::Interceptor {
 public:
  explicit Interceptor(grpc::experimental::ServerRpcInfo* info)
      : method_(info->method() != nullptr ? info->method() : "") {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      // Our handlers never answer UNIMPLEMENTED; for a method that exists, gRPC does so
      // only when the request bytes did not parse. (Looked up only then: no cost per call.)
      if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED &&
          status.error_message().empty()) {
        if (const std::string type = RequestTypeOf(method_); !type.empty()) {
          methods->ModifySendStatus(
              grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                           absl::StrCat("request: not a valid ", type, " protobuf message")));
        }
      }
    }
    methods->Proceed();
  }

 private:
  const char* const method_;  // owned by gRPC for the call's life
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new Interceptor(info);
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
MalformedRequestInterceptor() {
  return std::make_unique<Factory>();
}

}  // namespace topoplace::server
