// Runs the real topoplaced binary as a child process for tests: starts it on port 0 with
// a port file, waits until it serves, and kills and reaps it on request or, at the latest,
// in the destructor, so no test leaves a daemon behind even when an assertion fails.
//
//   DaemonProcess daemon(TopoplacedPath(), {"--db", dir.File("t.db")}, dir.path());
//   ASSERT_TRUE(daemon.Start().ok());
//   Connect to daemon.address() ...;  daemon.Kill(SIGKILL);
//
// Not thread-safe: drive one DaemonProcess from one thread.
#ifndef TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_DAEMON_PROCESS_H_
#define TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_DAEMON_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace topoplace::testing {

// Path of the topoplaced binary under test (TOPOPLACED env var, else the build-time path).
std::string TopoplacedPath();
// Path of the topoplace CLI binary under test (TOPOPLACE_CLI env var, else build-time path).
std::string TopoplaceCliPath();

class DaemonProcess {
 public:
  // `args` are passed after `--listen 127.0.0.1:0 --port-file <work_dir>/port`; the daemon
  // runs in `work_dir` and its output goes to <work_dir>/daemon.log.
  DaemonProcess(std::string binary, std::vector<std::string> args, std::string work_dir);
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // For the next Start: an extra environment variable, and the child's open-file limit
  // (soft and hard) as systemd's LimitNOFILE would set it.
  void SetEnv(const std::string& name, const std::string& value) {
    env_.push_back(name + "=" + value);
  }
  void SetOpenFileLimit(int files) { open_file_limit_ = files; }

  // Starts the child and waits (up to 60 s) until it has written its port. On failure the
  // child is reaped and the status carries the tail of its log.
  absl::Status Start();
  // Sends `signal` and reaps the child. Returns its wait status. No-op when not running.
  int Kill(int signal);
  bool running() const { return pid_ > 0; }
  int port() const { return port_; }
  std::string address() const;
  std::string log() const;

 private:
  std::string binary_;
  std::vector<std::string> args_;
  std::string work_dir_;
  std::vector<std::string> env_;  // NAME=VALUE
  int open_file_limit_ = 0;       // 0: inherited
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_DAEMON_PROCESS_H_
