#include "topology/discovery/gpu_fabric.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace topoplace::discovery {
namespace {

constexpr absl::string_view kNotAvailable = "N/A";

// Leading spaces of `line`.
size_t Indent(absl::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

}  // namespace

absl::StatusOr<std::vector<GpuFabricInfo>> ParseNvidiaSmiFabric(absl::string_view text,
                                                                absl::string_view source) {
  std::vector<GpuFabricInfo> gpus;
  size_t fabric_indent = 0;  // indent of the current "Fabric" heading; 0: not inside one
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    absl::ConsumeSuffix(&line, "\r");
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (trimmed.empty()) continue;
    const size_t indent = Indent(line);
    if (indent == 0) {
      fabric_indent = 0;
      if (absl::StartsWith(trimmed, "GPU ")) {
        GpuFabricInfo gpu;
        gpu.gpu = std::string(absl::StripAsciiWhitespace(trimmed.substr(4)));
        gpu.state = gpu.status = gpu.clique_id = gpu.cluster_uuid = std::string(kNotAvailable);
        gpus.push_back(std::move(gpu));
      }
      continue;
    }
    if (trimmed == "Fabric") {
      if (gpus.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            source, ":", line_number, ": a Fabric section before any 'GPU <bus id>' line"));
      }
      fabric_indent = indent;
      continue;
    }
    if (fabric_indent == 0) {
      // A GPU's own fields: only its product name is read.
      const size_t colon = trimmed.find(" : ");
      if (!gpus.empty() && colon != absl::string_view::npos &&
          absl::StripAsciiWhitespace(trimmed.substr(0, colon)) == "Product Name") {
        gpus.back().product = std::string(absl::StripAsciiWhitespace(trimmed.substr(colon + 3)));
      }
      continue;
    }
    if (indent <= fabric_indent) {
      fabric_indent = 0;  // the next section of this GPU
      continue;
    }
    const size_t colon = trimmed.find(" : ");
    if (colon == absl::string_view::npos) {
      if (trimmed == "Health") continue;  // a sub-heading of the section
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", line_number, ": expected 'Field : value' in a Fabric section, got '",
          trimmed.substr(0, 80), "'"));
    }
    const absl::string_view key = absl::StripAsciiWhitespace(trimmed.substr(0, colon));
    const std::string value(absl::StripAsciiWhitespace(trimmed.substr(colon + 3)));
    GpuFabricInfo& gpu = gpus.back();
    if (key == "State") {
      gpu.state = value;
    } else if (key == "Status") {
      gpu.status = value;
    } else if (key == "CliqueId") {
      gpu.clique_id = value;
    } else if (key == "ClusterUUID") {
      gpu.cluster_uuid = value;
    }
  }
  return gpus;
}

GpuFabricDomain NvlinkDomainOf(const std::vector<GpuFabricInfo>& gpus) {
  GpuFabricDomain out;
  std::set<std::string> domains;
  for (const GpuFabricInfo& gpu : gpus) {
    if (gpu.state == kNotAvailable) continue;  // no NVLink switch fabric on this GPU
    if (gpu.state != "Completed") {
      out.warnings.push_back(absl::StrCat("GPU ", gpu.gpu, ": NVLink fabric registration ",
                                          gpu.state, ", not completed; left out of the domain"));
      continue;
    }
    if (gpu.status != "Success") {
      out.warnings.push_back(absl::StrCat("GPU ", gpu.gpu,
                                          ": NVLink fabric registration completed with status '",
                                          gpu.status, "'; left out of the domain"));
      continue;
    }
    if (gpu.cluster_uuid == kNotAvailable || gpu.clique_id == kNotAvailable) {
      out.warnings.push_back(
          absl::StrCat("GPU ", gpu.gpu, ": registered, but no cluster UUID or clique id"));
      continue;
    }
    domains.insert(absl::StrCat(gpu.cluster_uuid, ".", gpu.clique_id));
  }
  if (domains.size() > 1) {
    out.warnings.push_back(absl::StrCat("GPUs of this host report ", domains.size(),
                                        " NVLink domains (", absl::StrJoin(domains, ", "),
                                        "); a tray belongs to one, so none is used"));
    return out;
  }
  if (domains.size() == 1) out.domain = *domains.begin();
  return out;
}

}  // namespace topoplace::discovery
