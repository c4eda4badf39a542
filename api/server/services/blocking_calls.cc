#include "api/server/services/blocking_calls.h"

#include <utility>

#include "client/rpc_status.h"

namespace topoplace::server {

BlockingCalls::BlockingCalls(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

BlockingCalls::~BlockingCalls() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

grpc::ServerUnaryReactor* BlockingCalls::Run(grpc::CallbackServerContext* context,
                                             absl::AnyInvocable<absl::Status() &&> call) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::MutexLock lock(&mu_);
  queue_.push_back([reactor, call = std::move(call)]() mutable {
    reactor->Finish(client::ToGrpcStatus(std::move(call)()));
  });
  return reactor;
}

void BlockingCalls::Work() {
  while (true) {
    absl::AnyInvocable<void() &&> next;
    {
      absl::MutexLock lock(&mu_);
      const auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, with every call handed over done
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    std::move(next)();
  }
}

}  // namespace topoplace::server
