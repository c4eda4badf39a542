#include "scheduler/report/plan_svg.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/xml_escape.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/report/plan_report.h"

namespace topoplace::sched {
namespace {

constexpr int kCell = 8;     // px per host cell
constexpr int kGap = 2;      // px between cells and rows
constexpr int kLabel = 110;  // px for the block label column
constexpr int kHeader = 54;  // px for the title lines

// Text content must not break the XML.

// Distinct hues around the colour wheel, one per pipeline stage.
std::string StageColor(int stage, int stages) {
  const int hue = stages <= 1 ? 210 : (stage * 300) / stages;
  return absl::StrFormat("hsl(%d,70%%,50%%)", hue);
}

}  // namespace

std::string PlanToSvg(const Fabric& fabric, const PlacementPlan& plan,
                      const Occupancy& background) {
  const RankLayout layout(plan.job);
  const int g = plan.job.gpus_per_node;
  // Stage of each of the job's hosts (the stage of the first rank on it).
  std::vector<int> stage_of_host(fabric.hosts().size(), -1);
  for (size_t k = 0; k < plan.node_hosts.size(); ++k) {
    stage_of_host[plan.node_hosts[k]] = layout.Coord(static_cast<int>(k) * g, Dim::kPp);
  }
  size_t widest = 1;
  for (const Block& b : fabric.blocks()) widest = std::max(widest, b.hosts.size());
  // Blocks in pod order, so that pods appear as bands.
  std::vector<int32_t> order;
  for (const Pod& pod : fabric.pods())
    order.insert(order.end(), pod.blocks.begin(), pod.blocks.end());
  for (int32_t b = 0; b < static_cast<int32_t>(fabric.blocks().size()); ++b) {
    if (fabric.blocks()[b].pod < 0) order.push_back(b);
  }
  // Wide enough for the title lines even on small fabrics.
  const int width = std::max(960, kLabel + static_cast<int>(widest) * (kCell + kGap) + kGap);
  const int height = kHeader + static_cast<int>(order.size()) * (kCell + kGap) + 24;

  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"monospace\" font-size=\"11\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      width, height);
  absl::StrAppendFormat(&svg, "<text x=\"4\" y=\"14\">%s: %s on %s</text>\n",
                        XmlEscape(plan.policy), XmlEscape(FormatJobSpec(plan.job)),
                        XmlEscape(plan.fabric));
  absl::StrAppendFormat(
      &svg,
      "<text x=\"4\" y=\"30\">spine bytes/iteration %s (lower bound %s), %d blocks, "
      "%d pods, max %d switch hops</text>\n",
      FormatBytes(plan.traffic.spine_bytes()), FormatBytes(plan.spine_bytes_lower_bound),
      plan.footprint.blocks_used, plan.footprint.pods_used, plan.traffic.max_hops);
  absl::StrAppendFormat(&svg,
                        "<text x=\"4\" y=\"46\">colour = pipeline stage (%d stages); grey = "
                        "busy; white = free</text>\n",
                        plan.job.pp);
  for (size_t row = 0; row < order.size(); ++row) {
    const int32_t b = order[row];
    const Block& block = fabric.blocks()[b];
    const int y = kHeader + static_cast<int>(row) * (kCell + kGap);
    absl::StrAppendFormat(&svg, "<text x=\"4\" y=\"%d\">block %d pod %d</text>\n", y + kCell, b,
                          block.pod);
    for (size_t i = 0; i < block.hosts.size(); ++i) {
      const HostId h = block.hosts[i];
      const int x = kLabel + static_cast<int>(i) * (kCell + kGap);
      std::string fill = "white";
      std::string cls = "free";
      if (stage_of_host[h] >= 0) {
        fill = StageColor(stage_of_host[h], plan.job.pp);
        cls = "job";
      } else if (background.free_gpus(h) < static_cast<int>(fabric.hosts()[h].gpus.size())) {
        fill = "#bbb";
        cls = "busy";
      }
      absl::StrAppendFormat(
          &svg,
          "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
          "fill=\"%s\" stroke=\"#888\" stroke-width=\"0.5\"><title>%s%s"
          "</title></rect>\n",
          cls, x, y, kCell, kCell, fill, XmlEscape(fabric.hosts()[h].name),
          stage_of_host[h] >= 0 ? absl::StrCat(" stage ", stage_of_host[h]) : std::string());
    }
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace topoplace::sched
