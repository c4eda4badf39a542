// A real single-member etcd on loopback for tests: free ports, its own data directory,
// started by Start() and killed and reaped in the destructor (or by Kill), so no test
// leaves an etcd behind even when an assertion fails.
//
//   EtcdProcess etcd(dir.path());
//   if (!EtcdProcess::Available()) GTEST_SKIP() << "etcd is not installed";
//   ASSERT_TRUE(etcd.Start().ok());
//   ... EtcdClient::Connect({.endpoints = {etcd.client_endpoint()}}) ...
//
// Not thread-safe.
#ifndef TOPOPLACE_TESTS_INTEGRATION_ETCD_ETCD_PROCESS_H_
#define TOPOPLACE_TESTS_INTEGRATION_ETCD_ETCD_PROCESS_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"

namespace topoplace::testing {

class EtcdProcess {
 public:
  // The member keeps its data in <work_dir>/etcd-data and logs to <work_dir>/etcd.log.
  explicit EtcdProcess(std::string work_dir);
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // Whether an etcd binary is on PATH.
  static bool Available();
  // Starts etcd and waits (up to 30 s) until it answers on its client port. On failure the
  // child is reaped and the status carries the tail of its log.
  absl::Status Start();
  // Sends `signal` and reaps the child. No-op when not running.
  void Kill(int signal);
  std::string client_endpoint() const;  // 127.0.0.1:PORT

 private:
  std::string work_dir_;
  pid_t pid_ = -1;
  int client_port_ = 0;
  int peer_port_ = 0;
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_ETCD_ETCD_PROCESS_H_
