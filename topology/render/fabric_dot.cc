#include "topology/render/fabric_dot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace topoplace::render {
namespace {

// A small qualitative palette; rails beyond it reuse colours.
constexpr const char* kRailColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                        "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string Quote(const std::string& s) { return "\"" + Escape(s) + "\""; }

// A quoted label whose lines are `lines` (Graphviz breaks lines at "\n").
std::string Label(std::initializer_list<std::string> lines) {
  std::string out = "\"";
  for (const std::string& line : lines) {
    if (out.size() > 1) out += "\\n";
    out += Escape(line);
  }
  return out + "\"";
}

std::string SwitchId(const Fabric& f, SwitchId id) { return Quote("sw:" + f.switches()[id].name); }
std::string HostVertex(const Fabric& f, HostId id) { return Quote("host:" + f.hosts()[id].name); }

}  // namespace

std::string FabricToDot(const Fabric& fabric, const DotOptions& options) {
  std::string out = absl::StrCat("graph ", Quote(fabric.name()),
                                 " {\n  rankdir=BT; newrank=true; node [fontsize=10];\n");
  // Switches, one rank per tier.
  for (int tier = 0; tier <= fabric.max_tier(); ++tier) {
    std::string rank;
    for (size_t s = 0; s < fabric.switches().size(); ++s) {
      const Switch& sw = fabric.switches()[s];
      if (sw.tier != tier) continue;
      absl::StrAppend(
          &rank, "    ", SwitchId(fabric, s), " [shape=box, style=rounded, label=",
          Label({sw.name,
                 absl::StrCat("T", sw.tier, sw.rail >= 0 ? absl::StrCat(" rail ", sw.rail) : "")}),
          "];\n");
    }
    if (!rank.empty()) absl::StrAppend(&out, "  { rank=same;\n", rank, "  }\n");
  }
  // Hosts, boxed by block.
  std::vector<std::vector<HostId>> by_block(fabric.blocks().size() + 1);
  for (size_t h = 0; h < fabric.hosts().size(); ++h) {
    const int32_t b = fabric.hosts()[h].block;
    by_block[b >= 0 ? b : fabric.blocks().size()].push_back(static_cast<HostId>(h));
  }
  for (size_t b = 0; b < by_block.size(); ++b) {
    if (by_block[b].empty()) continue;
    const bool real = b < fabric.blocks().size();
    absl::StrAppend(&out, "  subgraph ", Quote(absl::StrCat("cluster_block", b)), " {\n",
                    "    label=", Quote(real ? absl::StrCat("block ", b) : "no block"),
                    "; style=dashed;\n");
    for (HostId h : by_block[b]) {
      const Host& host = fabric.hosts()[h];
      const bool lit = options.highlight.contains(host.name);
      absl::StrAppend(&out, "    ", HostVertex(fabric, h), " [shape=box, label=",
                      Label({host.name, absl::StrCat(host.gpus.size(), " GPU")}),
                      lit ? ", style=filled, fillcolor=gold" : "", "];\n");
    }
    absl::StrAppend(&out, "  }\n");
  }
  // Links: NIC ends are drawn at their host, coloured by rail.
  for (const Link& link : fabric.links()) {
    auto vertex = [&fabric](Endpoint e) {
      return e.kind == Endpoint::Kind::kSwitch ? SwitchId(fabric, e.id)
                                               : HostVertex(fabric, fabric.nics()[e.id].host);
    };
    std::string attrs;
    const Endpoint nic = link.a.kind == Endpoint::Kind::kNic ? link.a : link.b;
    if (nic.kind == Endpoint::Kind::kNic && fabric.nics()[nic.id].rail >= 0) {
      attrs = absl::StrCat("color=", Quote(kRailColours[fabric.nics()[nic.id].rail % 8]));
    }
    if (link.count > 1)
      absl::StrAppend(&attrs, attrs.empty() ? "" : ", ", "label=\"x", link.count, "\"");
    if (link.state != LinkState::kUp) {
      absl::StrAppend(&attrs, attrs.empty() ? "" : ", ", "style=dashed, color=red");
    }
    absl::StrAppend(&out, "  ", vertex(link.a), " -- ", vertex(link.b),
                    attrs.empty() ? "" : absl::StrCat(" [", attrs, "]"), ";\n");
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

absl::Status RenderDotToSvg(const std::string& dot, const std::string& out_path) {
  // dot reads the graph from stdin; popen runs it through /bin/sh, so quote the path.
  std::string quoted = "'";
  for (char c : out_path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string command = absl::StrCat("dot -Tsvg -o ", quoted);
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    return absl::FailedPreconditionError(
        "Graphviz 'dot' is not installed (Debian package: graphviz)");
  }
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) {
    return absl::InternalError(absl::StrCat("cannot run dot: ", std::strerror(errno)));
  }
  const size_t written = std::fwrite(dot.data(), 1, dot.size(), pipe);
  const int status = pclose(pipe);
  if (written != dot.size() || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrFormat("dot -Tsvg failed writing %s (status %d)", out_path, status));
  }
  return absl::OkStatus();
}

}  // namespace topoplace::render
