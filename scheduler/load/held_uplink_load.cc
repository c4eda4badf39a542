#include "scheduler/load/held_uplink_load.h"

#include <utility>

#include "absl/container/flat_hash_set.h"

namespace topoplace::sched {

HeldUplinkLoad::HeldUplinkLoad(const Fabric& fabric)
    : fabric_(fabric), model_(CommModel::ForFabric(fabric, {})), shape_(fabric), tally_(fabric) {}

std::vector<ledger::UplinkOffer> HeldUplinkLoad::OfferOf(const PlacementPlan& plan) const {
  return NamedUplinkOffer(
      shape_.OfferOf(plan.links, model_.ReferenceStepSeconds(plan.job, plan.traffic)), fabric_);
}

std::vector<double> HeldUplinkLoad::Current(store::Ledger& ledger) {
  absl::MutexLock lock(&mu_);
  absl::flat_hash_set<std::string> live;
  ledger.ForEachLive([&](const ledger::Allocation& a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    live.insert(a.id);
    if (counted_.contains(a.id)) return;
    UplinkTally::Offer offer = a.uplink_offer.empty() ? LegacyUplinkOffer(a.plan_json, fabric_)
                                                      : UplinkOfferOf(a.uplink_offer, fabric_);
    tally_.Add(offer);
    counted_.emplace(a.id, std::move(offer));
  });
  for (auto it = counted_.begin(); it != counted_.end();) {
    auto here = it++;
    if (live.contains(here->first)) continue;
    tally_.Remove(here->second);
    counted_.erase(here);
  }
  return tally_.busy();
}

}  // namespace topoplace::sched
