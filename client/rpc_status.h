// Converts between absl::Status and grpc::Status. The numeric codes of both are the same
// canonical codes, so the conversion keeps code and message unchanged.
#ifndef TOPOPLACE_CLIENT_RPC_STATUS_H_
#define TOPOPLACE_CLIENT_RPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace topoplace::client {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace topoplace::client

#endif  // TOPOPLACE_CLIENT_RPC_STATUS_H_
