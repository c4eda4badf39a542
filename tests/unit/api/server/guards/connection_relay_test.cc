// The connection relay in front of gRPC (api/server/guards/connection_relay.h) on loopback, with a
// plain listening socket as its backend: how clients are counted, and that a connection
// which says nothing is closed after the handshake timeout while one that speaks is
// relayed.
#include "api/server/guards/connection_relay.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace topoplace::server {
namespace {

sockaddr_storage V6(const char* text) {
  sockaddr_storage s{};
  auto& a = reinterpret_cast<sockaddr_in6&>(s);
  a.sin6_family = AF_INET6;
  EXPECT_EQ(inet_pton(AF_INET6, text, &a.sin6_addr), 1) << text;
  return s;
}

sockaddr_storage V4(const char* text) {
  sockaddr_storage s{};
  auto& a = reinterpret_cast<sockaddr_in&>(s);
  a.sin_family = AF_INET;
  EXPECT_EQ(inet_pton(AF_INET, text, &a.sin_addr), 1) << text;
  return s;
}

// Hardening round four, finding 6: 18 addresses of one IPv6 /64 (which one host may hold
// in full) filled all 4,096 slots; a /64 is one client now.
TEST(ConnectionRelay, IPv6ClientsAreCountedByTheirSlash64) {
  EXPECT_EQ(PeerKey(V6("2001:db8:1:2::17")), "2001:db8:1:2::/64");
  EXPECT_EQ(PeerKey(V6("2001:db8:1:2:ffff:1:2:3")), PeerKey(V6("2001:db8:1:2::17")));
  EXPECT_NE(PeerKey(V6("2001:db8:1:3::17")), PeerKey(V6("2001:db8:1:2::17")));
  EXPECT_EQ(PeerKey(V6("::ffff:10.1.2.3")), "10.1.2.3");
  EXPECT_EQ(PeerKey(V4("10.1.2.3")), "10.1.2.3");
}

class RelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(backend_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ASSERT_EQ(listen(backend_, 16), 0);
    socklen_t size = sizeof(addr);
    getsockname(backend_, reinterpret_cast<sockaddr*>(&addr), &size);
    absl::StatusOr<std::unique_ptr<ConnectionRelay>> relay = ConnectionRelay::Start(
        "127.0.0.1:0", ntohs(addr.sin_port),
        {.max_total = 16, .max_per_peer = 2, .handshake_timeout = absl::Milliseconds(300)});
    ASSERT_TRUE(relay.ok()) << relay.status();
    relay_ = *std::move(relay);
  }
  void TearDown() override {
    if (relay_ != nullptr) relay_->Stop();
    close(backend_);
  }
  int Dial() const {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(relay_->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    return fd;
  }
  // Whether the relay closed `fd` within `ms` (it sends nothing on its own).
  static bool ClosedWithin(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) return false;
    char byte = 0;
    return recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
  }

  int backend_ = -1;
  std::unique_ptr<ConnectionRelay> relay_;
};

// Hardening round four, finding 6: idle connections were held for ever, so 256 of them
// from one login node locked every other client there out. One that says nothing is
// closed after the handshake timeout, and its slot is free again; one that sends its
// preface is relayed, and stays.
TEST_F(RelayTest, ASilentConnectionIsClosedAndItsSlotFreed) {
  const int silent = Dial();
  const int speaking = Dial();
  const std::string preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  ASSERT_EQ(write(speaking, preface.data(), preface.size()), static_cast<ssize_t>(preface.size()));
  EXPECT_TRUE(ClosedWithin(silent, 5000)) << "a silent connection held its slot";
  EXPECT_FALSE(ClosedWithin(speaking, 600)) << "a connection that spoke was closed";
  // The preface reached the backend.
  const int relayed = accept(backend_, nullptr, nullptr);
  ASSERT_GE(relayed, 0);
  const int other = accept(backend_, nullptr, nullptr);  // the silent one's, closed by now
  std::string got(preface.size(), '\0');
  size_t have = 0;
  for (int fd : {relayed, other}) {
    const ssize_t n = recv(fd, got.data(), got.size(), MSG_DONTWAIT);
    if (n > 0) have = static_cast<size_t>(n);
  }
  EXPECT_EQ(got.substr(0, have), preface);
  // Two per address: the silent one's slot is free again.
  const int again = Dial();
  EXPECT_FALSE(ClosedWithin(again, 100)) << "refused: the silent connection's slot was kept";
  for (int fd : {silent, speaking, again, relayed, other}) close(fd);
}

}  // namespace
}  // namespace topoplace::server
