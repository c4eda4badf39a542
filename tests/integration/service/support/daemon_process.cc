#include "tests/integration/service/support/daemon_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"

namespace topoplace::testing {
namespace {

std::string EnvOr(const char* name, const char* fallback) {
  const char* value = getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

}  // namespace

std::string TopoplacedPath() { return EnvOr("TOPOPLACED", TOPOPLACE_TOPOPLACED_PATH); }
std::string TopoplaceCliPath() { return EnvOr("TOPOPLACE_CLI", TOPOPLACE_CLI_PATH); }

DaemonProcess::DaemonProcess(std::string binary, std::vector<std::string> args,
                             std::string work_dir)
    : binary_(std::move(binary)), args_(std::move(args)), work_dir_(std::move(work_dir)) {}

DaemonProcess::~DaemonProcess() { Kill(SIGKILL); }

std::string DaemonProcess::address() const { return absl::StrCat("127.0.0.1:", port_); }

std::string DaemonProcess::log() const {
  std::ifstream in(work_dir_ + "/daemon.log");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

absl::Status DaemonProcess::Start() {
  const std::string port_file = work_dir_ + "/port";
  unlink(port_file.c_str());
  std::vector<std::string> argv_storage = {binary_, "--listen", "127.0.0.1:0", "--port-file",
                                           port_file};
  argv_storage.insert(argv_storage.end(), args_.begin(), args_.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log_path = work_dir_ + "/daemon.log";

  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // Relative paths (the default database) land in the test's own directory.
    if (chdir(work_dir_.c_str()) != 0) _exit(126);
    int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    for (std::string& e : env_) putenv(e.data());
    if (open_file_limit_ > 0) {
      const rlimit limit{static_cast<rlim_t>(open_file_limit_),
                         static_cast<rlim_t>(open_file_limit_)};
      if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(125);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  // Poll for the port file; a daemon that dies early fails the start at once.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(
          absl::StrCat("topoplaced exited early (status ", status, "):\n", log()));
    }
    std::ifstream in(port_file);
    if (in >> port_ && port_ > 0) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill(SIGKILL);
  return absl::DeadlineExceededError(absl::StrCat("topoplaced did not serve in 60 s:\n", log()));
}

int DaemonProcess::Kill(int signal) {
  if (pid_ <= 0) return 0;
  kill(pid_, signal);
  // A daemon that ignores a polite signal for 10 s is killed outright: never hang a test.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (true) {
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_ || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return status;
}

}  // namespace topoplace::testing
