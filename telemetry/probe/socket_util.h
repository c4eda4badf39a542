// Small blocking-socket helpers for the probe transports (TCP probes and the verbs
// transport's TCP side channel): connect with a timeout, listen, read/write exactly N
// bytes. Errors are Unavailable and name the peer. Internal to telemetry/probe.
#ifndef TOPOPLACE_TELEMETRY_PROBE_SOCKET_UTIL_H_
#define TOPOPLACE_TELEMETRY_PROBE_SOCKET_UTIL_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace topoplace::telemetry::net {

// An owned file descriptor; closes on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

absl::StatusOr<Fd> Connect(const std::string& address, int port, absl::Duration timeout);
// Binds and listens; `bound_port` receives the port actually bound.
absl::StatusOr<Fd> Listen(const std::string& address, int port, int& bound_port);
// Applies SO_RCVTIMEO/SO_SNDTIMEO and TCP_NODELAY.
void SetTimeouts(int fd, absl::Duration timeout);
absl::Status WriteAll(int fd, const void* data, size_t size);
// Unavailable on EOF before `size` bytes.
absl::Status ReadAll(int fd, void* data, size_t size);

}  // namespace topoplace::telemetry::net

#endif  // TOPOPLACE_TELEMETRY_PROBE_SOCKET_UTIL_H_
