#include "topology/render/fabric_overview.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/xml_escape.h"

namespace topoplace::render {
namespace {

// Layout in CSS pixels. Tiles wrap so no picture is wider than about 2,000 px.
constexpr int kMargin = 20;
constexpr int kLine = 18;
constexpr int kTileW = 210, kTileH = 100, kGap = 10;
constexpr int kMaxTileColumns = 8;
constexpr int kLeafW = 150, kLeafH = 58, kLeafColumns = 12;
constexpr int kHostW = 112, kHostH = 32, kHostGap = 6, kHostColumns = 16;
constexpr int kMaxHostLabel = 15;  // characters of a host name shown in its cell

std::string Bandwidth(double gbps) {
  if (gbps >= 1000) return absl::StrFormat("%.1f Tb/s", gbps / 1000);
  return absl::StrFormat("%.0f Gb/s", gbps);
}

std::string Ratio(double down, double up) {
  if (up <= 0) return "no uplinks";
  return absl::StrFormat("%.2f:1", down / up);
}

// What a tile says about a block or a pod.
struct Stats {
  int blocks = 0;
  int hosts = 0;
  int gpus = 0;
  int leaves = 0;
  absl::flat_hash_set<int32_t> rails;
  absl::flat_hash_set<int32_t> racks;    // multi-host NVLink domains
  int rack_hosts = 0;                    // hosts of the largest of them
  absl::flat_hash_set<SwitchId> spines;  // a pod's tier-2 switches
  absl::flat_hash_set<SwitchId> above;   // the switches its uplinks reach
  double down_gbps = 0;                  // towards the hosts (or the blocks, for a pod)
  double up_gbps = 0;                    // out of it
  int links_down = 0;                    // cables declared down or degraded
};

struct Tally {
  std::vector<Stats> blocks;
  std::vector<Stats> pods;
};

int32_t TierOf(const Fabric& f, const Endpoint& e) {
  return e.kind == Endpoint::Kind::kSwitch ? f.switches()[e.id].tier : 0;
}

Tally Count(const Fabric& f) {
  Tally t;
  t.blocks.resize(f.blocks().size());
  t.pods.resize(f.pods().size());
  for (size_t b = 0; b < f.blocks().size(); ++b) {
    const Block& block = f.blocks()[b];
    Stats& s = t.blocks[b];
    s.blocks = 1;
    s.hosts = static_cast<int>(block.hosts.size());
    s.leaves = static_cast<int>(block.leaves.size());
    for (HostId h : block.hosts) {
      const Host& host = f.hosts()[h];
      s.gpus += static_cast<int>(host.gpus.size());
      if (host.nvlink_domain_id >= 0) {
        const int size = static_cast<int>(f.nvlink_domains()[host.nvlink_domain_id].size());
        if (size > 1) {
          s.racks.insert(host.nvlink_domain_id);
          s.rack_hosts = std::max(s.rack_hosts, size);
        }
      }
    }
    for (SwitchId leaf : block.leaves) {
      if (f.switches()[leaf].rail >= 0) s.rails.insert(f.switches()[leaf].rail);
    }
  }
  // Spines belong to the pod of the leaves below them.
  std::vector<int32_t> pod_of_switch(f.switches().size(), -1);
  for (const Link& link : f.links()) {
    const bool bad = link.state != LinkState::kUp;
    const int32_t ta = TierOf(f, link.a), tb = TierOf(f, link.b);
    if (link.a.kind == Endpoint::Kind::kNic || link.b.kind == Endpoint::Kind::kNic) {
      const Endpoint nic = link.a.kind == Endpoint::Kind::kNic ? link.a : link.b;
      const int32_t b = f.hosts()[f.nics()[nic.id].host].block;
      if (b < 0) continue;
      t.blocks[b].down_gbps += link.bandwidth_gbps();
      t.blocks[b].links_down += bad ? 1 : 0;
      continue;
    }
    if (ta == tb) continue;
    const SwitchId lower = ta < tb ? link.a.id : link.b.id;
    const SwitchId upper = ta < tb ? link.b.id : link.a.id;
    const int32_t b = f.switches()[lower].block;
    if (f.switches()[lower].tier == 1 && b >= 0) {
      t.blocks[b].up_gbps += link.bandwidth_gbps();
      t.blocks[b].links_down += bad ? 1 : 0;
      t.blocks[b].above.insert(upper);
      pod_of_switch[upper] = f.blocks()[b].pod;
    }
  }
  for (const Link& link : f.links()) {
    if (link.a.kind == Endpoint::Kind::kNic || link.b.kind == Endpoint::Kind::kNic) continue;
    const int32_t ta = TierOf(f, link.a), tb = TierOf(f, link.b);
    if (ta == tb || std::min(ta, tb) != 2) continue;
    const SwitchId lower = ta < tb ? link.a.id : link.b.id;
    const int32_t pod = pod_of_switch[lower];
    if (pod < 0) continue;
    t.pods[pod].up_gbps += link.bandwidth_gbps();
    t.pods[pod].links_down += link.state != LinkState::kUp ? 1 : 0;
    t.pods[pod].above.insert(ta < tb ? link.b.id : link.a.id);
  }
  for (size_t p = 0; p < f.pods().size(); ++p) {
    Stats& s = t.pods[p];
    for (int32_t b : f.pods()[p].blocks) {
      const Stats& block = t.blocks[b];
      s.blocks += 1;
      s.hosts += block.hosts;
      s.gpus += block.gpus;
      s.leaves += block.leaves;
      s.down_gbps += block.up_gbps;
      s.links_down += block.links_down;
      s.racks.insert(block.racks.begin(), block.racks.end());
    }
  }
  for (size_t s = 0; s < f.switches().size(); ++s) {
    if (pod_of_switch[s] >= 0) t.pods[pod_of_switch[s]].spines.insert(static_cast<SwitchId>(s));
  }
  return t;
}

class Svg {
 public:
  void Text(int x, int y, absl::string_view text, absl::string_view style = "") {
    absl::StrAppend(&body_, "<text x=\"", x, "\" y=\"", y, "\"",
                    style.empty() ? "" : absl::StrCat(" class=\"", style, "\""), ">",
                    XmlEscape(text), "</text>\n");
  }
  void Rect(int x, int y, int w, int h, absl::string_view style) {
    absl::StrAppend(&body_, "<rect x=\"", x, "\" y=\"", y, "\" width=\"", w, "\" height=\"", h,
                    "\" rx=\"4\" class=\"", style, "\"/>\n");
    width_ = std::max(width_, x + w + kMargin);
    height_ = std::max(height_, y + h + kMargin);
  }
  // One line of header text, below the previous one.
  void Line(absl::string_view text, absl::string_view style = "") {
    y_ += kLine;
    Text(kMargin, y_, text, style);
    height_ = std::max(height_, y_ + kMargin);
  }
  int y() const { return y_; }
  void Skip(int pixels) { y_ += pixels; }
  std::string Finish(absl::string_view title) const {
    return absl::StrCat(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", std::max(width_, 640), "\" height=\"",
        height_, "\" viewBox=\"0 0 ", std::max(width_, 640), " ", height_,
        "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n<title>", XmlEscape(title),
        "</title>\n<style>.tile{fill:#f3f5fa;stroke:#9aa3b8}.bad{fill:#fdf0ef;stroke:#d3302f;"
        "stroke-width:2}.host{fill:#e6eaf3;stroke:#9aa3b8}.leaf{fill:#dde7fb;stroke:#2b5fd9}"
        ".rack{fill:none;stroke:#7a5cc2;stroke-dasharray:4 3}.b{font-weight:bold}"
        ".h{font-size:16px;font-weight:bold}.m{fill:#5b6275}.r{fill:#d3302f}</style>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        body_, "</svg>\n");
  }

 private:
  std::string body_;
  int width_ = 0, height_ = 0;
  int y_ = kMargin - 4;
};

void Header(Svg& svg, const Fabric& f, absl::string_view what) {
  svg.Line(absl::StrCat(f.name(), ": ", what), "h");
  svg.Line(
      absl::StrCat(f.hosts().size(), " hosts · ", f.gpus().size(), " GPUs · ", f.blocks().size(),
                   " blocks · ", f.pods().size(), " pods · ", f.nvlink_domains().size(),
                   " NVLink domains", f.rail_optimized() ? " · rail-optimised" : ""),
      "m");
  const auto loose =
      std::count_if(f.hosts().begin(), f.hosts().end(), [](const Host& h) { return h.block < 0; });
  if (loose > 0) svg.Line(absl::StrCat(loose, " hosts in no block (not drawn)"), "r");
  for (const TierStats& t : f.tier_stats()) {
    const std::optional<double> over = t.oversubscription();
    svg.Line(absl::StrCat("tier ", t.tier, ": ", t.switches, " switches, ", Bandwidth(t.down_gbps),
                          " down, ", Bandwidth(t.up_gbps), " up",
                          over ? absl::StrFormat(", %.2f:1", *over) : ""),
             "m");
  }
  svg.Skip(kGap + 4);
}

// Lines of a block's or a pod's tile.
std::vector<std::string> TileLines(const Stats& s, bool pod) {
  std::vector<std::string> lines;
  if (pod) {
    lines.push_back(absl::StrCat(s.blocks, " blocks · ", s.hosts, " hosts"));
    lines.push_back(absl::StrCat(s.gpus, " GPUs · ", s.spines.size(), " spines"));
  } else {
    lines.push_back(absl::StrCat(s.hosts, " hosts · ", s.gpus, " GPUs"));
    lines.push_back(s.racks.empty() ? absl::StrCat(s.rails.size(), " rails · ", s.leaves, " leaves")
                                    : absl::StrCat(s.racks.size(), " NVLink racks of ",
                                                   s.rack_hosts, " · ", s.leaves, " leaves"));
  }
  lines.push_back(absl::StrCat("up ", Bandwidth(s.up_gbps), " · ", Ratio(s.down_gbps, s.up_gbps)));
  return lines;
}

void Tiles(Svg& svg, const std::vector<std::pair<std::string, const Stats*>>& tiles, bool pods) {
  const int n = static_cast<int>(tiles.size());
  const int columns = std::clamp(static_cast<int>(std::ceil(std::sqrt(n * 1.6))), 1,
                                 std::min(kMaxTileColumns, std::max(1, n)));
  const int top = svg.y();
  for (int i = 0; i < n; ++i) {
    const int x = kMargin + (i % columns) * (kTileW + kGap);
    const int y = top + (i / columns) * (kTileH + kGap);
    const Stats& s = *tiles[i].second;
    svg.Rect(x, y, kTileW, kTileH, s.links_down > 0 ? "bad" : "tile");
    svg.Text(x + 10, y + 20, tiles[i].first, "b");
    int line_y = y + 20;
    for (const std::string& line : TileLines(s, pods)) svg.Text(x + 10, line_y += kLine, line);
    if (s.links_down > 0) {
      svg.Text(x + kTileW - 10 - 7 * 10, y + 20, absl::StrCat(s.links_down, " down"), "r");
    }
  }
}

std::string WholeFabric(const Fabric& f, const Tally& t) {
  Svg svg;
  std::vector<std::pair<std::string, const Stats*>> tiles;
  if (static_cast<int>(f.blocks().size()) > kMaxBlockTiles) {
    Header(svg, f,
           absl::StrCat("the ", f.pods().size(),
                        " pods (drill in: fabric render --pod N, --block N)"));
    for (size_t p = 0; p < f.pods().size(); ++p)
      tiles.push_back({absl::StrCat("pod ", p), &t.pods[p]});
    Tiles(svg, tiles, /*pods=*/true);
  } else {
    Header(svg, f,
           absl::StrCat("the ", f.blocks().size(), " blocks (drill in: fabric render --block N)"));
    const bool pods = f.pods().size() > 1;
    for (size_t b = 0; b < f.blocks().size(); ++b) {
      tiles.push_back({pods ? absl::StrCat("block ", b, " · pod ", f.blocks()[b].pod)
                            : absl::StrCat("block ", b),
                       &t.blocks[b]});
    }
    Tiles(svg, tiles, /*pods=*/false);
  }
  return svg.Finish(f.name());
}

std::string OnePod(const Fabric& f, const Tally& t, int pod) {
  Svg svg;
  const Stats& s = t.pods[pod];
  Header(svg, f,
         absl::StrCat("pod ", pod, ": ", s.blocks, " blocks, ", s.spines.size(), " spines, up ",
                      Bandwidth(s.up_gbps), ", ", Ratio(s.down_gbps, s.up_gbps)));
  std::vector<std::pair<std::string, const Stats*>> tiles;
  for (int32_t b : f.pods()[pod].blocks) tiles.push_back({absl::StrCat("block ", b), &t.blocks[b]});
  Tiles(svg, tiles, /*pods=*/false);
  return svg.Finish(absl::StrCat(f.name(), " pod ", pod));
}

std::string OneBlock(const Fabric& f, const Tally& t, int b) {
  Svg svg;
  const Block& block = f.blocks()[b];
  const Stats& s = t.blocks[b];
  Header(svg, f,
         absl::StrCat("block ", b, " (pod ", block.pod, "): ", s.hosts, " hosts, ", s.gpus,
                      " GPUs, ", s.leaves, " leaves, up ", Bandwidth(s.up_gbps), " to ",
                      s.above.size(), " switches, ", Ratio(s.down_gbps, s.up_gbps)));
  // Leaves, with the hosts cabled to each and their uplink bandwidth.
  std::vector<int> hosts_below(f.switches().size(), 0);
  std::vector<double> up(f.switches().size(), 0);
  std::vector<bool> host_bad(f.hosts().size(), false);
  for (const Link& link : f.links()) {
    const bool nic_a = link.a.kind == Endpoint::Kind::kNic,
               nic_b = link.b.kind == Endpoint::Kind::kNic;
    if (nic_a || nic_b) {
      const Endpoint nic = nic_a ? link.a : link.b, sw = nic_a ? link.b : link.a;
      if (sw.kind == Endpoint::Kind::kSwitch) ++hosts_below[sw.id];
      if (link.state != LinkState::kUp) host_bad[f.nics()[nic.id].host] = true;
      continue;
    }
    const int32_t ta = TierOf(f, link.a), tb = TierOf(f, link.b);
    if (ta != tb) up[ta < tb ? link.a.id : link.b.id] += link.bandwidth_gbps();
  }
  int top = svg.y();
  for (size_t i = 0; i < block.leaves.size(); ++i) {
    const Switch& leaf = f.switches()[block.leaves[i]];
    const int x = kMargin + static_cast<int>(i % kLeafColumns) * (kLeafW + kGap);
    const int y = top + static_cast<int>(i / kLeafColumns) * (kLeafH + kGap);
    svg.Rect(x, y, kLeafW, kLeafH, "leaf");
    svg.Text(x + 8, y + 17, leaf.name, "b");
    svg.Text(x + 8, y + 17 + kLine,
             absl::StrCat(leaf.rail >= 0 ? absl::StrCat("rail ", leaf.rail, " · ") : "",
                          hosts_below[block.leaves[i]], " cables"));
    svg.Text(x + 8, y + 17 + 2 * kLine, absl::StrCat("up ", Bandwidth(up[block.leaves[i]])));
  }
  const int leaf_rows = (static_cast<int>(block.leaves.size()) + kLeafColumns - 1) / kLeafColumns;
  top += leaf_rows * (kLeafH + kGap) + kGap;
  // Hosts, grouped by multi-host NVLink rack (each rack starts a row).
  std::vector<std::vector<HostId>> groups;
  std::vector<std::string> group_names;
  for (HostId h : block.hosts) {
    const Host& host = f.hosts()[h];
    const bool rack =
        host.nvlink_domain_id >= 0 && f.nvlink_domains()[host.nvlink_domain_id].size() > 1;
    const std::string name = rack ? absl::StrCat("NVLink rack ", host.nvlink_domain) : "";
    if (groups.empty() || group_names.back() != name) {
      groups.emplace_back();
      group_names.push_back(name);
    }
    groups.back().push_back(h);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!group_names[g].empty()) {
      top += kLine;
      svg.Text(kMargin, top - 4, group_names[g], "m");
    }
    const int rows = (static_cast<int>(groups[g].size()) + kHostColumns - 1) / kHostColumns;
    for (size_t i = 0; i < groups[g].size(); ++i) {
      const Host& host = f.hosts()[groups[g][i]];
      const int x = kMargin + static_cast<int>(i % kHostColumns) * (kHostW + kHostGap);
      const int y = top + static_cast<int>(i / kHostColumns) * (kHostH + kHostGap);
      svg.Rect(x, y, kHostW, kHostH, host_bad[groups[g][i]] ? "bad" : "host");
      const std::string label = host.name.size() > kMaxHostLabel
                                    ? host.name.substr(0, kMaxHostLabel - 1) + "…"
                                    : host.name;
      svg.Text(x + 6, y + 14, label);
      svg.Text(x + 6, y + 27, absl::StrCat(host.gpus.size(), " GPU · ", host.nics.size(), " NIC"),
               "m");
    }
    top += rows * (kHostH + kHostGap) + kGap;
  }
  return svg.Finish(absl::StrCat(f.name(), " block ", b));
}

}  // namespace

absl::StatusOr<std::string> FabricOverviewSvg(const Fabric& fabric,
                                              const OverviewOptions& options) {
  const Tally tally = Count(fabric);
  if (options.block >= 0) {
    if (options.block >= static_cast<int>(fabric.blocks().size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("block: ", options.block, " is not a block of '", fabric.name(), "' (0 to ",
                       static_cast<int>(fabric.blocks().size()) - 1, ")"));
    }
    return OneBlock(fabric, tally, options.block);
  }
  if (options.pod >= 0) {
    if (options.pod >= static_cast<int>(fabric.pods().size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("pod: ", options.pod, " is not a pod of '", fabric.name(), "' (0 to ",
                       static_cast<int>(fabric.pods().size()) - 1, ")"));
    }
    return OnePod(fabric, tally, options.pod);
  }
  return WholeFabric(fabric, tally);
}

}  // namespace topoplace::render
