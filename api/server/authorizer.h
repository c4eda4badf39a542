// Who may call what. Mutating RPCs (Reserve, Commit, Release, telemetry reports) need
// either the bearer token from the configured file (`authorization: Bearer <token>`
// metadata) or a client certificate verified by mTLS. Read-only RPCs need the same only
// when read_access is "authenticated". With neither a token nor mTLS configured, every
// call is allowed (the local embedded default).
//
// Immutable after construction; thread-safe.
#ifndef TOPOPLACE_API_SERVER_AUTHORIZER_H_
#define TOPOPLACE_API_SERVER_AUTHORIZER_H_

#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "api/server/server_config.h"

namespace topoplace::server {

enum class Access { kRead, kWrite };

class Authorizer {
 public:
  // Requires no credentials at all (the embedded default).
  Authorizer() = default;
  // Reads the token file named by `config` (if any). NotFound if it cannot be read,
  // InvalidArgument if it is empty.
  static absl::StatusOr<Authorizer> FromConfig(const ServerConfig& config);

  // OK, UNAUTHENTICATED (no credentials) or PERMISSION_DENIED (wrong token).
  absl::Status Check(const grpc::CallbackServerContext& context, Access access) const;

  bool enabled() const { return !token_.empty() || mtls_; }

 private:
  Authorizer(std::string token, bool mtls, bool open_reads)
      : token_(std::move(token)), mtls_(mtls), open_reads_(open_reads) {}
  std::string token_;
  bool mtls_ = false;
  bool open_reads_ = true;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_AUTHORIZER_H_
