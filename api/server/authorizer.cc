#include "api/server/authorizer.h"

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

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

}  // namespace

absl::StatusOr<Authorizer> Authorizer::FromConfig(const ServerConfig& config) {
  std::string token;
  if (!config.token_file.empty()) {
    std::ifstream in(config.token_file);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat("token_file: '", config.token_file, "' cannot be read"));
    }
    std::getline(in, token);
    token = std::string(absl::StripAsciiWhitespace(token));
    if (token.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("token_file: '", config.token_file, "' holds no token"));
    }
  }
  return Authorizer(std::move(token), !config.tls_client_ca_file.empty(),
                    config.read_access == "open");
}

absl::Status Authorizer::Check(const grpc::CallbackServerContext& context, Access access) const {
  if (!enabled()) return absl::OkStatus();
  if (access == Access::kRead && open_reads_) return absl::OkStatus();
  // With mTLS on, gRPC has already refused connections without a verified certificate.
  if (mtls_) {
    std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
    if (auth != nullptr && auth->IsPeerAuthenticated()) return absl::OkStatus();
  }
  if (token_.empty()) {
    return absl::UnauthenticatedError("this call needs a verified client certificate");
  }
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError(
        "this call needs credentials: 'authorization: Bearer <token>' metadata");
  }
  absl::string_view value(it->second.data(), it->second.size());
  if (!absl::ConsumePrefix(&value, kBearer) || !ConstantTimeEquals(value, token_)) {
    return absl::PermissionDeniedError("authorization: the bearer token is not valid");
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
