#include "telemetry/probe/socket_util.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace topoplace::telemetry::net {
namespace {

std::string Errno() { return strerror(errno); }

absl::StatusOr<addrinfo*> Resolve(const std::string& address, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* result = nullptr;
  const std::string service = std::to_string(port);
  const int rc =
      getaddrinfo(address.empty() ? nullptr : address.c_str(), service.c_str(), &hints, &result);
  if (rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", address, "': not a numeric IP address (", gai_strerror(rc), ")"));
  }
  return result;
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

void SetTimeouts(int fd, absl::Duration timeout) {
  timeval tv = absl::ToTimeval(timeout);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

absl::StatusOr<Fd> Connect(const std::string& address, int port, absl::Duration timeout) {
  absl::StatusOr<addrinfo*> info = Resolve(address, port, false);
  if (!info.ok()) return info.status();
  const std::string peer = absl::StrCat(address, ":", port);
  Fd fd(socket((*info)->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) {
    freeaddrinfo(*info);
    return absl::UnavailableError(absl::StrCat(peer, ": socket: ", Errno()));
  }
  int rc = connect(fd.get(), (*info)->ai_addr, (*info)->ai_addrlen);
  freeaddrinfo(*info);
  if (rc != 0 && errno != EINPROGRESS) {
    return absl::UnavailableError(absl::StrCat(peer, ": connect: ", Errno()));
  }
  if (rc != 0) {
    pollfd p{fd.get(), POLLOUT, 0};
    rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
    if (rc == 0) return absl::UnavailableError(absl::StrCat(peer, ": connect timed out"));
    int error = 0;
    socklen_t len = sizeof(error);
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &len);
    if (rc < 0 || error != 0) {
      return absl::UnavailableError(
          absl::StrCat(peer, ": connect: ", strerror(rc < 0 ? errno : error)));
    }
  }
  fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  SetTimeouts(fd.get(), timeout);
  return fd;
}

absl::StatusOr<Fd> Listen(const std::string& address, int port, int& bound_port) {
  absl::StatusOr<addrinfo*> info = Resolve(address, port, true);
  if (!info.ok()) return info.status();
  const std::string where = absl::StrCat(address, ":", port);
  Fd fd(socket((*info)->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int one = 1;
  if (fd.get() >= 0) setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  const bool ok = fd.get() >= 0 && bind(fd.get(), (*info)->ai_addr, (*info)->ai_addrlen) == 0 &&
                  listen(fd.get(), 64) == 0;
  freeaddrinfo(*info);
  if (!ok) return absl::UnavailableError(absl::StrCat(where, ": cannot listen: ", Errno()));
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  bound_port =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return fd;
}

absl::Status WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::UnavailableError(absl::StrCat("send: ", Errno()));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return absl::UnavailableError("recv: peer closed the connection");
    if (n < 0) return absl::UnavailableError(absl::StrCat("recv: ", Errno()));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace topoplace::telemetry::net
