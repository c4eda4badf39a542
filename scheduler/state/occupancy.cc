#include "scheduler/state/occupancy.h"

#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "scheduler/state/text_records.h"

namespace topoplace::sched {

Occupancy::Occupancy(const Fabric& fabric)
    : fabric_(&fabric), busy_(fabric.gpus().size(), 0), free_per_host_(fabric.hosts().size()) {
  for (size_t h = 0; h < fabric.hosts().size(); ++h) {
    free_per_host_[h] = static_cast<int>(fabric.hosts()[h].gpus.size());
  }
}

void Occupancy::Set(GpuId gpu, bool busy) {
  if ((busy_[gpu] != 0) == busy) return;
  busy_[gpu] = busy ? 1 : 0;
  const HostId host = fabric_->gpus()[gpu].host;
  free_per_host_[host] += busy ? -1 : 1;
  busy_count_ += busy ? 1 : -1;
}

void Occupancy::SetHost(HostId host, bool busy) {
  for (GpuId g : fabric_->hosts()[host].gpus) Set(g, busy);
}

absl::StatusOr<Occupancy> ParseOccupancy(const Fabric& fabric, absl::string_view text,
                                         absl::string_view source_name) {
  Occupancy occ(fabric);
  TP_RETURN_IF_ERROR(ForEachRecord(text, source_name, [&](const RecordLine& r) -> absl::Status {
    const std::optional<HostId> host = fabric.FindHost(r.fields[0]);
    if (!host) {
      return absl::InvalidArgumentError(absl::StrCat(r.where, "unknown host '", r.fields[0],
                                                     "' (expected a host of fabric '",
                                                     fabric.name(), "')"));
    }
    if (r.fields.size() == 1) {
      occ.SetHost(*host, true);
      return absl::OkStatus();
    }
    if (r.fields.size() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(r.where, "expected 'HOST' or 'HOST GPU[,GPU...]', got '", r.text, "'"));
    }
    const std::vector<GpuId>& gpus = fabric.hosts()[*host].gpus;
    for (absl::string_view idx : absl::StrSplit(r.fields[1], ',')) {
      int i = -1;
      if (!absl::SimpleAtoi(idx, &i) || i < 0 || i >= static_cast<int>(gpus.size())) {
        return absl::InvalidArgumentError(absl::StrCat(r.where, "GPU index '", idx, "' of host ",
                                                       r.fields[0], ": expected 0..",
                                                       gpus.size() - 1));
      }
      occ.Set(gpus[i], true);
    }
    return absl::OkStatus();
  }));
  return occ;
}

absl::StatusOr<Occupancy> LoadOccupancyFile(const Fabric& fabric, const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text,
                      ReadInputFile(path, kMaxOccupancyFileBytes, "occupancy file"));
  return ParseOccupancy(fabric, text, path);
}

Occupancy RandomBackgroundLoad(const Fabric& fabric, double load, uint64_t seed) {
  Occupancy occ(fabric);
  const int64_t target = static_cast<int64_t>(load * static_cast<double>(occ.gpu_count()));
  if (target <= 0 || fabric.blocks().empty()) return occ;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick_block(0, fabric.blocks().size() - 1);
  std::uniform_int_distribution<int> pick_size(1, 32);
  // Each background job takes the free hosts of one block from a random offset on; a job
  // that finds its block full is dropped, and the loop gives up after enough misses (a
  // load near 1.0 cannot always be reached exactly).
  int misses = 0;
  while (occ.busy_gpu_count() < target && misses < 1000) {
    const Block& block = fabric.blocks()[pick_block(rng)];
    if (block.hosts.empty()) continue;
    std::uniform_int_distribution<size_t> pick_start(0, block.hosts.size() - 1);
    const size_t start = pick_start(rng);
    int want = pick_size(rng);
    bool placed = false;
    for (size_t i = 0; i < block.hosts.size() && want > 0; ++i) {
      const HostId h = block.hosts[(start + i) % block.hosts.size()];
      if (occ.free_gpus(h) != static_cast<int>(fabric.hosts()[h].gpus.size())) continue;
      occ.SetHost(h, true);
      --want;
      placed = true;
      if (occ.busy_gpu_count() >= target) break;
    }
    misses = placed ? 0 : misses + 1;
  }
  return occ;
}

}  // namespace topoplace::sched
