#include "telemetry/probe/tcp_transport.h"

#include <arpa/inet.h>
#include <endian.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "telemetry/probe/socket_util.h"

namespace topoplace::telemetry {
namespace {

// A responder never waits longer than this for a client that went quiet.
constexpr absl::Duration kResponderTimeout = absl::Seconds(5);
constexpr uint32_t kMaxMessageBytes = 16 << 20;
constexpr int kBandwidthSendBuffer = 256 << 10;

void Serve(net::Fd conn) {
  net::SetTimeouts(conn.get(), kResponderTimeout);
  char op = 0;
  uint32_t size_be = 0;
  if (!net::ReadAll(conn.get(), &op, 1).ok()) return;
  if (!net::ReadAll(conn.get(), &size_be, sizeof(size_be)).ok()) return;
  const uint32_t size = ntohl(size_be);
  if (size == 0 || size > kMaxMessageBytes) return;
  std::vector<char> buffer(size);
  if (op == 'L') {
    while (net::ReadAll(conn.get(), buffer.data(), size).ok() &&
           net::WriteAll(conn.get(), buffer.data(), size).ok()) {
    }
    return;
  }
  if (op != 'B') return;
  uint64_t total = 0;
  while (true) {
    const ssize_t n = recv(conn.get(), buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) return;  // timeout or error: no answer, the client times out
      break;
    }
    total += static_cast<uint64_t>(n);
  }
  const uint64_t total_be = htobe64(total);
  (void)net::WriteAll(conn.get(), &total_be, sizeof(total_be));
}

class TcpResponder final : public ProbeResponder {
 public:
  TcpResponder(net::Fd listener, int port) : listener_(std::move(listener)), port_(port) {
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }
  ~TcpResponder() override {
    stop_.store(true);
    accept_thread_.join();
    absl::MutexLock lock(&mu_);
    for (Worker& w : workers_) w.thread.join();
  }
  int port() const override { return port_; }

 private:
  void AcceptLoop() {
    while (!stop_.load()) {
      pollfd p{listener_.get(), POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      net::Fd conn(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (conn.get() < 0) continue;
      absl::MutexLock lock(&mu_);
      // Join finished workers so a long-running responder does not accumulate threads.
      std::erase_if(workers_, [](Worker& w) {
        if (!w.done->load()) return false;
        w.thread.join();
        return true;
      });
      auto done = std::make_shared<std::atomic<bool>>(false);
      workers_.push_back({std::thread([c = std::move(conn), done]() mutable {
                            Serve(std::move(c));
                            done->store(true);
                          }),
                          done});
    }
  }
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  net::Fd listener_;
  const int port_;
  std::atomic<bool> stop_{false};
  std::thread accept_thread_;
  absl::Mutex mu_;
  std::vector<Worker> workers_ ABSL_GUARDED_BY(mu_);
};

absl::Status SendHeader(int fd, char op, uint32_t size) {
  char header[5];
  header[0] = op;
  const uint32_t size_be = htonl(size);
  std::memcpy(header + 1, &size_be, sizeof(size_be));
  return net::WriteAll(fd, header, sizeof(header));
}

absl::StatusOr<double> MeasureLatency(const ProbePeer& peer, const ProbeOptions& o) {
  TP_ASSIGN_OR_RETURN(net::Fd fd, net::Connect(peer.address, peer.port, o.timeout));
  const uint32_t size = static_cast<uint32_t>(o.latency_bytes);
  TP_RETURN_IF_ERROR(SendHeader(fd.get(), 'L', size));
  std::vector<char> out(size, 'p'), in(size);
  return MeasureOneWayLatencyUs(o.latency_iterations, [&]() -> absl::Status {
    TP_RETURN_IF_ERROR(net::WriteAll(fd.get(), out.data(), size));
    return net::ReadAll(fd.get(), in.data(), size);
  });
}

absl::StatusOr<double> MeasureBandwidth(const ProbePeer& peer, const ProbeOptions& o) {
  TP_ASSIGN_OR_RETURN(net::Fd fd, net::Connect(peer.address, peer.port, o.timeout));
  // A small send buffer keeps what is still queued at the deadline small, so a slow link
  // drains it quickly and the probe stays within its budget.
  int sndbuf = kBandwidthSendBuffer;
  setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  const uint32_t size = static_cast<uint32_t>(o.bandwidth_block_bytes);
  TP_RETURN_IF_ERROR(SendHeader(fd.get(), 'B', size));
  std::vector<char> block(size, 'b');
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + absl::ToChronoNanoseconds(o.bandwidth_duration);
  size_t offset = 0;
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) break;
    const int wait_ms =
        static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) +
        1;
    pollfd p{fd.get(), POLLOUT, 0};
    if (poll(&p, 1, wait_ms) <= 0) continue;  // a slow link: the deadline ends the stream
    const ssize_t n =
        send(fd.get(), block.data() + offset, size - offset, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return absl::UnavailableError(absl::StrCat("send: ", std::strerror(errno)));
    offset = (offset + static_cast<size_t>(n)) % size;
  }
  shutdown(fd.get(), SHUT_WR);
  // The queued tail drains at the link's rate; allow for it on a slow link.
  net::SetTimeouts(fd.get(), o.timeout + absl::Seconds(2));
  uint64_t received_be = 0;
  TP_RETURN_IF_ERROR(net::ReadAll(fd.get(), &received_be, sizeof(received_be)));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return GigabitsPerSecond(be64toh(received_be), seconds);
}

class TcpTransport final : public ProbeTransport {
 public:
  absl::string_view name() const override { return "tcp"; }
  absl::StatusOr<ProbeResponderPtr> Listen(const std::string& address, int port) override {
    int bound = 0;
    TP_ASSIGN_OR_RETURN(net::Fd fd, net::Listen(address, port, bound));
    return ProbeResponderPtr(new TcpResponder(std::move(fd), bound));
  }
  absl::StatusOr<ProbeMeasurement> Probe(const ProbePeer& peer,
                                         const ProbeOptions& options) override {
    TP_RETURN_IF_ERROR(ValidateProbeOptions(options));
    ProbeMeasurement m;
    absl::StatusOr<double> latency = MeasureLatency(peer, options);
    if (!latency.ok()) {
      return absl::UnavailableError(absl::StrCat(peer.address, ":", peer.port,
                                                 ": latency probe: ", latency.status().message()));
    }
    m.latency_us = *latency;
    if (options.bandwidth_duration > absl::ZeroDuration()) {
      absl::StatusOr<double> bandwidth = MeasureBandwidth(peer, options);
      if (!bandwidth.ok()) {
        return absl::UnavailableError(absl::StrCat(
            peer.address, ":", peer.port, ": bandwidth probe: ", bandwidth.status().message()));
      }
      m.bandwidth_gbps = *bandwidth;
    }
    return m;
  }
};

}  // namespace

ProbeTransportPtr NewTcpTransport() { return std::make_unique<TcpTransport>(); }

}  // namespace topoplace::telemetry
