#include "client/munge_credential.h"

#include <munge.h>
#include <stdlib.h>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::client {

absl::StatusOr<MungeContext> OpenMungeContext(const std::string& socket) {
  MungeContext ctx(munge_ctx_create(), munge_ctx_destroy);
  if (ctx == nullptr) return absl::ResourceExhaustedError("munge: no memory for a context");
  if (munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("munge socket '", socket, "' is not usable"));
  }
  return ctx;
}

absl::StatusOr<std::string> EncodeMungeCredential(const std::string& socket) {
  TP_ASSIGN_OR_RETURN(MungeContext ctx, OpenMungeContext(socket));
  char* cred = nullptr;
  const munge_err_t err = munge_encode(&cred, ctx.get(), nullptr, 0);
  if (err != EMUNGE_SUCCESS) {
    return absl::UnavailableError(absl::StrCat("munge: no credential from munged at '", socket,
                                               "': ", munge_ctx_strerror(ctx.get())));
  }
  std::string out(cred);
  free(cred);
  return out;
}

}  // namespace topoplace::client
