#include "tests/integration/etcd/etcd_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "store/etcd/etcd_client.h"
#include "tests/testing/free_port.h"

namespace topoplace::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Tail(const std::string& path) {
  const std::string s = ReadAll(path);
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

}  // namespace

EtcdCluster::EtcdCluster(std::string work_dir, int members)
    : work_dir_(std::move(work_dir)), members_(static_cast<size_t>(members)) {}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) Kill(i, SIGKILL);
}

bool EtcdCluster::Available() { return system("command -v etcd >/dev/null 2>&1") == 0; }

std::string EtcdCluster::endpoint(int i) const {
  return absl::StrCat("127.0.0.1:", members_[static_cast<size_t>(i)].client_port);
}

std::vector<std::string> EtcdCluster::endpoints() const {
  std::vector<std::string> out;
  for (int i = 0; i < size(); ++i) out.push_back(endpoint(i));
  return out;
}

store::EtcdOptions EtcdCluster::ClientOptions(int i) const {
  store::EtcdOptions options{.endpoints = {endpoint(i)}, .timeout = absl::Milliseconds(500)};
  if (pki_) {
    options.ca_pem = ReadAll(pki_->ca_cert);
    options.cert_pem = ReadAll(pki_->client_cert);
    options.key_pem = ReadAll(pki_->client_key);
  }
  return options;
}

std::string EtcdCluster::Log(int i) const { return absl::StrCat(work_dir_, "/etcd-", i, ".log"); }

absl::Status EtcdCluster::Start() {
  // A port FreePort found free can still be taken before etcd binds it (seen once in CI,
  // when FreePort took ports from the ephemeral range: a member exited at once; now only
  // another process's explicit bind could). Start afresh on new ports a few times,
  // returning the last failure with its log.
  absl::Status s;
  for (int attempt = 0; attempt < 4; ++attempt) {
    for (Member& m : members_) {
      m.client_port = FreePort();
      m.peer_port = FreePort();
    }
    s = absl::OkStatus();
    for (int i = 0; i < size() && s.ok(); ++i) s = Spawn(i);
    for (int i = 0; i < size() && s.ok(); ++i) s = AwaitAnswer(i);
    if (s.ok()) return s;
    std::cerr << "etcd cluster start attempt " << attempt + 1 << ": " << s << "\n";
    for (int i = 0; i < size(); ++i) {
      Kill(i, SIGKILL);
      std::filesystem::remove_all(absl::StrCat(work_dir_, "/etcd-", i));
    }
  }
  return s;
}

absl::Status EtcdCluster::Restart(int i) {
  // A member killed mid-write, or whose port another test's process briefly held, can
  // fail its first start (seen once in CI, cause not logged then): try a few times,
  // returning the last failure with the member's log.
  absl::Status s;
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    s = Spawn(i);
    if (s.ok()) s = AwaitAnswer(i);
    if (s.ok()) return s;
    std::cerr << "etcd member " << i << " restart attempt " << attempt + 1 << ": " << s << "\n";
    Kill(i, SIGKILL);
  }
  return s;
}

absl::Status EtcdCluster::Wipe() {
  for (int i = 0; i < size(); ++i) {
    Kill(i, SIGKILL);
    std::filesystem::remove_all(absl::StrCat(work_dir_, "/etcd-", i));
  }
  for (int i = 0; i < size(); ++i) {
    if (absl::Status s = Spawn(i); !s.ok()) return s;
  }
  for (int i = 0; i < size(); ++i) {
    if (absl::Status s = AwaitAnswer(i); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status EtcdCluster::Spawn(int i) {
  std::vector<std::string> cluster;
  for (int j = 0; j < size(); ++j) {
    cluster.push_back(
        absl::StrCat("m", j, "=http://127.0.0.1:", members_[static_cast<size_t>(j)].peer_port));
  }
  Member& m = members_[static_cast<size_t>(i)];
  const std::string client_url =
      absl::StrCat(pki_ ? "https" : "http", "://127.0.0.1:", m.client_port);
  const std::string peer_url = absl::StrCat("http://127.0.0.1:", m.peer_port);
  std::vector<std::string> args = {
      "etcd",
      absl::StrCat("--name=m", i),
      absl::StrCat("--data-dir=", work_dir_, "/etcd-", i),
      absl::StrCat("--listen-client-urls=", client_url),
      absl::StrCat("--advertise-client-urls=", client_url),
      absl::StrCat("--listen-peer-urls=", peer_url),
      absl::StrCat("--initial-advertise-peer-urls=", peer_url),
      absl::StrCat("--initial-cluster=", absl::StrJoin(cluster, ",")),
      "--initial-cluster-token=topoplace-test",
  };
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  if (pki_) {
    args.insert(args.end(), {"--cert-file=" + pki_->server_cert, "--key-file=" + pki_->server_key,
                             "--trusted-ca-file=" + pki_->ca_cert, "--client-cert-auth"});
  }
  const std::string log = Log(i);
  m.pid = fork();
  if (m.pid < 0) return absl::InternalError("fork failed");
  if (m.pid == 0) {
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp("etcd", argv.data());
    _exit(127);
  }
  return absl::OkStatus();
}

absl::Status EtcdCluster::AwaitAnswer(int i) {
  Member& m = members_[static_cast<size_t>(i)];
  for (int attempt = 0; attempt < 120; ++attempt) {
    // A fresh channel each time: one that failed while etcd was starting would wait out
    // gRPC's reconnect backoff.
    auto client = store::EtcdClient::Connect(ClientOptions(i));
    if (!client.ok()) return client.status();
    if ((*client)->Get("/health-check").ok()) return absl::OkStatus();
    int status = 0;
    if (waitpid(m.pid, &status, WNOHANG) == m.pid) {
      m.pid = -1;
      return absl::InternalError(absl::StrCat("etcd member ", i, " exited:\n", Tail(Log(i))));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("etcd member ", i, " did not answer in 30 s:\n", Tail(Log(i))));
}

void EtcdCluster::Signal(int i, int signal) {
  const Member& m = members_[static_cast<size_t>(i)];
  if (m.pid > 0) kill(m.pid, signal);
}

void EtcdCluster::Kill(int i, int signal) {
  Member& m = members_[static_cast<size_t>(i)];
  if (m.pid <= 0) return;
  kill(m.pid, signal);
  int status = 0;
  waitpid(m.pid, &status, 0);
  m.pid = -1;
}

}  // namespace topoplace::testing
