#include "api/server/wiring/service_watchdog.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/support/slice.h>
#include <sys/resource.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace topoplace::server {
namespace {

// Below this many free descriptors the daemon counts as wedged: gRPC stops accepting for
// good once accept4 fails with EMFILE (hardening finding 4).
constexpr int64_t kMinFdHeadroom = 8;

// True if the daemon on `port` answered a health Check within `deadline`. An empty
// HealthCheckRequest (service "") is zero bytes on the wire. A fresh channel each time: a
// beat must show a new connection can still be accepted.
bool Answers(const std::string& target, absl::Duration deadline) {
  grpc::ChannelArguments args;
  args.SetInt("grpc.use_local_subchannel_pool", 1);
  const std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(deadline));
  // Not wait_for_ready: a listener that accepts and closes (TLS meeting plaintext) fails
  // the call at once; one that never accepts keeps it connecting until the deadline.
  grpc::Slice nothing;  // a default ByteBuffer is not a message; one empty slice is
  const grpc::ByteBuffer request(&nothing, 1);
  grpc::ByteBuffer response;
  absl::Mutex mu;
  bool done = false;
  grpc::Status status;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   absl::MutexLock lock(&mu);
                   status = std::move(s);
                   done = true;
                 });
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(&done));
  return status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED;
}

// File descriptors this process may still open: a daemon within a few of its limit can
// neither accept clients nor open its own probe's socket.
int64_t FdHeadroom() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return INT64_MAX;
  int64_t open = 0;
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++open;
  }
  if (error == std::errc::too_many_files_open) return 0;  // not even one to read /proc with
  if (error) return INT64_MAX;                            // cannot tell (no /proc)
  return static_cast<int64_t>(limit.rlim_cur) - open;
}

}  // namespace

ServiceWatchdog::ServiceWatchdog(SystemdNotifier notifier, absl::Duration interval,
                                 std::string target)
    : notifier_(std::move(notifier)),
      thread_([this, interval, target = std::move(target)] { Run(interval, target); }) {}

ServiceWatchdog::~ServiceWatchdog() {
  stop_.Notify();
  thread_.join();
}

void ServiceWatchdog::Run(absl::Duration interval, const std::string& target) {
  const absl::Duration beat = interval / 2;
  std::string logged;  // the last problem logged; each is logged once until it changes
  do {
    const int64_t headroom = FdHeadroom();
    std::string problem;
    if (headroom <= kMinFdHeadroom) {
      problem = absl::StrCat("only ", headroom, " file descriptors left");
    } else if (!Answers(target, beat)) {
      problem = absl::StrCat("the listener at ", target, " did not answer a health check within ",
                             absl::FormatDuration(beat));
    } else if (absl::Status s = notifier_.Notify("WATCHDOG=1"); !s.ok()) {
      problem = std::string(s.message());
    }
    if (!problem.empty() && problem != logged) {
      std::cerr << "topoplaced: watchdog: " << problem << "; not feeding systemd's watchdog"
                << std::endl;
    }
    logged = problem;
  } while (!stop_.WaitForNotificationWithTimeout(beat));
}

}  // namespace topoplace::server
