#include "topology/discovery/facts.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace topoplace::discovery {

absl::string_view NodeRoleName(NodeRole role) {
  switch (role) {
    case NodeRole::kHost:
      return "host";
    case NodeRole::kSwitch:
      return "switch";
    case NodeRole::kUnknown:
      break;
  }
  return "unknown";
}
namespace {

// Prefixes a builder error with the fact's origin ("dump.txt:42: duplicate host 'x'").
template <typename T>
absl::StatusOr<T> WithOrigin(absl::StatusOr<T> result, absl::string_view origin) {
  if (result.ok()) return result;
  return absl::Status(result.status().code(),
                      absl::StrCat(origin, ": ", result.status().message()));
}

absl::Status WithOrigin(absl::Status status, absl::string_view origin) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(origin, ": ", status.message()));
}

template <typename T>
std::vector<const T*> SortedByName(const std::vector<T>& items) {
  std::vector<const T*> sorted;
  sorted.reserve(items.size());
  for (const T& item : items) sorted.push_back(&item);
  std::sort(sorted.begin(), sorted.end(),
            [](const T* a, const T* b) { return NaturalLess(a->name, b->name); });
  return sorted;
}

// Speed of a link end: the link's own, else the NIC's, else the default.
double EffectiveSpeed(double link_speed, double nic_speed) {
  if (link_speed > 0) return link_speed;
  if (nic_speed > 0) return nic_speed;
  return kDefaultSpeedGbps;
}

}  // namespace

bool NaturalLess(absl::string_view a, absl::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    const bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      // Compare digit runs by value: strip leading zeros, then length, then digits.
      size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      const int cmp = a.substr(si, ei - si).compare(b.substr(sj, ej - sj));
      if (cmp != 0) return cmp < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal by value ("n01" vs "n1"): fall back to a total order
}

namespace {

// The hosts (with their NICs and GPUs) and switches of `facts`, in name order; the speed
// each NIC's fact reported (0: unknown), by NicId: a link without a speed of its own takes
// it. (A vector, not a map keyed by "host/nic": 100k-NIC imports.)
absl::StatusOr<std::vector<double>> AddNodes(const FabricFacts& facts, FabricBuilder& builder) {
  std::vector<double> nic_speed;
  for (const HostFact* host : SortedByName(facts.hosts)) {
    TP_ASSIGN_OR_RETURN(const HostId h,
                        WithOrigin(builder.AddHost(host->name, host->nvlink_domain), host->origin));
    if (!host->gpu_model.empty()) {
      TP_RETURN_IF_ERROR(WithOrigin(builder.SetGpuModel(h, host->gpu_model), host->origin));
    }
    for (const NicFact& nic : host->nics) {
      const double speed = EffectiveSpeed(0, nic.speed_gbps);
      TP_ASSIGN_OR_RETURN(const NicId id,
                          WithOrigin(builder.AddNic(h, nic.name, speed), host->origin));
      if (static_cast<size_t>(id) >= nic_speed.size()) nic_speed.resize(id + 1, 0);
      nic_speed[id] = nic.speed_gbps;
    }
    for (const GpuFact& gpu : host->gpus) {
      NicId nic = -1;
      if (!gpu.nic.empty()) {
        nic = builder.FindNic(absl::StrCat(host->name, "/", gpu.nic)).value_or(-1);
      }
      TP_RETURN_IF_ERROR(
          WithOrigin(builder.AddGpu(h, gpu.index, nic, gpu.numa), host->origin).status());
    }
  }
  for (const SwitchFact* sw : SortedByName(facts.switches)) {
    TP_RETURN_IF_ERROR(
        WithOrigin(builder.AddSwitch(sw->name, sw->declared_tier), sw->origin).status());
  }
  return nic_speed;
}

// The links of `facts`: NIC cables one by one, parallel switch-switch cables with equal
// attributes as one link with a count.
absl::Status AddLinks(const FabricFacts& facts, const std::vector<double>& nic_speed,
                      FabricBuilder& builder) {
  using BundleKey = std::tuple<std::string, std::string, double, int32_t, LinkState>;
  struct Bundle {
    BundleKey key;
    int32_t count = 0;
    std::string origin;  // of the first cable
  };
  absl::flat_hash_map<BundleKey, size_t> bundle_index;
  std::vector<Bundle> bundles;  // in order of first appearance
  for (const LinkFact& link : facts.links) {
    const bool a_nic = link.a.role == NodeRole::kHost;
    const bool b_nic = link.b.role == NodeRole::kHost;
    if (a_nic || b_nic) {
      const PortRef& nic_end = a_nic ? link.a : link.b;
      const PortRef& sw_end = a_nic ? link.b : link.a;
      const std::string nic_name = absl::StrCat(nic_end.node, "/", nic_end.port);
      const std::optional<NicId> nic = builder.FindNic(nic_name);
      const std::optional<SwitchId> sw = builder.FindSwitch(sw_end.node);
      if (!nic.has_value() || !sw.has_value() || (a_nic && b_nic)) {
        return absl::InvalidArgumentError(
            absl::StrCat(link.origin, ": link ", nic_name, " - ", sw_end.node,
                         " does not join a known NIC to a known switch"));
      }
      const double nic_gbps = static_cast<size_t>(*nic) < nic_speed.size() ? nic_speed[*nic] : 0;
      LinkAttrs attrs{.speed_gbps = EffectiveSpeed(link.speed_gbps, nic_gbps),
                      .lanes = link.lanes,
                      .count = link.count,
                      .state = link.state};
      TP_RETURN_IF_ERROR(
          WithOrigin(builder.AddLink(NicEnd(*nic), SwitchEnd(*sw), attrs), link.origin).status());
      continue;
    }
    std::string x = link.a.node, y = link.b.node;
    if (y < x) std::swap(x, y);
    BundleKey key{std::move(x), std::move(y), EffectiveSpeed(link.speed_gbps, 0), link.lanes,
                  link.state};
    auto [it, inserted] = bundle_index.try_emplace(key, bundles.size());
    if (inserted) bundles.push_back(Bundle{.key = std::move(key), .origin = link.origin});
    bundles[it->second].count += link.count;
  }
  for (const Bundle& bundle : bundles) {
    const BundleKey& key = bundle.key;
    const int32_t count = bundle.count;
    const std::string& origin = bundle.origin;
    const std::optional<SwitchId> a = builder.FindSwitch(std::get<0>(key));
    const std::optional<SwitchId> b = builder.FindSwitch(std::get<1>(key));
    if (!a.has_value() || !b.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ": link ", std::get<0>(key), " - ",
                                                     std::get<1>(key), " names an unknown switch"));
    }
    LinkAttrs attrs{.speed_gbps = std::get<2>(key),
                    .lanes = std::get<3>(key),
                    .count = count,
                    .state = std::get<4>(key)};
    TP_RETURN_IF_ERROR(
        WithOrigin(builder.AddLink(SwitchEnd(*a), SwitchEnd(*b), attrs), origin).status());
  }
  return absl::OkStatus();
}

// Aggregation nodes and unattributed NICs on their switches (those whose switch is not in
// the fabric are left out with one warning), and the facts' warnings.
absl::Status AddAttachments(const FabricFacts& facts, FabricBuilder& builder) {
  std::vector<std::string> homeless;
  for (const AggregationNodeFact& an : facts.aggregation_nodes) {
    const std::optional<SwitchId> sw = builder.FindSwitch(an.switch_name);
    if (!sw) {
      homeless.push_back(absl::StrCat(an.name, " (", an.origin, ")"));
      continue;
    }
    TP_RETURN_IF_ERROR(WithOrigin(builder.AddAggregationNode(an.name, *sw), an.origin).status());
  }
  for (const UnattributedNicFact& nic : facts.unattributed_nics) {
    const std::optional<SwitchId> sw = builder.FindSwitch(nic.switch_name);
    if (!sw) {
      homeless.push_back(absl::StrCat(nic.name, " (", nic.origin, ")"));
      continue;
    }
    TP_RETURN_IF_ERROR(
        WithOrigin(builder.AddUnattributedNic(nic.name, *sw, nic.port), nic.origin).status());
  }
  for (const std::string& warning : facts.warnings) builder.AddWarning(warning);
  if (!homeless.empty()) {
    builder.AddWarning(absl::StrCat(homeless.size(),
                                    " aggregation nodes or unattributed HCAs name a switch that is "
                                    "not in the fabric, left out: ",
                                    absl::StrJoin(homeless, ", ")));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyFacts(const FabricFacts& facts, FabricBuilder& builder) {
  TP_ASSIGN_OR_RETURN(const std::vector<double> nic_speed, AddNodes(facts, builder));
  TP_RETURN_IF_ERROR(AddLinks(facts, nic_speed, builder));
  return AddAttachments(facts, builder);
}

FabricFacts FactsFromFabric(const Fabric& fabric, absl::string_view origin) {
  FabricFacts facts;
  const std::string where(origin);
  for (const Host& host : fabric.hosts()) {
    HostFact& h = facts.hosts.emplace_back();
    h.name = host.name;
    h.nvlink_domain = host.nvlink_domain;
    h.gpu_model = host.gpu_model;
    h.origin = where;
    for (NicId n : host.nics) {
      h.nics.push_back(
          NicFact{.name = fabric.nics()[n].name, .speed_gbps = fabric.nics()[n].speed_gbps});
    }
    for (GpuId g : host.gpus) {
      const Gpu& gpu = fabric.gpus()[g];
      h.gpus.push_back(GpuFact{.index = gpu.index,
                               .nic = gpu.nic >= 0 ? fabric.nics()[gpu.nic].name : "",
                               .numa = gpu.numa});
    }
  }
  for (const Switch& sw : fabric.switches()) {
    facts.switches.push_back(
        SwitchFact{.name = sw.name, .declared_tier = sw.declared_tier, .origin = where});
  }
  auto port_ref = [&fabric](Endpoint e) {
    if (e.kind == Endpoint::Kind::kSwitch) {
      return PortRef{.node = fabric.switches()[e.id].name, .port = "", .role = NodeRole::kSwitch};
    }
    const Nic& nic = fabric.nics()[e.id];
    return PortRef{
        .node = fabric.hosts()[nic.host].name, .port = nic.name, .role = NodeRole::kHost};
  };
  auto attachment = [&](const SwitchAttachment& a) {
    return SwitchAttachmentFact{.name = a.name,
                                .switch_name = fabric.switches()[a.switch_id].name,
                                .origin = where,
                                .port = a.port};
  };
  for (const AggregationNode& an : fabric.aggregation_nodes()) {
    facts.aggregation_nodes.push_back(attachment(an));
  }
  for (const UnattributedNic& nic : fabric.unattributed_nics()) {
    facts.unattributed_nics.push_back(attachment(nic));
  }
  for (const Link& link : fabric.links()) {
    facts.links.push_back(LinkFact{.a = port_ref(link.a),
                                   .b = port_ref(link.b),
                                   .speed_gbps = link.speed_gbps,
                                   .lanes = link.lanes,
                                   .count = link.count,
                                   .state = link.state,
                                   .origin = where});
  }
  return facts;
}

}  // namespace topoplace::discovery
