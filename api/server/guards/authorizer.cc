#include "api/server/guards/authorizer.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "api/server/guards/munge_identity.h"
#include "base/status_macros.h"
#include "client/munge_credential.h"

namespace topoplace::server {
namespace {

constexpr absl::string_view kBearer = "Bearer ";

// Compares without an early exit so the time taken does not reveal the matching prefix.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The names a verified client certificate carries: DNS subject alternative names first,
// then the common name.
std::vector<std::string> CertificateNames(const grpc::AuthContext& auth) {
  std::vector<std::string> names;
  for (const char* property : {"x509_subject_alternative_name", "x509_common_name"}) {
    for (const grpc::string_ref& value : auth.FindPropertyValues(property)) {
      names.emplace_back(value.data(), value.size());
    }
  }
  return names;
}

}  // namespace

std::string SlurmSubmitKeyPrefix(uint32_t uid) { return absl::StrCat("slurm-submit:", uid, ":"); }

absl::Status Caller::CheckMayReserveAs(absl::string_view request_id) const {
  if (kind_ != Kind::kSlurmUser || absl::StartsWith(request_id, SlurmSubmitKeyPrefix(uid_))) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "request_id: the MUNGE credential of uid ", uid_, " may reserve only with request_id '",
      SlurmSubmitKeyPrefix(uid_), "<nonce>', not '", request_id, "'"));
}

absl::Status Caller::CheckMayChange(absl::string_view allocation_id, absl::string_view request_id,
                                    bool reserved) const {
  if (kind_ != Kind::kSlurmUser) return absl::OkStatus();
  if (reserved && absl::StartsWith(request_id, SlurmSubmitKeyPrefix(uid_))) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "the MUNGE credential of uid ", uid_, " may change only reservations it made, and ",
      allocation_id, " is ", reserved ? "another's reservation" : "no longer a reservation",
      "; commits and releases of running jobs are the prolog's and epilog's"));
}

absl::Status Caller::CheckSpeaksFor(absl::string_view field, absl::string_view host) const {
  if (kind_ != Kind::kHost || host_ == host) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(field, ": the credential of host '", host_,
                                                  "' may only report about that host, not about '",
                                                  host, "'"));
}

absl::StatusOr<Authorizer> Authorizer::FromConfig(const ServerConfig& config,
                                                  HostPredicate is_fabric_host) {
  Authorizer authorizer;
  if (!config.token_file.empty()) {
    TP_ASSIGN_OR_RETURN(authorizer.token_, ReadTokenFile("token_file", config.token_file));
  }
  if (!config.host_tokens_file.empty()) {
    TP_ASSIGN_OR_RETURN(authorizer.host_tokens_, ReadHostTokensFile(config.host_tokens_file));
    if (authorizer.host_tokens_.contains(authorizer.token_)) {
      return absl::InvalidArgumentError(
          "host_tokens_file: a host may not hold the admin token of token_file");
    }
  }
  authorizer.mtls_ = !config.tls_client_ca_file.empty();
  authorizer.open_reads_ = config.read_access == "open";
  authorizer.is_fabric_host_ = std::move(is_fabric_host);
  authorizer.munge_socket_ = config.munge_socket;
  authorizer.munge_admin_uids_ = config.munge_admin_uids;
  return authorizer;
}

absl::StatusOr<Caller> Authorizer::Identify(const grpc::CallbackServerContext& context) const {
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    absl::string_view value(it->second.data(), it->second.size());
    if (!munge_socket_.empty() && absl::ConsumePrefix(&value, client::kMungeScheme)) {
      TP_ASSIGN_OR_RETURN(const MungeIdentity who,
                          DecodeMungeCredential(munge_socket_, std::string(value)));
      if (std::find(munge_admin_uids_.begin(), munge_admin_uids_.end(), who.uid) !=
          munge_admin_uids_.end()) {
        return Caller::Admin();
      }
      return Caller::ForSlurmUser(who.uid);
    }
    if (absl::ConsumePrefix(&value, kBearer)) {
      if (!token_.empty() && ConstantTimeEquals(value, token_)) return Caller::Admin();
      if (auto host = host_tokens_.find(value); host != host_tokens_.end()) {
        return Caller::ForHost(host->second);
      }
    }
    return absl::PermissionDeniedError("authorization: the bearer token is not valid");
  }
  // With mTLS on, gRPC has already refused connections without a verified certificate.
  if (mtls_) {
    std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
    if (auth != nullptr && auth->IsPeerAuthenticated()) {
      for (const std::string& name : CertificateNames(*auth)) {
        if (is_fabric_host_ && is_fabric_host_(name)) return Caller::ForHost(name);
      }
      return Caller::Admin();
    }
  }
  // What this daemon would have accepted (enabled(): at least one).
  std::vector<absl::string_view> accepted;
  if (mtls_) accepted.push_back("a verified client certificate");
  if (!token_.empty() || !host_tokens_.empty()) {
    accepted.push_back("'authorization: Bearer <token>' metadata");
  }
  if (!munge_socket_.empty()) {
    accepted.push_back(
        "'authorization: MUNGE <credential>' metadata (the CLI sends one when "
        "TOPOPLACE_MUNGE_SOCKET names munged's socket)");
  }
  return absl::UnauthenticatedError(
      absl::StrCat("this call needs credentials: ", absl::StrJoin(accepted, ", or ")));
}

absl::StatusOr<Caller> Authorizer::Authenticate(const grpc::CallbackServerContext& context,
                                                Access access) const {
  if (!enabled()) return Caller::Unchecked();
  if (access == Access::kRead && open_reads_) return Caller::Unchecked();
  TP_ASSIGN_OR_RETURN(Caller caller, Identify(context));
  if (access == Access::kReport && caller.is_slurm_user()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the MUNGE credential of uid ", caller.uid(),
                     " may not send host reports or telemetry; agents use host credentials"));
  }
  if (access == Access::kWrite && caller.is_slurm_user()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the MUNGE credential of uid ", caller.uid(),
                     " may reserve, renew and release its own reservations; this call needs "
                     "an admin credential (root's, or a uid in munge_admin_uids)"));
  }
  if ((access == Access::kWrite || access == Access::kUserWrite) && caller.is_host_credential()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the credential of host '", caller.host(),
                     "' may only send reports about that host; this call needs an admin "
                     "credential"));
  }
  return caller;
}

bool Authorizer::AcceptsToken(absl::string_view token) const {
  if (token.empty()) return false;
  if (!token_.empty() && ConstantTimeEquals(token, token_)) return true;
  return host_tokens_.contains(token);
}

}  // namespace topoplace::server
