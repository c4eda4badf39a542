// FreePort: ports for children that are free and out of reach of outgoing connections.
#include "tests/testing/free_port.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <vector>

namespace topoplace::testing {
namespace {

// Binds 127.0.0.1:`port` and keeps it until destroyed; ok() if the bind succeeded.
class Listener {
 public:
  explicit Listener(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ok_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
          listen(fd_, 1) == 0;
  }
  ~Listener() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ok_; }

 private:
  int fd_;
  bool ok_ = false;
};

TEST(FreePort, IsBelowTheEphemeralRangeAndCanBeBound) {
  const int end = EphemeralPortsStart();
  ASSERT_GT(end, kLowestFreePort) << "this machine's ephemeral range starts at " << end;
  for (int i = 0; i < 20; ++i) {
    const int port = FreePort();
    EXPECT_GE(port, kLowestFreePort);
    EXPECT_LT(port, end);
    EXPECT_TRUE(Listener(port).ok()) << "port " << port;
  }
}

TEST(FreePort, NeverHandsOutAPortSomethingListensOn) {
  // Hold a hundred of the ports it hands out: none of the next ones may be among them.
  std::set<int> held_ports;
  std::vector<std::unique_ptr<Listener>> held;
  for (int i = 0; i < 100; ++i) {
    const int port = FreePort();
    auto listener = std::make_unique<Listener>(port);
    ASSERT_TRUE(listener->ok()) << "port " << port;
    held_ports.insert(port);
    held.push_back(std::move(listener));
  }
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(held_ports.count(FreePort()));
}

}  // namespace
}  // namespace topoplace::testing
