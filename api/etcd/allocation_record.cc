#include "api/etcd/allocation_record.h"

#include "absl/strings/str_cat.h"
#include "topoplace/ledger/v1/allocation_record.pb.h"

namespace topoplace::etcd {
namespace {

using ledger::Allocation;

absl::Time FromMicros(int64_t us) { return absl::FromUnixMicros(us); }

}  // namespace

std::string EncodeAllocation(const Allocation& a) {
  topoplace::ledger::v1::AllocationRecord r;
  r.set_number(ledger::ParseAllocationId(a.id).value_or(0));
  r.set_state(std::string(ledger::AllocationStateName(a.state)));
  r.set_external_id(a.external_id);
  r.set_job_spec(a.job_spec);
  r.set_policy(a.policy);
  r.set_fabric_version(a.fabric_version);
  for (const ledger::GpuRef& g : a.gpus) {
    auto* gpu = r.add_gpus();
    gpu->set_host(g.host);
    gpu->set_index(g.index);
  }
  r.set_plan_json(a.plan_json);
  r.set_request_id(a.request_id);
  r.set_created_us(absl::ToUnixMicros(a.created_at));
  if (a.expires_at != absl::InfiniteFuture()) r.set_expires_us(absl::ToUnixMicros(a.expires_at));
  if (a.finished_at != absl::InfiniteFuture()) {
    r.set_finished_us(absl::ToUnixMicros(a.finished_at));
  }
  return r.SerializeAsString();
}

absl::StatusOr<Allocation> DecodeAllocation(absl::string_view key, absl::string_view value) {
  topoplace::ledger::v1::AllocationRecord r;
  if (!r.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return absl::DataLossError(
        absl::StrCat("etcd ledger: key '", key, "' does not hold an allocation record"));
  }
  std::optional<ledger::AllocationState> state = ledger::ParseAllocationState(r.state());
  if (!state || r.number() <= 0) {
    return absl::DataLossError(absl::StrCat("etcd ledger: key '", key, "': unknown state '",
                                            r.state(), "' or allocation number ", r.number()));
  }
  Allocation a;
  a.id = ledger::FormatAllocationId(r.number());
  a.state = *state;
  a.external_id = r.external_id();
  a.job_spec = r.job_spec();
  a.policy = r.policy();
  a.fabric_version = r.fabric_version();
  for (const auto& g : r.gpus()) a.gpus.push_back({g.host(), g.index()});
  a.plan_json = r.plan_json();
  a.request_id = r.request_id();
  a.created_at = FromMicros(r.created_us());
  if (r.has_expires_us()) a.expires_at = FromMicros(r.expires_us());
  if (r.has_finished_us()) a.finished_at = FromMicros(r.finished_us());
  return a;
}

}  // namespace topoplace::etcd
