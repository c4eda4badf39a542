#include "api/server/munge_identity.h"

#include <munge.h>
#include <stdlib.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace topoplace::server {

absl::StatusOr<MungeIdentity> DecodeMungeCredential(const std::string& socket,
                                                    const std::string& credential) {
  std::unique_ptr<struct munge_ctx, void (*)(munge_ctx_t)> ctx(munge_ctx_create(),
                                                               munge_ctx_destroy);
  if (ctx == nullptr) return absl::ResourceExhaustedError("munge: no memory for a context");
  if (munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS) {
    return absl::InternalError(absl::StrCat("munge socket '", socket, "' is not usable"));
  }
  void* payload = nullptr;
  int length = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  const munge_err_t err =
      munge_decode(credential.c_str(), ctx.get(), &payload, &length, &uid, &gid);
  free(payload);
  if (err == EMUNGE_SUCCESS) return MungeIdentity{uid, gid};
  const std::string why = munge_ctx_strerror(ctx.get()) ? munge_ctx_strerror(ctx.get()) : "";
  if (err == EMUNGE_SOCKET || err == EMUNGE_TIMEOUT) {
    return absl::UnavailableError(
        absl::StrCat("authorization: munged at '", socket, "' cannot check the credential: ", why));
  }
  return absl::PermissionDeniedError(
      absl::StrCat("authorization: the MUNGE credential is not valid: ", why));
}

}  // namespace topoplace::server
