#include "api/server/wiring/systemd_notify.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace topoplace::server {

SystemdNotifier SystemdNotifier::FromEnvironment() {
  SystemdNotifier n;
  if (const char* socket = getenv("NOTIFY_SOCKET")) n.socket_ = socket;
  const char* usec = getenv("WATCHDOG_USEC");
  const char* pid = getenv("WATCHDOG_PID");
  int64_t micros = 0, owner = 0;
  const bool ours = pid == nullptr || (absl::SimpleAtoi(pid, &owner) && owner == getpid());
  if (n.enabled() && usec != nullptr && ours && absl::SimpleAtoi(usec, &micros) && micros > 0) {
    n.watchdog_ = absl::Microseconds(micros);
  }
  return n;
}

absl::Status SystemdNotifier::Notify(absl::string_view state) const {
  if (!enabled()) return absl::OkStatus();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_.size() >= sizeof(addr.sun_path) || (socket_[0] != '/' && socket_[0] != '@')) {
    return absl::InvalidArgumentError(
        absl::StrCat("NOTIFY_SOCKET '", socket_, "': expected an absolute path or @name"));
  }
  std::memcpy(addr.sun_path, socket_.data(), socket_.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_.size());
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("NOTIFY_SOCKET: socket: ", strerror(errno)));
  }
  const ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                              reinterpret_cast<const sockaddr*>(&addr), len);
  const int error = errno;
  close(fd);
  if (sent != static_cast<ssize_t>(state.size())) {
    return absl::UnavailableError(absl::StrCat("NOTIFY_SOCKET '", socket_, "': ", strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
