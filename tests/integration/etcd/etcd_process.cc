#include "tests/integration/etcd/etcd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcd/etcd_client.h"

namespace topoplace::testing {
namespace {

// A port the kernel just handed out on loopback (closed again, so etcd can bind it).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

}  // namespace

EtcdProcess::EtcdProcess(std::string work_dir) : work_dir_(std::move(work_dir)) {}

EtcdProcess::~EtcdProcess() { Kill(SIGKILL); }

bool EtcdProcess::Available() { return system("command -v etcd >/dev/null 2>&1") == 0; }

std::string EtcdProcess::client_endpoint() const {
  return absl::StrCat("127.0.0.1:", client_port_);
}

absl::Status EtcdProcess::Start() {
  client_port_ = FreePort();
  peer_port_ = FreePort();
  const std::string client_url = absl::StrCat("http://127.0.0.1:", client_port_);
  const std::string peer_url = absl::StrCat("http://127.0.0.1:", peer_port_);
  const std::vector<std::string> args = {
      "etcd",
      "--name=tp-test",
      absl::StrCat("--data-dir=", work_dir_, "/etcd-data"),
      absl::StrCat("--listen-client-urls=", client_url),
      absl::StrCat("--advertise-client-urls=", client_url),
      absl::StrCat("--listen-peer-urls=", peer_url),
      absl::StrCat("--initial-advertise-peer-urls=", peer_url),
      absl::StrCat("--initial-cluster=tp-test=", peer_url),
  };
  const std::string log = absl::StrCat(work_dir_, "/etcd.log");
  pid_ = fork();
  if (pid_ < 0) return absl::InternalError("fork failed");
  if (pid_ == 0) {
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp("etcd", argv.data());
    _exit(127);
  }
  for (int attempt = 0; attempt < 120; ++attempt) {
    // A fresh channel each time: one that failed while etcd was starting would wait out
    // gRPC's reconnect backoff.
    auto client = etcd::EtcdClient::Connect(
        {.endpoints = {client_endpoint()}, .timeout = absl::Milliseconds(500)});
    if (!client.ok()) return client.status();
    if ((*client)->Get("/health-check").ok()) return absl::OkStatus();
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError(absl::StrCat("etcd exited:\n", Tail(log)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  Kill(SIGKILL);
  return absl::DeadlineExceededError(absl::StrCat("etcd did not answer in 30 s:\n", Tail(log)));
}

void EtcdProcess::Kill(int signal) {
  if (pid_ <= 0) return;
  kill(pid_, signal);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace topoplace::testing
