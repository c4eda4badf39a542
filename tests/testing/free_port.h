// A loopback TCP port for a child process that needs its port on the command line (etcd,
// chromedriver): the kernel hands one out and it is closed again at once, so the child
// can bind it a moment later. Another process could take it in between; tests that can
// bind port 0 themselves should.
#ifndef TOPOPLACE_TESTS_TESTING_FREE_PORT_H_
#define TOPOPLACE_TESTS_TESTING_FREE_PORT_H_

namespace topoplace::testing {

// A port on 127.0.0.1 nothing listened on just now; 0 if none could be had.
int FreePort();

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_TESTING_FREE_PORT_H_
