#include "scheduler/traffic/link_loads.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace topoplace::sched {
namespace {

void Add(std::vector<LinkLoad>& loads, LinkId link, double up, double down) {
  if (link >= 0 && (up > 0 || down > 0)) loads.push_back({link, up, down});
}

// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): a well-mixed 64-bit hash of
// (seed, flow, hop), so neighbouring flow numbers land on unrelated uplinks.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The point in [0, 1) a hash value picks.
double Point(uint64_t hash) { return static_cast<double>(hash >> 11) * 0x1.0p-53; }

// The uplink a hash value picks among some of a switch's uplinks, in proportion to their
// shares (weighted ECMP). Precondition: `uplinks` is not empty.
const LinkIndex::Uplink& Pick(std::span<const LinkIndex::Uplink> uplinks, uint64_t hash) {
  const double u = Point(hash);
  double sum = 0;
  for (const LinkIndex::Uplink& up : uplinks) {
    sum += up.share;
    if (u < sum) return up;
  }
  return uplinks.back();
}

// Pick over all of a switch's uplinks, whose sums in order LinkIndex keeps: the same choice
// found by bisection. Precondition: `uplinks` is not empty.
const LinkIndex::Uplink& PickAmongAll(std::span<const LinkIndex::Uplink> uplinks, uint64_t hash) {
  const double u = Point(hash);
  const auto it = std::upper_bound(
      uplinks.begin(), uplinks.end(), u,
      [](double point, const LinkIndex::Uplink& up) { return point < up.share_sum; });
  return it != uplinks.end() ? *it : uplinks.back();
}

// Accumulates bytes per switch-to-switch cable in the order cables are first reached; the
// cable of a link is picked by `hash` among its parallel cables. Each cable's entry is
// found through a table over all the fabric's cables, kept per thread between calls and
// cleared of what this one wrote.
class CableBytes {
 public:
  CableBytes(const LinkIndex& index, std::vector<LinkLoad>& loads)
      : index_(index), loads_(loads), first_(loads.size()) {
    if (position_.size() < static_cast<size_t>(index.cables())) {
      position_.resize(static_cast<size_t>(index.cables()), -1);
    }
  }
  ~CableBytes() {
    for (size_t i = first_; i < loads_.size(); ++i)
      position_[Cell(loads_[i].link, loads_[i].cable)] = -1;
  }
  CableBytes(const CableBytes&) = delete;
  CableBytes& operator=(const CableBytes&) = delete;
  // `hash` gives the cable where the link has several.
  template <typename Hash>
  void Up(const LinkIndex::Uplink& up, Hash hash, double bytes) {
    At(up, hash).up_bytes += bytes;
  }
  template <typename Hash>
  void Down(const LinkIndex::Uplink& up, Hash hash, double bytes) {
    At(up, hash).down_bytes += bytes;
  }

 private:
  size_t Cell(LinkId link, int32_t cable) const {
    return static_cast<size_t>(index_.first_cable(link) + cable);
  }
  template <typename Hash>
  LinkLoad& At(const LinkIndex::Uplink& up, Hash hash) {
    // The hash is computed only where the link has several cables to choose among.
    const uint64_t cables = static_cast<uint64_t>(up.cables);
    const int32_t cable = cables == 1 ? 0 : static_cast<int32_t>(hash() % cables);
    int32_t& position = position_[static_cast<size_t>(up.first_cable + cable)];
    if (position < 0) {
      position = static_cast<int32_t>(loads_.size());
      loads_.push_back({up.link, 0, 0, cable});
    }
    return loads_[static_cast<size_t>(position)];
  }
  const LinkIndex& index_;
  std::vector<LinkLoad>& loads_;
  const size_t first_;  // the first entry this one adds
  // Per cable, its entry in loads_ or -1.
  static thread_local std::vector<int32_t> position_;
};

thread_local std::vector<int32_t> CableBytes::position_;

// Per-flow ECMP: every flow takes one path. Up: its leaf hashes it onto one uplink, and if
// it crosses the core that spine hashes it onto one core link. Down: through the spine
// it went up to where the destination leaf reaches it (a two-tier Clos), else through a
// spine of the destination leaf that reaches the same core switch, else (no such
// switch on the fabric) through an uplink the destination leaf hashes it onto.
void HashedUplinkLoads(const LinkIndex& index, const NetworkTally& tally, uint64_t seed,
                       std::vector<LinkLoad>& loads) {
  CableBytes bytes(index, loads);
  std::vector<LinkIndex::Uplink> via;  // per core flow, reused
  uint64_t flow = 0;
  for (const NetworkTally::Flow& f : tally.flows) {
    // One hash per flow, salted per hop: a hop's uplink and the cable within it.
    const uint64_t key = Mix(seed ^ Mix(flow++));
    const auto hop = [key](uint64_t salt) { return Mix(key ^ salt); };
    const auto cable = [key](uint64_t salt) { return [key, salt] { return Mix(key ^ salt); }; };
    SwitchId spine = -1, core = -1;
    if (f.up_leaf >= 0 && !index.uplinks(f.up_leaf).empty()) {
      const LinkIndex::Uplink& up = PickAmongAll(index.uplinks(f.up_leaf), hop(1));
      bytes.Up(up, cable(11), f.bytes);
      spine = up.upper;
      if (f.core && !index.uplinks(spine).empty()) {
        const LinkIndex::Uplink& to_core = PickAmongAll(index.uplinks(spine), hop(2));
        bytes.Up(to_core, cable(12), f.bytes);
        core = to_core.upper;
      }
    }
    if (f.down_leaf < 0 || index.uplinks(f.down_leaf).empty()) continue;
    const std::span<const LinkIndex::Uplink> down = index.uplinks(f.down_leaf);
    if (!f.core) {
      const LinkIndex::Uplink* same = spine >= 0 ? index.towards(f.down_leaf, spine) : nullptr;
      bytes.Down(same != nullptr ? *same : PickAmongAll(down, hop(3)), cable(13), f.bytes);
      continue;
    }
    // Spines of the destination leaf that reach the core switch the flow went up to.
    via.clear();
    for (const LinkIndex::Uplink& up : down) {
      if (core < 0 || index.reaches(up.upper, core)) via.push_back(up);
    }
    // Every one of them (or none): the sums LinkIndex keeps are those of the whole list.
    const LinkIndex::Uplink& leaf_up =
        via.empty() || via.size() == down.size() ? PickAmongAll(down, hop(3)) : Pick(via, hop(3));
    bytes.Down(leaf_up, cable(13), f.bytes);
    const std::span<const LinkIndex::Uplink> spine_up = index.uplinks(leaf_up.upper);
    if (spine_up.empty()) continue;
    const LinkIndex::Uplink* same = core >= 0 ? index.towards(leaf_up.upper, core) : nullptr;
    bytes.Down(same != nullptr ? *same : PickAmongAll(spine_up, hop(4)), cable(14), f.bytes);
  }
}

}  // namespace

absl::StatusOr<EcmpMode> ParseEcmpMode(absl::string_view name) {
  if (name == "fluid") return EcmpMode::kFluid;
  if (name == "hash") return EcmpMode::kHash;
  return absl::InvalidArgumentError(
      absl::StrCat("ECMP mode '", name, "': expected 'fluid' or 'hash'"));
}

absl::string_view EcmpModeName(EcmpMode mode) { return mode == EcmpMode::kHash ? "hash" : "fluid"; }

LinkIndex::LinkIndex(const Fabric& fabric, std::span<const LinkId> unhealthy_links,
                     std::span<const SwitchId> unhealthy_switches)
    : fabric_(fabric) {
  access_.reserve(fabric.nics().size());
  for (const Nic& nic : fabric.nics()) access_.push_back({-1, nic.index});
  const absl::flat_hash_set<LinkId> bad_links(unhealthy_links.begin(), unhealthy_links.end());
  const absl::flat_hash_set<SwitchId> bad_switches(unhealthy_switches.begin(),
                                                   unhealthy_switches.end());
  const std::vector<Switch>& switches = fabric.switches();
  struct Candidate {
    LinkId link;
    SwitchId upper;
    double bandwidth;
    bool usable;
  };
  std::vector<std::vector<Candidate>> up(switches.size());
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    const bool a_nic = link.a.kind == Endpoint::Kind::kNic;
    const bool b_nic = link.b.kind == Endpoint::Kind::kNic;
    if (a_nic != b_nic) {
      access_[a_nic ? link.a.id : link.b.id].link = l;
      continue;
    }
    if (a_nic) continue;  // NIC to NIC: no switch tier involved
    SwitchId lower = link.a.id, upper = link.b.id;
    if (switches[lower].tier > switches[upper].tier) std::swap(lower, upper);
    if (switches[lower].tier == 0 || switches[lower].tier == switches[upper].tier) continue;
    const bool usable = link.state != LinkState::kDown && !bad_links.contains(l) &&
                        !bad_switches.contains(lower) && !bad_switches.contains(upper);
    up[lower].push_back({l, upper, link.bandwidth_gbps(), usable});
  }
  first_uplink_.reserve(switches.size() + 1);
  for (std::vector<Candidate>& links : up) {
    first_uplink_.push_back(uplinks_.size());
    const bool any_usable =
        std::any_of(links.begin(), links.end(), [](const Candidate& c) { return c.usable; });
    double total = 0;
    for (const Candidate& c : links) {
      if (c.usable || !any_usable) total += std::max(c.bandwidth, 1e-9);
    }
    double sum = 0;
    for (const Candidate& c : links) {
      if (!c.usable && any_usable) continue;
      const double share = std::max(c.bandwidth, 1e-9) / total;
      sum += share;
      uplinks_.push_back({c.link, c.upper, share, sum});
    }
  }
  first_uplink_.push_back(uplinks_.size());
  by_upper_.reserve(uplinks_.size());
  for (size_t i = 0; i < uplinks_.size(); ++i) {
    by_upper_.emplace_back(uplinks_[i].upper, static_cast<int32_t>(i));
  }
  for (size_t s = 0; s + 1 < first_uplink_.size(); ++s) {
    std::sort(by_upper_.begin() + static_cast<std::ptrdiff_t>(first_uplink_[s]),
              by_upper_.begin() + static_cast<std::ptrdiff_t>(first_uplink_[s + 1]));
  }
  first_cable_.reserve(fabric.links().size() + 1);
  int64_t cables = 0;
  for (const Link& link : fabric.links()) {
    first_cable_.push_back(cables);
    cables += std::max(1, link.count);
  }
  first_cable_.push_back(cables);
  for (Uplink& u : uplinks_) {
    u.first_cable = first_cable(u.link);
    u.cables = static_cast<int32_t>(cable_count(u.link));
  }
  BuildReach();
}

void LinkIndex::BuildReach() {
  const std::vector<Switch>& switches = fabric_.switches();
  reach_row_.assign(switches.size(), -1);
  reach_column_.assign(switches.size(), -1);
  int32_t rows = 0, columns = 0;
  for (const Uplink& u : uplinks_) {
    const SwitchId upper = u.upper;
    if (reach_row_[upper] < 0 && first_uplink_[upper + 1] > first_uplink_[upper]) {
      reach_row_[upper] = rows++;
      for (const Uplink& above : uplinks(upper)) {
        if (reach_column_[above.upper] < 0) reach_column_[above.upper] = columns++;
      }
    }
  }
  reach_columns_ = static_cast<size_t>(columns);
  if (static_cast<size_t>(rows) * reach_columns_ > kMaxReachBits) {
    reach_row_.clear();
    return;
  }
  reach_.assign(static_cast<size_t>(rows) * reach_columns_, false);
  for (SwitchId s = 0; s < static_cast<SwitchId>(switches.size()); ++s) {
    if (reach_row_[s] < 0) continue;
    for (const Uplink& above : uplinks(s)) {
      reach_[static_cast<size_t>(reach_row_[s]) * reach_columns_ +
             static_cast<size_t>(reach_column_[above.upper])] = true;
    }
  }
}

bool LinkIndex::reaches(SwitchId s, SwitchId upper) const {
  if (reach_row_.empty() || reach_row_[s] < 0) return towards(s, upper) != nullptr;
  const int32_t column = reach_column_[upper];
  return column >= 0 &&
         reach_[static_cast<size_t>(reach_row_[s]) * reach_columns_ + static_cast<size_t>(column)];
}

const LinkIndex::Uplink* LinkIndex::towards(SwitchId s, SwitchId upper) const {
  const auto begin = by_upper_.begin() + static_cast<std::ptrdiff_t>(first_uplink_[s]);
  const auto end = by_upper_.begin() + static_cast<std::ptrdiff_t>(first_uplink_[s + 1]);
  const auto it = std::lower_bound(begin, end, std::pair(upper, int32_t{-1}));
  return it != end && it->first == upper ? &uplinks_[static_cast<size_t>(it->second)] : nullptr;
}

std::vector<LinkLoad> LinkLoads(const LinkIndex& index, std::span<const RankSlot> slots,
                                const TrafficReport& traffic, const EcmpOptions& ecmp) {
  const NetworkTally& tally = traffic.network;
  // Access links, one entry per NIC, written in place (at most one per rank). A host's
  // ranks are consecutive, so a NIC that several ranks share is found among the entries of
  // its host's run; a bit per NIC position says whether to look.
  const size_t ranks = std::min(slots.size(), tally.rank.size());
  std::vector<LinkLoad> loads(ranks);
  size_t count = 0, run_begin = 0;
  HostId run_host = -1;
  uint64_t seen = 0;
  for (size_t r = 0; r < ranks; ++r) {
    const RankSlot& slot = slots[r];
    if (slot.host != run_host) {
      run_host = slot.host;
      run_begin = count;
      seen = 0;
    }
    const double up = tally.rank[r].sent, down = tally.rank[r].received;
    if (slot.nic < 0 || (up <= 0 && down <= 0)) continue;
    const LinkId link = index.access_link(slot.nic);
    if (link < 0) continue;
    const int32_t position = index.nic_position(slot.nic);
    const uint64_t bit = position >= 0 && position < 64 ? uint64_t{1} << position : 0;
    size_t same = count;
    if (bit == 0 || (seen & bit) != 0) {
      same = run_begin;
      while (same < count && loads[same].link != link) ++same;
    }
    seen |= bit;
    if (same == count) loads[count++] = {link, 0, 0};
    loads[same].up_bytes += up;
    loads[same].down_bytes += down;
  }
  loads.resize(count);
  if (!tally.forwarded_sent.empty()) {
    absl::flat_hash_map<LinkId, size_t> position;
    for (size_t i = 0; i < loads.size(); ++i) position.emplace(loads[i].link, i);
    for (const auto& [nic, bytes] : tally.forwarded_sent) {
      const LinkId link = index.access_link(nic);
      if (link < 0) continue;
      const auto [it, inserted] = position.try_emplace(link, loads.size());
      if (inserted) loads.push_back({link, 0, 0});
      loads[it->second].up_bytes += bytes;
    }
  }
  if (ecmp.mode == EcmpMode::kHash) {
    HashedUplinkLoads(index, tally, ecmp.seed, loads);
    return loads;
  }
  // Leaf uplinks (each has one lower end, so one entry); the bytes bound beyond the spine
  // gather per spine on the way.
  const std::vector<Switch>& switches = index.fabric().switches();
  const size_t n = tally.leaf_up.size();
  std::vector<double> core_up(n, 0.0), core_down(n, 0.0);
  for (SwitchId leaf = 0; leaf < static_cast<SwitchId>(n); ++leaf) {
    const double up = tally.leaf_up[leaf], down = tally.leaf_down[leaf];
    if (up <= 0 && down <= 0) continue;
    for (const LinkIndex::Uplink& u : index.uplinks(leaf)) {
      Add(loads, u.link, up * u.share, down * u.share);
      if (switches[u.upper].tier < kMaxSwitchTier) {
        core_up[u.upper] += tally.leaf_core_up[leaf] * u.share;
        core_down[u.upper] += tally.leaf_core_down[leaf] * u.share;
      }
    }
  }
  for (SwitchId spine = 0; spine < static_cast<SwitchId>(n); ++spine) {
    if (core_up[spine] <= 0 && core_down[spine] <= 0) continue;
    for (const LinkIndex::Uplink& u : index.uplinks(spine)) {
      Add(loads, u.link, core_up[spine] * u.share, core_down[spine] * u.share);
    }
  }
  return loads;
}

double BusiestCableSeconds(const Fabric& fabric, std::span<const LinkLoad> loads) {
  // Per link, the bytes every cable carries (fluid) and each hashed cable's own, per
  // direction; links and cables are few per plan next to its ranks.
  struct Cables {
    double up = 0, down = 0;  // fluid, per cable
    absl::flat_hash_map<int32_t, std::pair<double, double>> hashed;
  };
  absl::flat_hash_map<LinkId, Cables> per_link;
  for (const LinkLoad& load : loads) {
    Cables& c = per_link[load.link];
    if (load.cable < 0) {
      const double cables = std::max(1, fabric.links()[load.link].count);
      c.up += load.up_bytes / cables;
      c.down += load.down_bytes / cables;
    } else {
      auto& [up, down] = c.hashed[load.cable];
      up += load.up_bytes;
      down += load.down_bytes;
    }
  }
  double busiest = 0;
  for (const auto& [link, c] : per_link) {
    // As scheduler/sim/cable_resources.cc: a link without a speed carries nearly nothing.
    const double bytes_per_s = std::max(fabric.links()[link].speed_gbps, 1e-9) * 1e9 / 8;
    double most = std::max(c.up, c.down);
    for (const auto& [cable, bytes] : c.hashed) {
      most = std::max(most, std::max(c.up + bytes.first, c.down + bytes.second));
    }
    busiest = std::max(busiest, most / bytes_per_s);
  }
  return busiest;
}

}  // namespace topoplace::sched
