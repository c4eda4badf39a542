// Gives a request that is not valid protobuf a clear answer. gRPC's callback API (1.51)
// answers a request it cannot parse with UNIMPLEMENTED and no message, which reads as "the
// method does not exist"; this server interceptor turns that into INVALID_ARGUMENT naming
// the message type the method expects.
//
//   factories.push_back(MalformedRequestInterceptor());  // before the metrics interceptor
#ifndef TOPOPLACE_API_SERVER_GUARDS_MALFORMED_REQUEST_INTERCEPTOR_H_
#define TOPOPLACE_API_SERVER_GUARDS_MALFORMED_REQUEST_INTERCEPTOR_H_

#include <grpcpp/support/server_interceptor.h>

#include <memory>

namespace topoplace::server {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
MalformedRequestInterceptor();

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_MALFORMED_REQUEST_INTERCEPTOR_H_
