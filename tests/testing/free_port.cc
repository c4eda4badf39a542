#include "tests/testing/free_port.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>

namespace topoplace::testing {
namespace {

// Binds 127.0.0.1:`port` (0: any) and closes it again; the port bound, or 0 on failure.
int TryBind(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof(addr);
  int bound = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    bound = ntohs(addr.sin_port);
  }
  close(fd);
  return bound;
}

}  // namespace

int EphemeralPortsStart() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int start = 0;
  if (range >> start && start > 0) return start;
  return 32768;
}

int FreePort() {
  const int end = EphemeralPortsStart();
  if (end > kLowestFreePort) {
    std::mt19937 random(std::random_device{}());
    std::uniform_int_distribution<int> draw(kLowestFreePort, end - 1);
    for (int attempt = 0; attempt < 200; ++attempt) {
      if (const int port = TryBind(draw(random)); port != 0) return port;
    }
  }
  return TryBind(0);
}

}  // namespace topoplace::testing
