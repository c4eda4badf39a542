// A writer that believes it leads under a fixed fence, whatever etcd says, and records
// being told otherwise: for tests of what etcd itself refuses.
#ifndef TOPOPLACE_TESTS_INTEGRATION_ETCD_BELIEVED_FENCE_H_
#define TOPOPLACE_TESTS_INTEGRATION_ETCD_BELIEVED_FENCE_H_

#include <atomic>
#include <utility>

#include "store/etcd/write_fence.h"

namespace topoplace::testing {

class BelievedFence final : public store::FenceSource {
 public:
  explicit BelievedFence(store::Fence fence) : fence_(std::move(fence)) {}
  absl::StatusOr<store::Fence> WriteFence() override { return fence_; }
  void FenceLost(const store::Fence&) override { lost_ = true; }
  bool lost() const { return lost_; }

 private:
  store::Fence fence_;
  std::atomic<bool> lost_{false};
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_ETCD_BELIEVED_FENCE_H_
