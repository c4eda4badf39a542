#include "api/server/guards/connection_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace topoplace::server {
namespace {

// "HOST:PORT", "[V6]:PORT" -> host, port.
bool SplitHostPort(const std::string& address, std::string& host, std::string& port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  host = address.substr(0, colon);
  port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int number = 0;
  return absl::SimpleAtoi(port, &number) && number >= 0 && number <= 65535;
}

}  // namespace

std::string PeerKey(const sockaddr_storage& addr) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (addr.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(addr).sin_addr, text.data(),
              text.size());
  } else if (addr.ss_family == AF_INET6) {
    in6_addr a = reinterpret_cast<const sockaddr_in6&>(addr).sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {  // an IPv4 client of a dual-stack listener
      inet_ntop(AF_INET, &a.s6_addr[12], text.data(), text.size());
      return text.data();
    }
    std::fill(std::begin(a.s6_addr) + 8, std::end(a.s6_addr), 0);  // its /64
    inet_ntop(AF_INET6, &a, text.data(), text.size());
    return absl::StrCat(text.data(), "/64");
  }
  return text.data();
}

namespace {

int ConnectBackend(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

// Writes all of `data`; false when the other side is gone.
bool WriteAll(int fd, const char* data, ssize_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, static_cast<size_t>(size), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= n;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConnectionRelay>> ConnectionRelay::Start(const std::string& listen,
                                                                        int backend_port,
                                                                        ConnectionLimits limits) {
  std::string host, port;
  if (!SplitHostPort(listen, host, port)) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen: '", listen, "' is not HOST:PORT (max_connections needs TCP)"));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.empty() || host == "*" ? nullptr : host.c_str(), port.c_str(), &hints,
                  &found) != 0 ||
      found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("listen: cannot resolve '", listen, "'"));
  }
  int fd = -1;
  std::string why;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));  // not SO_REUSEPORT
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      why = strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("listen: cannot serve on '", listen, "': ", why));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  const int bound_port =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                                        : reinterpret_cast<sockaddr_in&>(bound).sin_port);
  std::unique_ptr<ConnectionRelay> relay(new ConnectionRelay(fd, bound_port, backend_port, limits));
  if (pipe2(relay->wake_, O_CLOEXEC) != 0) {
    return absl::InternalError("connection relay: no pipe");
  }
  relay->acceptor_ = std::thread([raw = relay.get()] { raw->AcceptLoop(); });
  return relay;
}

ConnectionRelay::ConnectionRelay(int listen_fd, int port, int backend_port, ConnectionLimits limits)
    : listen_fd_(listen_fd), port_(port), backend_port_(backend_port), limits_(limits) {}

ConnectionRelay::~ConnectionRelay() { Stop(); }

bool ConnectionRelay::Admit(const std::string& peer) {
  absl::MutexLock lock(&mu_);
  int& from_peer = per_peer_[peer];
  if (stopping_ || open_ >= limits_.max_total || from_peer >= limits_.max_per_peer) {
    if (from_peer == 0) per_peer_.erase(peer);
    return false;
  }
  ++open_;
  ++from_peer;
  return true;
}

void ConnectionRelay::AcceptLoop() {
  absl::Time last_warning = absl::InfinitePast();
  while (true) {
    std::array<pollfd, 2> fds = {pollfd{listen_fd_, POLLIN, 0}, pollfd{wake_[0], POLLIN, 0}};
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    sockaddr_storage addr{};
    socklen_t length = sizeof(addr);
    const int client =
        accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &length, SOCK_CLOEXEC);
    if (client < 0) {
      // Out of descriptors (EMFILE/ENFILE) or a connection gone before accept: the
      // pending connection stays in the backlog; try again shortly instead of spinning.
      if (errno == EMFILE || errno == ENFILE) absl::SleepFor(absl::Milliseconds(50));
      continue;
    }
    const std::string peer = PeerKey(addr);
    if (!Admit(peer)) {
      close(client);
      ++refused_;
      if (absl::Now() - last_warning > absl::Seconds(10)) {
        last_warning = absl::Now();
        std::cerr << "topoplaced: refusing connections past the limit (" << limits_.max_total
                  << " open, " << limits_.max_per_peer << " per address; this one from " << peer
                  << ")" << std::endl;
      }
      continue;
    }
    const int backend = ConnectBackend(backend_port_);
    if (backend < 0) {
      close(client);
      absl::MutexLock lock(&mu_);
      --open_;
      if (--per_peer_[peer] == 0) per_peer_.erase(peer);
      continue;
    }
    const int one = 1;
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    absl::MutexLock lock(&mu_);
    sockets_[client] = backend;
    ++workers_;
    std::thread([this, client, backend, peer] { Relay(client, backend, peer); }).detach();
  }
}

void HttpHeadClock::Feed(absl::string_view bytes, absl::Time now) {
  for (const char c : bytes) {
    if (!in_head_) {
      in_head_ = true;
      started_ = now;
    }
    tail_ = (tail_ << 8) | static_cast<unsigned char>(c);
    if ((tail_ & 0xffffffffu) == 0x0d0a0d0au) {  // "\r\n\r\n": the head is complete
      in_head_ = false;
      tail_ = 0;
    }
  }
}

absl::Time HttpHeadClock::deadline() const {
  return in_head_ ? started_ + timeout_ : absl::InfiniteFuture();
}

void ConnectionRelay::Relay(int client, int backend, const std::string& peer) {
  std::array<char, 64 * 1024> buffer{};
  bool open = true;
  int64_t from_client = 0;  // bytes, counted until the handshake's are in
  const absl::Time handshake_deadline = absl::Now() + limits_.handshake_timeout;
  std::optional<HttpHeadClock> heads;
  if (limits_.http_head_timeout > absl::ZeroDuration()) heads.emplace(limits_.http_head_timeout);
  std::optional<ReplyClock> replies;
  if (limits_.reply_timeout > absl::ZeroDuration()) replies.emplace(limits_.reply_timeout);
  while (open) {
    std::array<pollfd, 2> fds = {pollfd{client, POLLIN, 0}, pollfd{backend, POLLIN, 0}};
    absl::Time deadline = absl::InfiniteFuture();
    if (from_client < kHandshakeBytes) deadline = handshake_deadline;
    if (heads) deadline = std::min(deadline, heads->deadline());
    if (replies) deadline = std::min(deadline, replies->deadline());
    int wait_ms = -1;
    if (deadline != absl::InfiniteFuture()) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) break;  // silent or slow too long: closed
      wait_ms = static_cast<int>(absl::ToInt64Milliseconds(left)) + 1;
    }
    const int ready = poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) continue;  // the deadline check above decides
    for (int i = 0; i < 2 && open; ++i) {
      if (fds[i].revents == 0) continue;
      const int from = i == 0 ? client : backend;
      const int to = i == 0 ? backend : client;
      const ssize_t n = recv(from, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0 && i == 0) {
        from_client += n;
        if (heads)
          heads->Feed(absl::string_view(buffer.data(), static_cast<size_t>(n)), absl::Now());
      }
      if (n > 0 && replies) {
        if (i == 0) {
          replies->FromClient(absl::Now());
        } else {
          replies->FromBackend();
        }
      }
      open = n > 0 && WriteAll(to, buffer.data(), n);
    }
  }
  absl::MutexLock lock(&mu_);
  sockets_.erase(client);
  close(backend);
  close(client);
  --open_;
  if (--per_peer_[peer] == 0) per_peer_.erase(peer);
  --workers_;
}

void ConnectionRelay::Stop() {
  if (stopped_.exchange(true)) return;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (wake_[1] >= 0) (void)!write(wake_[1], "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  close(listen_fd_);
  absl::MutexLock lock(&mu_);
  for (const auto& [client, backend] : sockets_) {  // their threads then close and leave
    shutdown(client, SHUT_RDWR);
    shutdown(backend, SHUT_RDWR);
  }
  const auto done = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return workers_ == 0; };
  mu_.Await(absl::Condition(&done));
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
}

}  // namespace topoplace::server
