#include "tests/integration/service/support/munge_daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/munge_credential.h"

namespace topoplace::testing {

MungeDaemon::MungeDaemon(const std::string& work_dir)
    : work_dir_(work_dir), dir_(work_dir + "/munge"), socket_(dir_ + "/munge.socket") {}

MungeDaemon::~MungeDaemon() { Stop(); }

bool MungeDaemon::Available() { return access("/usr/sbin/munged", X_OK) == 0; }

absl::Status MungeDaemon::Start() {
  chmod(work_dir_.c_str(), 0711);  // a temp dir is 0700: other uids must reach the socket
  mkdir(dir_.c_str(), 0755);
  // munged wants its socket's directory reachable by all and its key readable by it only.
  chmod(dir_.c_str(), 0755);
  const std::string key = dir_ + "/munge.key";
  {
    std::ofstream out(key, std::ios::binary);
    std::random_device random;
    for (int i = 0; i < 1024; ++i) out.put(static_cast<char>(random() & 0xff));
  }
  chmod(key.c_str(), 0600);
  pid_ = fork();
  if (pid_ < 0) return absl::InternalError("fork failed");
  if (pid_ == 0) {
    const int log = open((dir_ + "/munged.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    const std::string socket = "--socket=" + socket_, key_file = "--key-file=" + key,
                      log_file = "--log-file=" + dir_ + "/munged.log",
                      pid_file = "--pid-file=" + dir_ + "/munged.pid",
                      seed_file = "--seed-file=" + dir_ + "/munged.seed";
    execl("/usr/sbin/munged", "munged", "--foreground", "--force", socket.c_str(), key_file.c_str(),
          log_file.c_str(), pid_file.c_str(), seed_file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  absl::Status last;
  while (absl::Now() < give_up) {
    last = client::EncodeMungeCredential(socket_).status();
    if (last.ok()) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(50));
  }
  Stop();
  return absl::UnavailableError(
      absl::StrCat("munged did not answer: ", last.message(), " (see ", dir_, "/munged.out)"));
}

void MungeDaemon::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

absl::StatusOr<std::string> MungeDaemon::CredentialOf(uint32_t uid) const {
  std::array<int, 2> pipe_fds{};
  if (pipe(pipe_fds.data()) != 0) return absl::InternalError("pipe failed");
  const pid_t child = fork();
  if (child < 0) return absl::InternalError("fork failed");
  if (child == 0) {
    close(pipe_fds[0]);
    if (setgid(uid) != 0 || setuid(uid) != 0) _exit(2);
    absl::StatusOr<std::string> cred = client::EncodeMungeCredential(socket_);
    if (!cred.ok()) _exit(3);
    const bool written =
        write(pipe_fds[1], cred->data(), cred->size()) == static_cast<ssize_t>(cred->size());
    _exit(written ? 0 : 4);
  }
  close(pipe_fds[1]);
  std::string cred;
  std::array<char, 4096> buffer{};
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], buffer.data(), buffer.size())) > 0) cred.append(buffer.data(), n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat("no credential as uid ", uid, " (exit ",
                                            WIFEXITED(status) ? WEXITSTATUS(status) : -1, ")"));
  }
  return cred;
}

}  // namespace topoplace::testing
