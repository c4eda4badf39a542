#include "api/cli/cli_context.h"

namespace topoplace::cli {

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kOutOfRange:
      return kExitBadInput;
    case absl::StatusCode::kResourceExhausted:
      return kExitCannotPlace;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      return kExitDenied;
    default:
      return kExitInternal;
  }
}

int CliContext::Fail(const absl::Status& status) {
  err << "topoplace: " << status.message() << "\n";
  exit_code = ExitCodeFor(status);
  return exit_code;
}

}  // namespace topoplace::cli
