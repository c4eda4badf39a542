// PlacementBackend over a running topoplaced (client/topoplace_client.h).
//
//   TP_ASSIGN_OR_RETURN(client::ClientOptions options, client::ClientOptionsFromEnv(addr));
//   TP_ASSIGN_OR_RETURN(PlacementBackendPtr backend, ConnectGrpcPlacementBackend(options, ""));
//
// Thread-safe. Every call is bounded by the client's per-call timeout. A Reserve that
// loses a race for its GPUs is retried by the daemon (scheduler/reserve/reserver.h).
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_GRPC_PLACEMENT_BACKEND_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_GRPC_PLACEMENT_BACKEND_H_

#include <memory>
#include <string>

#include "client/topoplace_client.h"
#include "plugins/k8s/extender/placement_backend.h"

namespace topoplace::k8s {

// Makes the (lazy) channel; `policy` is passed to Reserve (empty = the daemon's default).
// NotFound if a PEM file in `options` cannot be read. Makes no call yet.
absl::StatusOr<PlacementBackendPtr> ConnectGrpcPlacementBackend(
    const client::ClientOptions& options, std::string policy);

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_GRPC_PLACEMENT_BACKEND_H_
