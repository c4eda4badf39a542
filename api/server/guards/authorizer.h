// Who may call what. Credentials are an admin bearer token (`token_file`), per-host tokens
// (`host_tokens_file`: each token speaks for one host) and client certificates verified by
// mTLS (`tls_client_ca_file`). A certificate whose common name or a DNS subject alternative
// name is a host of the served fabric speaks for that host; any other verified
// certificate is an admin credential (e.g. the extender's, the SPANK plugin's).
//
// A MUNGE credential (`munge_socket`; api/server/guards/munge_identity.h) is made by a uid: one
// in `munge_admin_uids` is an admin, any other a Slurm user, who may reserve with the
// submit key of its own uid ("slurm-submit:<uid>:...", what the SPANK plugin sends),
// renew and release its own reservations, and read; commits are the prolog's, as root
// (hardening finding 2: before, every Slurm user held the admin token).
//
// Admin credentials may do everything. Host credentials may send reports (ReportHost,
// telemetry) about their own host only, and read. Read-only RPCs need credentials only
// when read_access is "authenticated". With no credential of any kind configured, every
// call is allowed (the local embedded default).
//
// Immutable after construction; thread-safe.
#ifndef TOPOPLACE_API_SERVER_GUARDS_AUTHORIZER_H_
#define TOPOPLACE_API_SERVER_GUARDS_AUTHORIZER_H_

#include <grpcpp/server_context.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/server/config/server_config.h"
#include "api/server/guards/credential_files.h"

namespace topoplace::server {

// kRead: queries. kReport: reports about a host (host credentials allowed, for their own
// host). kUserWrite: changes a Slurm user may make to what is its own (Reserve, Renew,
// Release; the service checks whose it is with Caller::CheckMay*). kWrite: everything else
// that changes state (admin credentials only).
enum class Access { kRead, kReport, kUserWrite, kWrite };

// The request_id prefix of `uid`'s reservations, "slurm-submit:<uid>:"
// (plugins/slurm/spank/job_binding.h).
std::string SlurmSubmitKeyPrefix(uint32_t uid);

// The checked identity behind a call.
class Caller {
 public:
  // No credentials needed here (auth off, or an open read): may act for every host.
  static Caller Unchecked() { return Caller(Kind::kUnchecked, ""); }
  static Caller Admin() { return Caller(Kind::kAdmin, ""); }
  static Caller ForHost(std::string host) { return Caller(Kind::kHost, std::move(host)); }
  static Caller ForSlurmUser(uint32_t uid) { return Caller(Kind::kSlurmUser, "", uid); }

  // OK if this caller may report about `host`; PermissionDenied naming `field` otherwise.
  absl::Status CheckSpeaksFor(absl::string_view field, absl::string_view host) const;
  // True if a host credential for exactly `host` made the call.
  bool IsHost(absl::string_view host) const { return kind_ == Kind::kHost && host_ == host; }
  bool is_host_credential() const { return kind_ == Kind::kHost; }
  const std::string& host() const { return host_; }
  // A MUNGE credential of a uid that is not an admin's (see the file comment).
  bool is_slurm_user() const { return kind_ == Kind::kSlurmUser; }
  uint32_t uid() const { return uid_; }
  // For a Slurm user: OK if `request_id` is a submit key of its own uid; PermissionDenied
  // naming both otherwise. OK for every other caller.
  absl::Status CheckMayReserveAs(absl::string_view request_id) const;
  // For a Slurm user: OK if the allocation (`allocation_id`, made with `request_id`, still
  // `reserved`) is a reservation of its own; PermissionDenied naming it otherwise.
  absl::Status CheckMayChange(absl::string_view allocation_id, absl::string_view request_id,
                              bool reserved) const;

 private:
  enum class Kind { kUnchecked, kAdmin, kHost, kSlurmUser };
  Caller(Kind kind, std::string host, uint32_t uid = 0)
      : kind_(kind), host_(std::move(host)), uid_(uid) {}
  Kind kind_;
  std::string host_;
  uint32_t uid_ = 0;
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

  bool enabled() const {
    return !token_.empty() || !host_tokens_.empty() || mtls_ || !munge_socket_.empty();
  }

 private:
  absl::StatusOr<Caller> Identify(const grpc::CallbackServerContext& context) const;

  std::string token_;
  HostTokens host_tokens_;
  bool mtls_ = false;
  bool open_reads_ = true;
  HostPredicate is_fabric_host_;
  std::string munge_socket_;
  std::vector<uint32_t> munge_admin_uids_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_AUTHORIZER_H_
