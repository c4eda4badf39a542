// A loopback TCP port for a child process that needs its port on the command line (etcd,
// chromedriver, kube-apiserver): one that nothing listens on just now, below the kernel's
// ephemeral range (ip_local_port_range). A port handed out by binding port 0 comes from
// that range, where any process's outgoing connection can take it as its local port before
// the child binds it (seen in CI: an etcd member and a slurmd exited at once); below it,
// only an explicit bind can. Tests that can bind port 0 themselves should.
// tests/testing/free_port.py follows the same rule for the scripts.
#ifndef TOPOPLACE_TESTS_TESTING_FREE_PORT_H_
#define TOPOPLACE_TESTS_TESTING_FREE_PORT_H_

namespace topoplace::testing {

// The lowest port FreePort draws from; the draw ends below EphemeralPortsStart().
inline constexpr int kLowestFreePort = 10000;

// The first port of the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
// or 32768 (Linux's default) if it cannot be read.
int EphemeralPortsStart();

// A port on 127.0.0.1 that could be bound just now, drawn at random from
// [kLowestFreePort, EphemeralPortsStart()); one from binding port 0 if that range is empty
// or none of 200 draws was free; 0 if none could be had.
int FreePort();

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_TESTING_FREE_PORT_H_
