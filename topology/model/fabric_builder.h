// Collects hosts, GPUs, NICs, switches and links from any source (a spec file, a
// generator, discovery) and turns them into one immutable Fabric with its hierarchy
// inferred from the graph alone.
//
//   FabricBuilder b("lab");
//   TP_ASSIGN_OR_RETURN(HostId h, b.AddHost("n001"));
//   TP_ASSIGN_OR_RETURN(NicId nic, b.AddNic(h, "mlx5_0", 400));
//   TP_RETURN_IF_ERROR(b.AddGpu(h, 0, nic).status());
//   TP_ASSIGN_OR_RETURN(SwitchId leaf, b.AddSwitch("leaf1"));
//   TP_RETURN_IF_ERROR(b.AddLink(NicEnd(nic), SwitchEnd(leaf), {.speed_gbps = 400}));
//   TP_ASSIGN_OR_RETURN(FabricPtr fabric, std::move(b).Build());
//
// Every Add* validates its own arguments and returns InvalidArgument without changing
// the builder, so a caller can prefix the error with its own context (file, line, field).
// Not thread-safe.
#ifndef TOPOPLACE_TOPOLOGY_MODEL_FABRIC_BUILDER_H_
#define TOPOPLACE_TOPOLOGY_MODEL_FABRIC_BUILDER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace {

inline Endpoint NicEnd(NicId id) { return {Endpoint::Kind::kNic, id}; }
inline Endpoint SwitchEnd(SwitchId id) { return {Endpoint::Kind::kSwitch, id}; }

struct LinkAttrs {
  double speed_gbps = 0;  // must be > 0
  int32_t lanes = 4;      // must be >= 1
  int32_t count = 1;      // must be >= 1
  LinkState state = LinkState::kUp;
};

class FabricBuilder {
 public:
  explicit FabricBuilder(std::string name, uint64_t version = 1);
  FabricBuilder(FabricBuilder&&) noexcept;
  FabricBuilder& operator=(FabricBuilder&&) noexcept;
  ~FabricBuilder();

  // Adds a host. Fails on an empty or duplicate name.
  absl::StatusOr<HostId> AddHost(std::string name, std::string nvlink_domain = "");
  // Names the model of `host`'s GPUs (Host::gpu_model). Fails on an unknown host.
  absl::Status SetGpuModel(HostId host, std::string model);
  // Adds a NIC to `host`; its index is the count of NICs the host already has.
  // Fails on an unknown host, an empty or duplicate (per host) name, a speed <= 0.
  absl::StatusOr<NicId> AddNic(HostId host, std::string name, double speed_gbps);
  // Adds GPU `index` to `host`, affine to `nic` (a NIC of the same host, or -1).
  // Fails on an unknown host, a negative or duplicate index, a NIC of another host.
  absl::StatusOr<GpuId> AddGpu(HostId host, int32_t index, NicId nic = -1, int32_t numa = -1);
  // Adds a switch; `declared_tier` 0 lets inference decide (a mismatch is a warning).
  absl::StatusOr<SwitchId> AddSwitch(std::string name, int32_t declared_tier = 0);
  // Adds a link between two existing endpoints. Fails on unknown ids, a self loop,
  // a NIC-NIC link, or bad attributes.
  absl::StatusOr<LinkId> AddLink(Endpoint a, Endpoint b, const LinkAttrs& attrs);
  // Adds a SHARP aggregation node inside switch `sw`. Fails on an empty or duplicate name
  // or an unknown switch.
  absl::StatusOr<int32_t> AddAggregationNode(std::string name, SwitchId sw);
  // Adds an HCA that belongs to no known host, cabled to port `port` of switch `sw`.
  // Fails on an empty or duplicate name or an unknown switch.
  absl::StatusOr<int32_t> AddUnattributedNic(std::string name, SwitchId sw, std::string port);
  // Records a non-fatal problem that will be reported with the Fabric.
  void AddWarning(std::string warning);

  std::optional<HostId> FindHost(absl::string_view name) const;
  std::optional<SwitchId> FindSwitch(absl::string_view name) const;
  // `host_slash_nic` is "host/nic".
  std::optional<NicId> FindNic(absl::string_view host_slash_nic) const;
  // Number of hosts/switches added so far.
  int32_t num_hosts() const;
  int32_t num_switches() const;

  // Sorts GPUs of each host into local index order, builds the graph and infers the
  // hierarchy. Fails only on an internal inconsistency; structural oddities become
  // warnings on the Fabric.
  absl::StatusOr<FabricPtr> Build() &&;

 private:
  std::unique_ptr<Fabric> fabric_;
};

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_FABRIC_BUILDER_H_
