// Runs the calls that wait (a ledger change waits for a disk flush or an etcd round) on
// threads of their own, so they do not hold gRPC's callback threads. gRPC 1.51 runs every
// callback-API handler on a small fixed set of threads (two on a 2-core machine): a
// handler that blocks there caps how many changes reach the ledger at once, and so how
// many the ledger can group into one flush or one etcd transaction (measured: with the
// handler threads blocked, 8 clients' commits reached the etcd ledger 1.4 at a time).
//
//   return calls_.Run(ctx, [=] { return Change(*request, *response); });
//
// Thread-safe. The destructor waits for the calls already handed over.
#ifndef TOPOPLACE_API_SERVER_SERVICES_BLOCKING_CALLS_H_
#define TOPOPLACE_API_SERVER_SERVICES_BLOCKING_CALLS_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace topoplace::server {

class BlockingCalls {
 public:
  // How many calls may wait at once; more queue. Enough for a ledger group to fill (a
  // group commit gains little past a few dozen concurrent changes), few enough that an
  // unanswering store ties up bounded memory.
  static constexpr int kDefaultThreads = 32;

  explicit BlockingCalls(int threads = kDefaultThreads);
  ~BlockingCalls();
  BlockingCalls(const BlockingCalls&) = delete;
  BlockingCalls& operator=(const BlockingCalls&) = delete;

  // Runs `call` on one of the threads, then finishes the RPC of `context` with its status;
  // returns the reactor for the handler to return. The call's request and response stay
  // valid until then (gRPC keeps them until the reactor finishes).
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context,
                                absl::AnyInvocable<absl::Status() &&> call);

 private:
  void Work();

  absl::Mutex mu_;
  std::deque<absl::AnyInvocable<void() &&>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_BLOCKING_CALLS_H_
