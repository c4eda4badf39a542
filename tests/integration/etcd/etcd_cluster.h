// A real etcd cluster on loopback for tests: `members` etcd processes on free ports, each
// with its own data directory under the work directory, started by Start() and killed and
// reaped in the destructor (or by Kill), so no test leaves an etcd behind even when an
// assertion fails.
//
//   EtcdCluster etcd(dir.path(), /*members=*/3);
//   if (!EtcdCluster::Available()) GTEST_SKIP() << "etcd is not installed";
//   ASSERT_TRUE(etcd.Start().ok());
//   ... EtcdClient::Connect({.endpoints = etcd.endpoints()}) ...
//   etcd.Kill(0, SIGKILL);  ...  ASSERT_TRUE(etcd.Restart(0).ok());
//
// Not thread-safe.
#ifndef TOPOPLACE_TESTS_INTEGRATION_ETCD_ETCD_CLUSTER_H_
#define TOPOPLACE_TESTS_INTEGRATION_ETCD_ETCD_CLUSTER_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "store/etcd/etcd_client.h"
#include "tests/integration/service/support/test_certificates.h"

namespace topoplace::testing {

class EtcdCluster {
 public:
  // Member i keeps its data in <work_dir>/etcd-<i> and logs to <work_dir>/etcd-<i>.log.
  explicit EtcdCluster(std::string work_dir, int members = 1);
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // Whether an etcd binary is on PATH.
  static bool Available();
  // Before Start: serve clients over TLS with `pki`'s server certificate and require client
  // certificates signed by its CA (the cluster's own readiness checks use its client one).
  void RequireTls(TestCertificates pki) { pki_ = std::move(pki); }
  // Flags every member starts (or restarts) with from now on, beside its own, e.g.
  // {"--max-request-bytes=65536"}. Members otherwise run on etcd's defaults.
  void SetExtraFlags(std::vector<std::string> flags) { extra_flags_ = std::move(flags); }
  // Starts every member and waits (up to 30 s) until each answers a read. On failure the
  // children are reaped and the status carries the tail of a log.
  absl::Status Start();
  // Sends `signal` to member `i` and reaps it. No-op when it is not running.
  void Kill(int i, int signal);
  // Sends `signal` to member `i` without waiting for it (SIGSTOP hangs it, SIGCONT resumes).
  void Signal(int i, int signal);
  // Starts member `i` again on its data and waits until the cluster answers through it.
  absl::Status Restart(int i);
  // Kills every member, deletes their data and starts them again, empty, at the same
  // addresses (a lost disk, or an operator's `rm -rf`): etcd answers as a new store.
  absl::Status Wipe();
  std::string endpoint(int i) const;  // 127.0.0.1:PORT
  std::vector<std::string> endpoints() const;
  int size() const { return static_cast<int>(members_.size()); }

 private:
  struct Member {
    pid_t pid = -1;
    int client_port = 0;
    int peer_port = 0;
  };
  absl::Status Spawn(int i);
  // Waits until member `i` answers a (quorum) read.
  absl::Status AwaitAnswer(int i);
  std::string Log(int i) const;

  // The options a client of this cluster needs (TLS when required).
  store::EtcdOptions ClientOptions(int i) const;

  std::string work_dir_;
  std::vector<Member> members_;
  std::optional<TestCertificates> pki_;  // none: plaintext
  std::vector<std::string> extra_flags_;
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_ETCD_ETCD_CLUSTER_H_
