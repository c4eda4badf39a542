// Which GPUs are already taken by other jobs: the background a placement must fit around.
// Comes from the ledger's live allocations (the daemon, `place --ledger`), a file
// (`--occupied FILE`) or a seeded random load (`--load 0.6 --seed N`).
//
//   TP_ASSIGN_OR_RETURN(Occupancy occ, LoadOccupancyFile(*fabric, "busy.txt"));
//   Occupancy bg = RandomBackgroundLoad(*fabric, 0.6, /*seed=*/7);
//
// Not thread-safe for writers; concurrent readers are fine.
#ifndef TOPOPLACE_SCHEDULER_STATE_OCCUPANCY_H_
#define TOPOPLACE_SCHEDULER_STATE_OCCUPANCY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

class Occupancy {
 public:
  // Everything free.
  explicit Occupancy(const Fabric& fabric);

  bool busy(GpuId gpu) const { return busy_[gpu] != 0; }
  int free_gpus(HostId host) const { return free_per_host_[host]; }
  int64_t busy_gpu_count() const { return busy_count_; }
  int64_t gpu_count() const { return static_cast<int64_t>(busy_.size()); }

  // Marks one GPU busy or free; keeps the per-host counts in step.
  void Set(GpuId gpu, bool busy);
  // Marks every GPU of `host`.
  void SetHost(HostId host, bool busy);

 private:
  const Fabric* fabric_;
  std::vector<uint8_t> busy_;
  std::vector<int> free_per_host_;
  int64_t busy_count_ = 0;
};

// Parses the occupancy text format: one entry per line, `#` starts a comment;
// `HOST` marks the whole host busy, `HOST GPU[,GPU...]` only those local GPU indices.
// InvalidArgument names `source_name`, the line and the unknown host or index.
absl::StatusOr<Occupancy> ParseOccupancy(const Fabric& fabric, absl::string_view text,
                                         absl::string_view source_name);
// The longest occupancy file read: a line per busy host of the largest fabric is a few MB.
inline constexpr size_t kMaxOccupancyFileBytes = size_t{64} << 20;
// Reads and parses a file in that format. NotFound if it cannot be read; InvalidArgument
// for a FIFO, device or directory or past kMaxOccupancyFileBytes (base/input_file.h).
absl::StatusOr<Occupancy> LoadOccupancyFile(const Fabric& fabric, const std::string& path);

// Background load like a busy cluster's: whole-node jobs of 1 to 32 nodes at random
// places (each inside one block, packed from a random start) until `load` (0..1) of the
// GPUs are busy. Deterministic for a given fabric, load and seed.
Occupancy RandomBackgroundLoad(const Fabric& fabric, double load, uint64_t seed);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STATE_OCCUPANCY_H_
