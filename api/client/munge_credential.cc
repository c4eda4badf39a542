#include "api/client/munge_credential.h"

#include <munge.h>
#include <stdlib.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace topoplace::client {

absl::StatusOr<std::string> EncodeMungeCredential(const std::string& socket) {
  std::unique_ptr<struct munge_ctx, void (*)(munge_ctx_t)> ctx(munge_ctx_create(),
                                                               munge_ctx_destroy);
  if (ctx == nullptr) return absl::ResourceExhaustedError("munge: no memory for a context");
  if (munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("munge socket '", socket, "' is not usable"));
  }
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
