#include "api/server/services/topology_service.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "api/server/guards/request_limits.h"
#include "api/server/services/proto_convert.h"
#include "base/status_macros.h"
#include "telemetry/monitor/health_monitor.h"

namespace topoplace::server {
namespace {

// Parses "host/gpuN" into a GPU of `fabric`; InvalidArgument names `field`.
absl::StatusOr<GpuId> ParseGpuName(const Fabric& fabric, absl::string_view field,
                                   absl::string_view name) {
  TP_RETURN_IF_ERROR(CheckField(field, name, kMaxNameBytes, true));
  size_t slash = name.rfind('/');
  int index = -1;
  if (slash == absl::string_view::npos || name.substr(slash + 1, 3) != "gpu" ||
      !absl::SimpleAtoi(name.substr(slash + 4), &index)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": expected 'host/gpuN', got '", name, "'"));
  }
  std::optional<HostId> host = fabric.FindHost(name.substr(0, slash));
  if (!host) {
    return absl::NotFoundError(
        absl::StrCat(field, ": no host '", name.substr(0, slash), "' in the fabric"));
  }
  if (std::optional<GpuId> g = fabric.FindGpu(name.substr(0, slash), index)) return *g;
  return absl::NotFoundError(absl::StrCat(field, ": host has no GPU ", index));
}

// Sends the current summary (with link health), then one more after every link health
// change, until the client cancels or the server shuts down (which cancels it). Changes
// that arrive while a write is in flight are coalesced into one later message carrying
// the newest state.
class WatchReactor final : public grpc::ServerWriteReactor<v1::FabricSummary> {
 public:
  WatchReactor(const absl::Status& auth, const v1::FabricSummary& summary, HealthMonitor* health)
      : summary_(summary), health_(auth.ok() ? health : nullptr) {
    if (!auth.ok()) {
      absl::MutexLock lock(&mu_);
      FinishLocked(client::ToGrpcStatus(auth));
      return;
    }
    // Subscribe outside mu_: the monitor calls back with its own lock held.
    if (health_ != nullptr) subscription_ = health_->Subscribe([this] { OnHealthChange(); });
    absl::MutexLock lock(&mu_);
    pending_ = true;
    MaybeWriteLocked();
  }
  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream closed"));
      return;
    }
    MaybeWriteLocked();
  }
  void OnCancel() override {
    absl::MutexLock lock(&mu_);
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  }
  void OnDone() override {
    // After Unsubscribe returns the monitor never calls OnHealthChange again.
    if (health_ != nullptr && subscription_ >= 0) health_->Unsubscribe(subscription_);
    delete this;
  }

 private:
  void OnHealthChange() {
    absl::MutexLock lock(&mu_);
    pending_ = true;
    MaybeWriteLocked();
  }
  void MaybeWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_ || writing_ || !pending_) return;
    pending_ = false;
    writing_ = true;
    message_ = summary_;
    if (health_ != nullptr) {
      const auto [degraded, down] = health_->UnhealthyCounts();
      message_.set_health_version(health_->health_version());
      message_.set_degraded_links(degraded);
      message_.set_down_links(down);
    }
    StartWrite(&message_);
  }
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }
  const v1::FabricSummary summary_;
  HealthMonitor* const health_;
  int subscription_ = -1;
  absl::Mutex mu_;
  v1::FabricSummary message_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool pending_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

TopologyService::TopologyService(const ServiceContext& context)
    : context_(context), summary_(SummaryToProto(*context.fabric, context.fabric_version)) {}

grpc::ServerUnaryReactor* TopologyService::GetFabricSummary(
    grpc::CallbackServerContext* ctx, const v1::GetFabricSummaryRequest* /*request*/,
    v1::FabricSummary* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) *response = summary_;
  return FinishUnary(ctx, s);
}

absl::Status TopologyService::DoGetHost(const v1::GetHostRequest& request, v1::HostInfo& response) {
  TP_RETURN_IF_ERROR(CheckField("host", request.host(), kMaxNameBytes, true));
  const Fabric& fabric = *context_.fabric;
  std::optional<HostId> id = fabric.FindHost(request.host());
  if (!id) return absl::NotFoundError(absl::StrCat("host: no host '", request.host(), "'"));
  const Host& host = fabric.hosts()[*id];
  sched::Occupancy occupancy = context_.ledger->Occupancy();
  response.set_host(host.name);
  response.set_pod(host.pod);
  response.set_block(host.block);
  response.set_nvlink_domain(host.nvlink_domain);
  for (GpuId g : host.gpus) {
    v1::GpuInfo* gpu = response.add_gpus();
    gpu->set_index(fabric.gpus()[g].index);
    if (fabric.gpus()[g].nic >= 0) gpu->set_nic(fabric.nics()[fabric.gpus()[g].nic].name);
    gpu->set_busy(occupancy.busy(g));
  }
  for (NicId n : host.nics) {
    const Nic& nic = fabric.nics()[n];
    v1::NicInfo* out = response.add_nics();
    out->set_name(nic.name);
    out->set_index(nic.index);
    out->set_rail(nic.rail);
    if (nic.leaf >= 0) out->set_leaf(fabric.switches()[nic.leaf].name);
    out->set_speed_gbps(nic.speed_gbps);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TopologyService::GetHost(grpc::CallbackServerContext* ctx,
                                                   const v1::GetHostRequest* request,
                                                   v1::HostInfo* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoGetHost(*request, *response);
  return FinishUnary(ctx, s);
}

absl::Status TopologyService::DoGetPath(const v1::GetPathRequest& request,
                                        v1::GetPathResponse& response) {
  const Fabric& fabric = *context_.fabric;
  TP_ASSIGN_OR_RETURN(GpuId a, ParseGpuName(fabric, "gpu_a", request.gpu_a()));
  TP_ASSIGN_OR_RETURN(GpuId b, ParseGpuName(fabric, "gpu_b", request.gpu_b()));
  Tier tier = fabric.GpuTier(a, b);
  response.set_tier(TierToProto(tier));
  response.set_switch_hops(SwitchHops(tier));
  auto fill = [&](GpuId g, std::string* nic_name, std::string* leaf_name) {
    NicId nic = fabric.gpus()[g].nic;
    if (nic < 0) return;
    *nic_name = fabric.EndpointName({Endpoint::Kind::kNic, nic});
    if (fabric.nics()[nic].leaf >= 0) *leaf_name = fabric.switches()[fabric.nics()[nic].leaf].name;
  };
  fill(a, response.mutable_nic_a(), response.mutable_leaf_a());
  fill(b, response.mutable_nic_b(), response.mutable_leaf_b());
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TopologyService::GetPath(grpc::CallbackServerContext* ctx,
                                                   const v1::GetPathRequest* request,
                                                   v1::GetPathResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoGetPath(*request, *response);
  return FinishUnary(ctx, s);
}

void TopologyService::DoListDomains(v1::ListDomainsResponse& response) {
  const Fabric& fabric = *context_.fabric;
  sched::Occupancy occupancy = context_.ledger->Occupancy();
  auto add_hosts = [&](v1::Domain& d, const std::vector<HostId>& hosts) {
    for (HostId h : hosts) {
      const int gpus = static_cast<int>(fabric.hosts()[h].gpus.size());
      d.set_hosts(d.hosts() + 1);
      d.set_gpus(d.gpus() + gpus);
      d.set_free_gpus(d.free_gpus() + occupancy.free_gpus(h));
      if (occupancy.free_gpus(h) == gpus) d.set_free_hosts(d.free_hosts() + 1);
    }
  };
  for (size_t b = 0; b < fabric.blocks().size(); ++b) {
    v1::Domain* d = response.add_domains();
    d->set_kind(v1::Domain::KIND_BLOCK);
    d->set_index(static_cast<int32_t>(b));
    add_hosts(*d, fabric.blocks()[b].hosts);
  }
  for (size_t p = 0; p < fabric.pods().size(); ++p) {
    v1::Domain* d = response.add_domains();
    d->set_kind(v1::Domain::KIND_POD);
    d->set_index(static_cast<int32_t>(p));
    for (int32_t b : fabric.pods()[p].blocks) add_hosts(*d, fabric.blocks()[b].hosts);
  }
  // A rail's capacity is the GPUs whose NIC lands on it.
  std::vector<v1::Domain> rails(fabric.rails().size());
  std::vector<std::vector<uint8_t>> rail_hosts(rails.size(),
                                               std::vector<uint8_t>(fabric.hosts().size(), 0));
  for (GpuId g = 0; g < static_cast<GpuId>(fabric.gpus().size()); ++g) {
    const Gpu& gpu = fabric.gpus()[g];
    if (gpu.nic < 0 || fabric.nics()[gpu.nic].rail < 0) continue;
    const int32_t r = fabric.nics()[gpu.nic].rail;
    rails[r].set_gpus(rails[r].gpus() + 1);
    if (!occupancy.busy(g)) rails[r].set_free_gpus(rails[r].free_gpus() + 1);
    if (!rail_hosts[r][gpu.host]) {
      rail_hosts[r][gpu.host] = 1;
      rails[r].set_hosts(rails[r].hosts() + 1);
      if (occupancy.free_gpus(gpu.host) == static_cast<int>(fabric.hosts()[gpu.host].gpus.size())) {
        rails[r].set_free_hosts(rails[r].free_hosts() + 1);
      }
    }
  }
  for (size_t r = 0; r < rails.size(); ++r) {
    rails[r].set_kind(v1::Domain::KIND_RAIL);
    rails[r].set_index(static_cast<int32_t>(r));
    *response.add_domains() = std::move(rails[r]);
  }
}

grpc::ServerUnaryReactor* TopologyService::ListDomains(grpc::CallbackServerContext* ctx,
                                                       const v1::ListDomainsRequest* /*request*/,
                                                       v1::ListDomainsResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) DoListDomains(*response);
  return FinishUnary(ctx, s);
}

grpc::ServerWriteReactor<v1::FabricSummary>* TopologyService::WatchFabric(
    grpc::CallbackServerContext* ctx, const v1::WatchFabricRequest* /*request*/) {
  return new WatchReactor(context_.authorizer.Check(*ctx, Access::kRead), summary_,
                          context_.health);
}

}  // namespace topoplace::server
