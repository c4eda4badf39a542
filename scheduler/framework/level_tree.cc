#include "scheduler/framework/level_tree.h"

#include <algorithm>

#include "scheduler/framework/nvlink_domains.h"

namespace topoplace::sched {

absl::string_view LevelName(Level level) {
  switch (level) {
    case Level::kPod:
      return "pod";
    case Level::kBlock:
      return "block";
    case Level::kNvlinkDomain:
      return "NVLink domain";
    case Level::kHost:
      return "host";
  }
  return "?";
}

LevelTree::LevelTree(const Inventory& inv) : inv_(inv), fabric_(inv.fabric()) {
  levels_ = {Level::kPod, Level::kBlock};
  if (inv.nvlink_level()) levels_.push_back(Level::kNvlinkDomain);
  levels_.push_back(Level::kHost);
}

Level LevelTree::RequestedLevel(MaxTier tier) const {
  switch (tier) {
    case MaxTier::kNvlink:
      return inv_.nvlink_level() ? Level::kNvlinkDomain : Level::kHost;
    case MaxTier::kPod:
      return Level::kPod;
    case MaxTier::kLeaf:
    case MaxTier::kBlock:
    case MaxTier::kCluster:
      break;
  }
  return Level::kBlock;
}

size_t LevelTree::IndexOf(Level level) const {
  return static_cast<size_t>(std::find(levels_.begin(), levels_.end(), level) - levels_.begin());
}

int LevelTree::Free(Level level, int32_t id) const {
  switch (level) {
    case Level::kPod:
      return inv_.pod_free(id);
    case Level::kBlock:
      return inv_.block_free(id);
    case Level::kNvlinkDomain:
      return inv_.nvlink_free(id);
    case Level::kHost:
      return inv_.eligible(id) ? 1 : 0;
  }
  return 0;
}

int LevelTree::FreeGpus(Level level, int32_t id) const {
  switch (level) {
    case Level::kPod: {
      int free = 0;
      for (int32_t b : fabric_.pods()[id].blocks) free += inv_.block_free_gpus(b);
      return free;
    }
    case Level::kBlock:
      return inv_.block_free_gpus(id);
    case Level::kNvlinkDomain:
      return inv_.nvlink_free_gpus(id);
    case Level::kHost:
      return inv_.occupancy().free_gpus(id);
  }
  return 0;
}

std::vector<int32_t> LevelTree::All(Level level) const {
  size_t count = 0;
  switch (level) {
    case Level::kPod:
      count = fabric_.pods().size();
      break;
    case Level::kBlock:
      count = fabric_.blocks().size();
      break;
    case Level::kNvlinkDomain:
      count = fabric_.nvlink_domains().size();
      break;
    case Level::kHost:
      count = fabric_.hosts().size();
      break;
  }
  std::vector<int32_t> ids(count);
  for (size_t i = 0; i < count; ++i) ids[i] = static_cast<int32_t>(i);
  return ids;
}

std::vector<int32_t> LevelTree::Children(Level level, int32_t id) const {
  switch (level) {
    case Level::kPod:
      return fabric_.pods()[id].blocks;
    case Level::kBlock:
      if (inv_.nvlink_level()) return NvlinkDomainsOf(fabric_, id);
      return fabric_.blocks()[id].hosts;
    case Level::kNvlinkDomain:
      return fabric_.nvlink_domains()[id];
    case Level::kHost:
      return {};
  }
  return {};
}

int32_t LevelTree::Parent(Level level, int32_t id) const {
  switch (level) {
    case Level::kPod:
      return 0;
    case Level::kBlock:
      return fabric_.blocks()[id].pod;
    case Level::kNvlinkDomain:
      return fabric_.hosts()[fabric_.nvlink_domains()[id].front()].block;
    case Level::kHost:
      return inv_.nvlink_level() ? fabric_.hosts()[id].nvlink_domain_id : fabric_.hosts()[id].block;
  }
  return 0;
}

bool LevelTree::NameBefore(Level level, int32_t a, int32_t b) const {
  if (level == Level::kHost) return fabric_.hosts()[a].name < fabric_.hosts()[b].name;
  return a < b;
}

bool LevelTree::ListedBefore(HostId a, HostId b) const {
  const Host& x = fabric_.hosts()[a];
  const Host& y = fabric_.hosts()[b];
  if (x.pod != y.pod) return x.pod < y.pod;
  if (x.block != y.block) return x.block < y.block;
  if (x.nvlink_domain_id != y.nvlink_domain_id) return x.nvlink_domain_id < y.nvlink_domain_id;
  return x.name < y.name;
}

}  // namespace topoplace::sched
