// Who may call what. Credentials are an admin bearer token (`token_file`), per-host tokens
// (`host_tokens_file`: each token speaks for one host) and client certificates verified by
// mTLS (`tls_client_ca_file`). A certificate whose common name or a DNS subject alternative
// name is a host of the served fabric speaks for that host; any other verified
// certificate is an admin credential (e.g. the extender's, the SPANK plugin's).
//
// Admin credentials may do everything. Host credentials may send reports (ReportHost,
// telemetry) about their own host only, and read. Read-only RPCs need credentials only
// when read_access is "authenticated". With no credential of any kind configured, every
// call is allowed (the local embedded default).
//
// Immutable after construction; thread-safe.
#ifndef TOPOPLACE_API_SERVER_AUTHORIZER_H_
#define TOPOPLACE_API_SERVER_AUTHORIZER_H_

#include <grpcpp/server_context.h>

#include <functional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/server/credential_files.h"
#include "api/server/server_config.h"

namespace topoplace::server {

// kRead: queries. kReport: reports about a host (host credentials allowed, for their own
// host). kWrite: everything else that changes state (admin credentials only).
enum class Access { kRead, kReport, kWrite };

// The checked identity behind a call.
class Caller {
 public:
  // No credentials needed here (auth off, or an open read): may act for every host.
  static Caller Unchecked() { return Caller(Kind::kUnchecked, ""); }
  static Caller Admin() { return Caller(Kind::kAdmin, ""); }
  static Caller ForHost(std::string host) { return Caller(Kind::kHost, std::move(host)); }

  // OK if this caller may report about `host`; PermissionDenied naming `field` otherwise.
  absl::Status CheckSpeaksFor(absl::string_view field, absl::string_view host) const;
  // True if a host credential for exactly `host` made the call.
  bool IsHost(absl::string_view host) const { return kind_ == Kind::kHost && host_ == host; }
  bool is_host_credential() const { return kind_ == Kind::kHost; }
  const std::string& host() const { return host_; }

 private:
  enum class Kind { kUnchecked, kAdmin, kHost };
  Caller(Kind kind, std::string host) : kind_(kind), host_(std::move(host)) {}
  Kind kind_;
  std::string host_;
};

class Authorizer {
 public:
  // True if `name` is a host of the served fabric.
  using HostPredicate = std::function<bool(absl::string_view name)>;

  // Requires no credentials at all (the embedded default).
  Authorizer() = default;
  // Reads the token files named by `config` (credential_files.h has their rules).
  // `is_fabric_host` tells host certificates from admin ones; it must outlive the result.
  static absl::StatusOr<Authorizer> FromConfig(const ServerConfig& config,
                                               HostPredicate is_fabric_host);

  // The caller, or UNAUTHENTICATED (no credentials) / PERMISSION_DENIED (wrong token, or a
  // host credential asking for admin access).
  absl::StatusOr<Caller> Authenticate(const grpc::CallbackServerContext& context,
                                      Access access) const;
  // Authenticate without the caller, for calls that do not depend on who asks.
  absl::Status Check(const grpc::CallbackServerContext& context, Access access) const {
    return Authenticate(context, access).status();
  }
  // True if `token` is a configured admin or host token (for /metrics' basic auth).
  bool AcceptsToken(absl::string_view token) const;

  bool enabled() const { return !token_.empty() || !host_tokens_.empty() || mtls_; }

 private:
  absl::StatusOr<Caller> Identify(const grpc::CallbackServerContext& context) const;

  std::string token_;
  HostTokens host_tokens_;
  bool mtls_ = false;
  bool open_reads_ = true;
  HostPredicate is_fabric_host_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_AUTHORIZER_H_
