// The HTTP listener's connection handling (plugins/common/http_listener.h).
#include "plugins/common/http_listener.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "absl/strings/numbers.h"

namespace topoplace::plugins {
namespace {

// The backlog the kernel gives this process's socket listening on `port` (Linux reports a
// listening socket's in tcpi_sacked), or -1 if there is none.
int ListenBacklog(int port) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &fd)) continue;
    sockaddr_in local{};
    socklen_t size = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) != 0) continue;
    if (local.sin_family != AF_INET || ntohs(local.sin_port) != port) continue;
    tcp_info info{};
    size = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) continue;
    if (info.tcpi_state == TCP_LISTEN) return static_cast<int>(info.tcpi_sacked);
  }
  return -1;
}

int SoMaxConn() {
  std::ifstream in("/proc/sys/net/core/somaxconn");
  int n = 0;
  in >> n;
  return n;
}

// The console's relay opens one loopback connection per client, in a burst when clients
// come in one. httplib's own backlog (5) kept six of them waiting in the kernel and dropped
// the others' SYNs, each retried a second later: under load a page waited five seconds
// behind 40 slow clients (ConsoleServerTest.HeadersSentAByteAtATime...). The listener asks
// for 1,024, as the relay does, and gets it (or the system's cap, net.core.somaxconn).
TEST(HttpListener, ListensWithABacklogForABurstOfConnections) {
  absl::StatusOr<std::unique_ptr<HttpListener>> listener = HttpListener::Create({});
  ASSERT_TRUE(listener.ok()) << listener.status();
  ASSERT_TRUE((*listener)->Start().ok());
  EXPECT_EQ(ListenBacklog((*listener)->port()), std::min(1024, SoMaxConn()));
  (*listener)->Shutdown();
}

}  // namespace
}  // namespace topoplace::plugins
