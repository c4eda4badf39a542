// A real munged for tests: its own key, socket, log and seed in a directory of its own,
// started in the foreground as a child and killed and reaped in the destructor. Credentials
// of another uid come from a child process that drops to that uid before asking munged.
//
//   MungeDaemon munge(dir.path());
//   if (!MungeDaemon::Available()) GTEST_SKIP() << "munged is not installed";
//   ASSERT_TRUE(munge.Start().ok());
//   ... config.munge_socket = munge.socket(); ...
//   absl::StatusOr<std::string> cred = munge.CredentialOf(65534);  // nobody's
//
// Not thread-safe.
#ifndef TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_MUNGE_DAEMON_H_
#define TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_MUNGE_DAEMON_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace topoplace::testing {

class MungeDaemon {
 public:
  // Keeps everything under <work_dir>/munge; <work_dir> is made traversable (0711) so
  // every uid reaches the socket.
  explicit MungeDaemon(const std::string& work_dir);
  ~MungeDaemon();
  MungeDaemon(const MungeDaemon&) = delete;
  MungeDaemon& operator=(const MungeDaemon&) = delete;

  // Whether munged is installed.
  static bool Available();
  // Writes a key and starts munged; waits (up to 10 s) until it answers.
  absl::Status Start();
  // Kills munged (SIGTERM) and reaps it. No-op when it is not running.
  void Stop();
  const std::string& socket() const { return socket_; }
  // A credential made by a process running as `uid` (and its own gid `uid`). Needs root.
  absl::StatusOr<std::string> CredentialOf(uint32_t uid) const;

 private:
  std::string work_dir_;
  std::string dir_;
  std::string socket_;
  pid_t pid_ = -1;
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_MUNGE_DAEMON_H_
