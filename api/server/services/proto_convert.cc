#include "api/server/services/proto_convert.h"

#include <sstream>
#include <string>
#include <utility>

#include "scheduler/job/job_spec.h"
#include "scheduler/report/plan_report.h"
#include "topology/model/fabric_summary.h"

namespace topoplace::server {
namespace {

int64_t UnixMillisOrZero(absl::Time t) {
  return t == absl::InfiniteFuture() ? 0 : absl::ToUnixMillis(t);
}

v1::AllocationState StateToProto(ledger::AllocationState state) {
  switch (state) {
    case ledger::AllocationState::kReserved:
      return v1::ALLOCATION_STATE_RESERVED;
    case ledger::AllocationState::kCommitted:
      return v1::ALLOCATION_STATE_COMMITTED;
    case ledger::AllocationState::kReleased:
      return v1::ALLOCATION_STATE_RELEASED;
    case ledger::AllocationState::kExpired:
      return v1::ALLOCATION_STATE_EXPIRED;
  }
  return v1::ALLOCATION_STATE_UNSPECIFIED;
}

}  // namespace

v1::Tier TierToProto(Tier tier) {
  switch (tier) {
    case Tier::kNvlink:
      return v1::TIER_NVLINK;
    case Tier::kLeaf:
      return v1::TIER_LEAF;
    case Tier::kSpine:
      return v1::TIER_SPINE;
    case Tier::kCore:
      return v1::TIER_CORE;
    case Tier::kUnreachable:
      return v1::TIER_UNREACHABLE;
  }
  return v1::TIER_UNSPECIFIED;
}

v1::PlacementPlan PlanToProto(const Fabric& fabric, const sched::PlacementPlan& plan) {
  return PlanToProto(fabric, plan, sched::PlanToJson(fabric, plan));
}

v1::PlacementPlan PlanToProto(const Fabric& fabric, const sched::PlacementPlan& plan,
                              std::string json) {
  v1::PlacementPlan out;
  out.set_policy(plan.policy);
  out.set_fabric(plan.fabric);
  out.set_job_spec(sched::FormatJobSpec(plan.job));
  for (HostId h : plan.node_hosts) out.add_hosts(fabric.hosts()[h].name);
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    const sched::RankSlot& slot = plan.ranks[r];
    v1::RankSlot* rank = out.add_ranks();
    rank->set_rank(static_cast<int32_t>(r));
    rank->set_host(fabric.hosts()[slot.host].name);
    rank->set_gpu(fabric.gpus()[slot.gpu].index);
    if (slot.nic >= 0) rank->set_nic(fabric.nics()[slot.nic].name);
  }
  for (Tier t : {Tier::kNvlink, Tier::kLeaf, Tier::kSpine, Tier::kCore}) {
    (*out.mutable_bytes_per_tier())[std::string(TierName(t))] =
        plan.traffic.tier_bytes[static_cast<int>(t)];
  }
  out.set_spine_bytes(plan.traffic.spine_bytes());
  out.set_spine_bytes_lower_bound(plan.spine_bytes_lower_bound);
  out.set_max_switch_hops(plan.traffic.max_hops);
  out.set_predicted_step_seconds(plan.step.step_s);
  out.set_predicted_slowdown(plan.step.slowdown);
  for (const sched::ScorerContribution& c : plan.explain) {
    v1::ScorerContribution* e = out.add_explain();
    e->set_scorer(c.scorer);
    e->set_unit(c.unit);
    e->set_raw(c.raw);
    e->set_normalized(c.normalized);
    e->set_weight(c.weight);
    e->set_weighted(c.weighted);
  }
  out.set_cost(plan.cost);
  for (const std::string& note : plan.notes) out.add_notes(note);
  out.set_json(std::move(json));
  std::ostringstream table;
  sched::PrintPlanTable(fabric, plan, table);
  out.set_table(table.str());
  return out;
}

v1::Allocation AllocationToProto(const ledger::Allocation& a) {
  v1::Allocation out;
  out.set_allocation_id(a.id);
  out.set_state(StateToProto(a.state));
  out.set_external_id(a.external_id);
  out.set_request_id(a.request_id);
  out.set_job_spec(a.job_spec);
  // The ledger stores the canonical spec, so it parses; a record that somehow does not
  // keeps the default priority rather than failing the whole listing.
  if (absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(a.job_spec); job.ok()) {
    out.set_priority(job->priority);
  }
  out.set_policy(a.policy);
  out.set_fabric_version(a.fabric_version);
  for (const ledger::GpuRef& g : a.gpus) {
    v1::GpuSlot* slot = out.add_gpus();
    slot->set_host(g.host);
    slot->set_gpu(g.index);
  }
  for (const ledger::UplinkOffer& o : a.uplink_offer) {
    v1::UplinkOffer* offer = out.add_uplink_offer();
    offer->set_switch_name(o.switch_name);
    offer->set_bytes_per_second(o.bytes_per_second);
  }
  out.set_created_unix_ms(UnixMillisOrZero(a.created_at));
  out.set_expires_unix_ms(
      a.state == ledger::AllocationState::kReserved ? UnixMillisOrZero(a.expires_at) : 0);
  out.set_finished_unix_ms(UnixMillisOrZero(a.finished_at));
  out.set_expected_end_unix_ms(UnixMillisOrZero(a.expected_end));
  return out;
}

v1::FabricSummary SummaryToProto(const Fabric& fabric, uint64_t version) {
  v1::FabricSummary out;
  out.set_name(fabric.name());
  out.set_version(version);
  out.set_hosts(static_cast<int32_t>(fabric.hosts().size()));
  out.set_gpus(static_cast<int32_t>(fabric.gpus().size()));
  out.set_nics(static_cast<int32_t>(fabric.nics().size()));
  out.set_links(static_cast<int32_t>(fabric.links().size()));
  out.set_switches(static_cast<int32_t>(fabric.switches().size()));
  for (const TierStats& t : fabric.tier_stats()) {
    v1::TierSummary* tier = out.add_tiers();
    tier->set_tier(t.tier);
    tier->set_name(std::string(TierName(static_cast<Tier>(t.tier))));
    tier->set_switches(t.switches);
    tier->set_down_gbps(t.down_gbps);
    tier->set_up_gbps(t.up_gbps);
    tier->set_oversubscription(t.oversubscription().value_or(0));
  }
  out.set_rails(static_cast<int32_t>(fabric.rails().size()));
  out.set_blocks(static_cast<int32_t>(fabric.blocks().size()));
  out.set_pods(static_cast<int32_t>(fabric.pods().size()));
  out.set_nvlink_domains(static_cast<int32_t>(fabric.nvlink_domains().size()));
  out.set_rail_optimized(fabric.rail_optimized());
  for (const std::string& w : fabric.warnings()) out.add_warnings(w);
  out.set_json(FabricSummaryJson(fabric));
  out.set_table(FabricSummaryTable(fabric));
  return out;
}

}  // namespace topoplace::server
