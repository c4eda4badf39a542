// A connection limit in front of gRPC, which has none in Debian 12's 1.51 (gRPC's
// incoming-connection quota came later; its fd hand-off takes insecure credentials only).
// The relay owns the public listener: it accepts, refuses (closes at once) a connection
// past `max_total` open ones or past `max_per_peer` from one address, and copies bytes both
// ways between each accepted one and gRPC's own listener on loopback. It does not look at
// them: TLS and mTLS run end to end between client and gRPC. Hardening finding 4: 1,030
// idle connections used up the daemon's descriptors and gRPC stopped accepting for good;
// with the relay one address holds at most `max_per_peer` of them and the others still get
// in, and nothing stays refused once connections close.
//
//   auto relay = ConnectionRelay::Start("0.0.0.0:7469", grpc_port, {.max_total = 4096});
//   ... relay->port() ...;  relay->Stop();
//
// Peers are counted by address; IPv6 ones by their /64 (one host or LAN segment holds a
// whole /64, so counting single addresses would let one client take every slot).
//
// Thread-safe. A thread accepts; each relayed connection has a thread of its own.
#ifndef TOPOPLACE_API_SERVER_GUARDS_CONNECTION_RELAY_H_
#define TOPOPLACE_API_SERVER_GUARDS_CONNECTION_RELAY_H_

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace topoplace::server {

struct ConnectionLimits {
  int max_total = 4096;    // open relayed connections, all clients together
  int max_per_peer = 256;  // from one client address (an IPv6 one: its /64)
  // A connection that has not sent kHandshakeBytes this long after it was accepted is
  // closed: idle connections cannot hold a peer's slots (hardening round four, finding 6:
  // 256 idle ones from a login node locked out every other client there for as long as
  // they were held).
  absl::Duration handshake_timeout = absl::Seconds(5);
  // For a plaintext HTTP/1.1 backend whose requests have no body (the web console): a
  // request head that is not complete this long after its first byte closes the
  // connection, however slowly its bytes keep coming; 0: off. (Hardening round four,
  // finding 5: 40 connections sending a header byte every 2 s held every console worker,
  // and an authorised request waited for ever.)
  absl::Duration http_head_timeout = absl::ZeroDuration();
  // For a request-response backend whose bytes the relay cannot read (the console over
  // TLS): a connection whose client sent bytes the backend has not answered for this long
  // is closed; 0: off. Stricter than the head clock: a whole request that waits this long
  // for a busy backend is closed too.
  absl::Duration reply_timeout = absl::ZeroDuration();
};

// When the request head a connection is sending must be complete: from its first byte
// until its blank line ("\r\n\r\n"), at most `timeout`. Requests are heads alone (GET):
// the next byte after a blank line starts the next head. Not thread-safe.
class HttpHeadClock {
 public:
  explicit HttpHeadClock(absl::Duration timeout) : timeout_(timeout) {}
  // `bytes` arrived from the client at `now`.
  void Feed(absl::string_view bytes, absl::Time now);
  // The end of the head under way; InfiniteFuture between requests.
  absl::Time deadline() const;

 private:
  absl::Duration timeout_;
  bool in_head_ = false;
  absl::Time started_;
  uint32_t tail_ = 0;  // the last four bytes
};

// When a connection's client must have had an answer: from the first byte it sent after
// the backend last sent one, at most `timeout`; no deadline while nothing is unanswered.
// Not thread-safe.
class ReplyClock {
 public:
  explicit ReplyClock(absl::Duration timeout) : timeout_(timeout) {}
  // Bytes arrived from the client at `now`.
  void FromClient(absl::Time now) {
    if (!waiting_) since_ = now;
    waiting_ = true;
  }
  // Bytes went from the backend to the client.
  void FromBackend() { waiting_ = false; }
  absl::Time deadline() const { return waiting_ ? since_ + timeout_ : absl::InfiniteFuture(); }

 private:
  absl::Duration timeout_;
  bool waiting_ = false;
  absl::Time since_;
};

// What a client sends first: gRPC's HTTP/2 connection preface is 24 bytes, and a TLS
// ClientHello is longer.
inline constexpr int kHandshakeBytes = 24;

// The key a client's connections are counted under: its IPv4 address, or its IPv6 /64
// ("2001:db8:1:2::/64"); an IPv4-mapped IPv6 address counts as the IPv4 one.
std::string PeerKey(const sockaddr_storage& addr);

class ConnectionRelay {
 public:
  // Listens on `listen` ("HOST:PORT", port 0 for any) and relays to 127.0.0.1:`backend_port`.
  // InvalidArgument for an address it cannot parse; Unavailable when it cannot bind.
  static absl::StatusOr<std::unique_ptr<ConnectionRelay>> Start(const std::string& listen,
                                                                int backend_port,
                                                                ConnectionLimits limits);
  ~ConnectionRelay();
  ConnectionRelay(const ConnectionRelay&) = delete;
  ConnectionRelay& operator=(const ConnectionRelay&) = delete;

  int port() const { return port_; }
  // Connections refused so far (for logs and tests).
  int64_t refused() const { return refused_.load(); }
  // Stops accepting, closes every relayed connection and joins the threads. Idempotent.
  void Stop();

 private:
  ConnectionRelay(int listen_fd, int port, int backend_port, ConnectionLimits limits);
  void AcceptLoop();
  // Copies both ways until either side closes, then closes both and forgets the peer.
  void Relay(int client, int backend, const std::string& peer);
  // The connection's peer may join (counted then) or is refused.
  bool Admit(const std::string& peer) ABSL_LOCKS_EXCLUDED(mu_);

  const int listen_fd_;
  const int port_;
  const int backend_port_;
  const ConnectionLimits limits_;
  int wake_[2] = {-1, -1};  // a pipe that wakes the accept loop to stop
  std::atomic<int64_t> refused_{0};
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, int> per_peer_ ABSL_GUARDED_BY(mu_);
  // Each relayed connection's client and backend sockets, to shut down on Stop.
  absl::flat_hash_map<int, int> sockets_ ABSL_GUARDED_BY(mu_);
  int workers_ ABSL_GUARDED_BY(mu_) = 0;  // running (detached) relay threads
  std::thread acceptor_;
  std::atomic<bool> stopped_{false};
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_CONNECTION_RELAY_H_
