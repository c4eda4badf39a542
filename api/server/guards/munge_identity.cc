#include "api/server/guards/munge_identity.h"

#include <munge.h>
#include <stdlib.h>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "client/munge_credential.h"

namespace topoplace::server {

absl::StatusOr<MungeIdentity> DecodeMungeCredential(const std::string& socket,
                                                    const std::string& credential) {
  TP_ASSIGN_OR_RETURN(client::MungeContext ctx, client::OpenMungeContext(socket));
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
