// Early-return helpers for absl::Status and absl::StatusOr.
//
// Debian's Abseil (20220623) ships StatusOr but not these macros, so we define them once:
//
//   TP_RETURN_IF_ERROR(WriteHeader(out));
//   TP_ASSIGN_OR_RETURN(Fabric fabric, LoadFabric(path));
#ifndef TOPOPLACE_BASE_STATUS_MACROS_H_
#define TOPOPLACE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TP_STATUS_CONCAT_INNER(a, b) a##b
#define TP_STATUS_CONCAT(a, b) TP_STATUS_CONCAT_INNER(a, b)

// Evaluates `expr` (an absl::Status) and returns it from the caller if not OK.
#define TP_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status tp_status_ = (expr);      \
    if (!tp_status_.ok()) return tp_status_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, else moves the
// value into `lhs` (which may be a declaration).
#define TP_ASSIGN_OR_RETURN(lhs, rexpr) \
  TP_ASSIGN_OR_RETURN_IMPL(TP_STATUS_CONCAT(tp_statusor_, __LINE__), lhs, rexpr)

// `statusor` is a name and `lhs` may be a declaration: neither can be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TP_ASSIGN_OR_RETURN_IMPL(statusor, lhs, rexpr)     \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // TOPOPLACE_BASE_STATUS_MACROS_H_
