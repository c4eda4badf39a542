// A writer that believes it leads under a fixed fence, whatever etcd says, and records
// being told otherwise: for tests of what etcd itself refuses.
#ifndef TOPOPLACE_TESTS_INTEGRATION_ETCD_BELIEVED_FENCE_H_
#define TOPOPLACE_TESTS_INTEGRATION_ETCD_BELIEVED_FENCE_H_

#include <atomic>
#include <utility>

#include "store/etcd/write_fence.h"

namespace topoplace::testing {

class BelievedFence final : public etcd::FenceSource {
 public:
  explicit BelievedFence(etcd::Fence fence) : fence_(std::move(fence)) {}
  absl::StatusOr<etcd::Fence> WriteFence() override { return fence_; }
  void FenceLost(const etcd::Fence&) override { lost_ = true; }
  bool lost() const { return lost_; }

 private:
  etcd::Fence fence_;
  std::atomic<bool> lost_{false};
};

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_ETCD_BELIEVED_FENCE_H_
