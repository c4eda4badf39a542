#include "topology/model/fabric_builder.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "topology/model/hierarchy_inference.h"

namespace topoplace {
namespace {

// Bounds a fabric must be within (hardening round four, finding 8: a fabric file could
// carry a 10 MB host name, speed 1e308 and tier 1e9, and every report and plan after it
// repeated them). 100 Tb/s is past any port or bundle built, 16 tiers past any Clos.
constexpr double kMaxSpeedGbps = 100'000;
constexpr int32_t kMaxTier = 16;
constexpr size_t kMaxElementNameBytes = 256;

bool ValidSpeed(double gbps) { return std::isfinite(gbps) && gbps > 0 && gbps <= kMaxSpeedGbps; }

std::string SpeedError(double gbps) {
  return absl::StrFormat("speed_gbps must be a number above 0 and at most %g, got %g",
                         kMaxSpeedGbps, gbps);
}

// InvalidArgument for a name past kMaxElementNameBytes, quoting its start.
absl::Status CheckNameLength(absl::string_view kind, absl::string_view name) {
  if (name.size() <= kMaxElementNameBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(kind, " name '", name.substr(0, 32), "...' is ",
                                                 name.size(), " bytes; at most ",
                                                 kMaxElementNameBytes));
}

// Adds `attachment` to `list` unless its name is empty, taken or its switch unknown;
// `kind` names the list in errors.
absl::StatusOr<int32_t> AddAttachment(SwitchAttachment attachment, size_t num_switches,
                                      absl::string_view kind, std::vector<SwitchAttachment>& list,
                                      absl::flat_hash_map<std::string, int32_t>& by_name) {
  if (attachment.name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " name must not be empty"));
  }
  if (absl::Status s = CheckNameLength(kind, attachment.name); !s.ok()) return s;
  if (attachment.switch_id < 0 || static_cast<size_t>(attachment.switch_id) >= num_switches) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " '", attachment.name, "': unknown switch id ", attachment.switch_id));
  }
  const int32_t id = static_cast<int32_t>(list.size());
  if (!by_name.try_emplace(attachment.name, id).second) {
    return absl::InvalidArgumentError(absl::StrCat("duplicate ", kind, " '", attachment.name, "'"));
  }
  list.push_back(std::move(attachment));
  return id;
}

}  // namespace

FabricBuilder::FabricBuilder(std::string name, uint64_t version) : fabric_(new Fabric()) {
  fabric_->name_ = std::move(name);
  fabric_->version_ = version;
}
FabricBuilder::FabricBuilder(FabricBuilder&&) noexcept = default;
FabricBuilder& FabricBuilder::operator=(FabricBuilder&&) noexcept = default;
FabricBuilder::~FabricBuilder() = default;

absl::StatusOr<HostId> FabricBuilder::AddHost(std::string name, std::string nvlink_domain) {
  if (name.empty()) return absl::InvalidArgumentError("host name must not be empty");
  if (absl::Status s = CheckNameLength("host", name); !s.ok()) return s;
  if (absl::Status s = CheckNameLength("NVLink domain", nvlink_domain); !s.ok()) return s;
  if (name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("host name '", name, "' must not contain '/'"));
  }
  const HostId id = static_cast<HostId>(fabric_->hosts_.size());
  auto [it, inserted] = fabric_->host_by_name_.try_emplace(name, id);
  if (!inserted) return absl::InvalidArgumentError(absl::StrCat("duplicate host '", name, "'"));
  Host& host = fabric_->hosts_.emplace_back();
  host.name = std::move(name);
  host.nvlink_domain = std::move(nvlink_domain);
  return id;
}

absl::Status FabricBuilder::SetGpuModel(HostId host, std::string model) {
  if (host < 0 || host >= num_hosts()) {
    return absl::InvalidArgumentError(absl::StrCat("no host with id ", host));
  }
  if (absl::Status s = CheckNameLength("GPU model", model); !s.ok()) return s;
  fabric_->hosts_[static_cast<size_t>(host)].gpu_model = std::move(model);
  return absl::OkStatus();
}

absl::StatusOr<NicId> FabricBuilder::AddNic(HostId host, std::string name, double speed_gbps) {
  if (host < 0 || host >= num_hosts()) {
    return absl::InvalidArgumentError(absl::StrCat("no host with id ", host));
  }
  if (name.empty()) return absl::InvalidArgumentError("NIC name must not be empty");
  if (absl::Status s = CheckNameLength("NIC", name); !s.ok()) return s;
  if (!ValidSpeed(speed_gbps)) return absl::InvalidArgumentError(SpeedError(speed_gbps));
  Host& h = fabric_->hosts_[host];
  const NicId id = static_cast<NicId>(fabric_->nics_.size());
  auto [it, inserted] = fabric_->nic_by_name_.try_emplace(absl::StrCat(h.name, "/", name), id);
  if (!inserted) {
    return absl::InvalidArgumentError(absl::StrCat("duplicate NIC '", it->first, "'"));
  }
  Nic& nic = fabric_->nics_.emplace_back();
  nic.host = host;
  nic.name = std::move(name);
  nic.speed_gbps = speed_gbps;
  nic.index = static_cast<int32_t>(h.nics.size());
  h.nics.push_back(id);
  return id;
}

absl::StatusOr<GpuId> FabricBuilder::AddGpu(HostId host, int32_t index, NicId nic, int32_t numa) {
  if (host < 0 || host >= num_hosts()) {
    return absl::InvalidArgumentError(absl::StrCat("no host with id ", host));
  }
  if (index < 0) {
    return absl::InvalidArgumentError(absl::StrCat("index must be >= 0, got ", index));
  }
  Host& h = fabric_->hosts_[host];
  for (GpuId g : h.gpus) {
    if (fabric_->gpus_[g].index == index) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate GPU index ", index, " on host '", h.name, "'"));
    }
  }
  if (nic >= static_cast<NicId>(fabric_->nics_.size()) ||
      (nic >= 0 && fabric_->nics_[nic].host != host)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU ", index, " on host '", h.name, "' names a NIC of another host"));
  }
  const GpuId id = static_cast<GpuId>(fabric_->gpus_.size());
  fabric_->gpus_.push_back(Gpu{host, index, nic < 0 ? -1 : nic, numa});
  h.gpus.push_back(id);
  return id;
}

absl::StatusOr<SwitchId> FabricBuilder::AddSwitch(std::string name, int32_t declared_tier) {
  if (name.empty()) return absl::InvalidArgumentError("switch name must not be empty");
  if (absl::Status s = CheckNameLength("switch", name); !s.ok()) return s;
  if (declared_tier < 0 || declared_tier > kMaxTier) {
    return absl::InvalidArgumentError(
        absl::StrCat("tier must be 1 to ", kMaxTier, " (or 0 to infer), got ", declared_tier));
  }
  const SwitchId id = static_cast<SwitchId>(fabric_->switches_.size());
  auto [it, inserted] = fabric_->switch_by_name_.try_emplace(name, id);
  if (!inserted) {
    return absl::InvalidArgumentError(absl::StrCat("duplicate switch '", name, "'"));
  }
  if (fabric_->host_by_name_.contains(name)) {
    fabric_->switch_by_name_.erase(it);
    return absl::InvalidArgumentError(absl::StrCat("switch '", name, "' has a host's name"));
  }
  Switch& sw = fabric_->switches_.emplace_back();
  sw.name = std::move(name);
  sw.declared_tier = declared_tier;
  return id;
}

absl::StatusOr<LinkId> FabricBuilder::AddLink(Endpoint a, Endpoint b, const LinkAttrs& attrs) {
  auto valid = [this](Endpoint e) {
    const size_t size =
        e.kind == Endpoint::Kind::kNic ? fabric_->nics_.size() : fabric_->switches_.size();
    return e.id >= 0 && static_cast<size_t>(e.id) < size;
  };
  if (!valid(a) || !valid(b)) return absl::InvalidArgumentError("link names an unknown endpoint");
  if (a == b) {
    return absl::InvalidArgumentError(
        absl::StrCat("link connects '", fabric_->EndpointName(a), "' to itself"));
  }
  if (a.kind == Endpoint::Kind::kNic && b.kind == Endpoint::Kind::kNic) {
    return absl::InvalidArgumentError(
        absl::StrCat("link connects two NICs ('", fabric_->EndpointName(a), "', '",
                     fabric_->EndpointName(b), "'); expected a NIC-switch or switch-switch link"));
  }
  if (!ValidSpeed(attrs.speed_gbps))
    return absl::InvalidArgumentError(SpeedError(attrs.speed_gbps));
  if (attrs.lanes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("lanes must be >= 1, got ", attrs.lanes));
  }
  if (attrs.count < 1) {
    return absl::InvalidArgumentError(absl::StrCat("count must be >= 1, got ", attrs.count));
  }
  const LinkId id = static_cast<LinkId>(fabric_->links_.size());
  fabric_->links_.push_back(Link{a, b, attrs.speed_gbps, attrs.lanes, attrs.count, attrs.state});
  return id;
}

absl::StatusOr<int32_t> FabricBuilder::AddAggregationNode(std::string name, SwitchId sw) {
  return AddAttachment(SwitchAttachment{.name = std::move(name), .switch_id = sw},
                       fabric_->switches_.size(), "aggregation node", fabric_->aggregation_nodes_,
                       fabric_->aggregation_node_by_name_);
}

absl::StatusOr<int32_t> FabricBuilder::AddUnattributedNic(std::string name, SwitchId sw,
                                                          std::string port) {
  return AddAttachment(
      SwitchAttachment{.name = std::move(name), .switch_id = sw, .port = std::move(port)},
      fabric_->switches_.size(), "unattributed NIC", fabric_->unattributed_nics_,
      fabric_->unattributed_nic_by_name_);
}

void FabricBuilder::AddWarning(std::string warning) {
  fabric_->warnings_.push_back(std::move(warning));
}

std::optional<HostId> FabricBuilder::FindHost(absl::string_view name) const {
  return fabric_->FindHost(name);
}
std::optional<SwitchId> FabricBuilder::FindSwitch(absl::string_view name) const {
  return fabric_->FindSwitch(name);
}
std::optional<NicId> FabricBuilder::FindNic(absl::string_view host_slash_nic) const {
  return fabric_->FindNic(host_slash_nic);
}
int32_t FabricBuilder::num_hosts() const { return static_cast<int32_t>(fabric_->hosts_.size()); }
int32_t FabricBuilder::num_switches() const {
  return static_cast<int32_t>(fabric_->switches_.size());
}

absl::StatusOr<FabricPtr> FabricBuilder::Build() && {
  if (fabric_ == nullptr) return absl::FailedPreconditionError("FabricBuilder already built");
  Fabric& f = *fabric_;
  for (Host& host : f.hosts_) {
    std::sort(host.gpus.begin(), host.gpus.end(),
              [&f](GpuId a, GpuId b) { return f.gpus_[a].index < f.gpus_[b].index; });
  }

  HierarchyInference::Run(f);
  return FabricPtr(std::move(fabric_));
}

}  // namespace topoplace
