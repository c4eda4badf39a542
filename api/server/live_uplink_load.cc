#include "api/server/live_uplink_load.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/container/flat_hash_set.h"

namespace topoplace::server {
namespace {

using Json = nlohmann::ordered_json;
constexpr char kOfferKey[] = "uplink_offer";

}  // namespace

LiveUplinkLoad::LiveUplinkLoad(const Fabric& fabric)
    : fabric_(fabric),
      model_(sched::sim::CommModel::ForFabric(fabric, {})),
      shape_(fabric),
      tally_(fabric) {}

std::string LiveUplinkLoad::WithOffer(const sched::PlacementPlan& plan,
                                      const std::string& plan_json) const {
  // Spliced in before the closing brace rather than parsed and written again: plans of
  // thousands of ranks are large, and Reserve should not pay twice for them.
  const size_t close = plan_json.find_last_of('}');
  if (close == std::string::npos) return plan_json;
  const sched::UplinkTally::Offer offer =
      shape_.OfferOf(plan.links, model_.ReferenceStepSeconds(plan.job, plan.traffic));
  Json entries = Json::array();
  for (const auto& [s, rate] : offer) {
    entries.push_back(Json{{"switch", fabric_.switches()[s].name}, {"bytes_per_second", rate}});
  }
  std::string out = plan_json.substr(0, close);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  const bool empty_object = !out.empty() && out.back() == '{';
  out += empty_object ? "\n  \"" : ",\n  \"";
  out += kOfferKey;
  out += "\": ";
  out += entries.dump();
  out += "\n";
  out += plan_json.substr(close);
  return out;
}

sched::UplinkTally::Offer LiveUplinkLoad::StoredOffer(const std::string& plan_json) const {
  sched::UplinkTally::Offer offer;
  const Json j = Json::parse(plan_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains(kOfferKey) || !j[kOfferKey].is_array()) {
    return offer;
  }
  for (const Json& entry : j[kOfferKey]) {
    if (!entry.is_object() || !entry.contains("switch") || !entry["switch"].is_string() ||
        !entry.contains("bytes_per_second") || !entry["bytes_per_second"].is_number()) {
      continue;
    }
    const std::optional<SwitchId> s = fabric_.FindSwitch(entry["switch"].get<std::string>());
    const double rate = entry["bytes_per_second"].get<double>();
    if (s && rate > 0) offer.emplace_back(*s, rate);
  }
  return offer;
}

std::vector<double> LiveUplinkLoad::Current(ledger::AllocationLedger& ledger) {
  absl::MutexLock lock(&mu_);
  absl::flat_hash_set<std::string> live;
  ledger.ForEachLive([&](const ledger::Allocation& a) {
    live.insert(a.id);
    if (counted_.contains(a.id)) return;
    sched::UplinkTally::Offer offer = StoredOffer(a.plan_json);
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

}  // namespace topoplace::server
