#include "scheduler/load/uplink_tally.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace topoplace::sched {

UplinkTally::UplinkTally(const Fabric& fabric)
    : lower_(fabric.links().size(), -1),
      capacity_(fabric.switches().size(), 0),
      offered_(fabric.switches().size(), 0),
      busy_(fabric.switches().size(), 0) {
  const LinkIndex uplinks(fabric, {}, {});
  for (SwitchId s = 0; s < static_cast<SwitchId>(fabric.switches().size()); ++s) {
    for (const LinkIndex::Uplink& u : uplinks.uplinks(s)) {
      lower_[u.link] = s;
      capacity_[s] += fabric.links()[u.link].bandwidth_gbps() * 1e9 / 8;
    }
  }
}

UplinkTally::Offer UplinkTally::OfferOf(std::span<const LinkLoad> links, double step_s) const {
  Offer offer;
  if (step_s <= 0) return offer;
  for (const LinkLoad& load : links) {
    const SwitchId lower = lower_[load.link];
    if (lower < 0 || load.up_bytes <= 0) continue;
    auto same = std::find_if(offer.begin(), offer.end(),
                             [lower](const auto& entry) { return entry.first == lower; });
    if (same == offer.end()) {
      offer.emplace_back(lower, load.up_bytes / step_s);
    } else {
      same->second += load.up_bytes / step_s;
    }
  }
  return offer;
}

void UplinkTally::Apply(const Offer& offer, int sign) {
  for (const auto& [s, rate] : offer) {
    offered_[s] = std::max(0.0, offered_[s] + sign * rate);
    busy_[s] = capacity_[s] > 0 ? offered_[s] / capacity_[s] : 0;
  }
}

namespace {

using Json = nlohmann::ordered_json;
constexpr char kOfferKey[] = "uplink_offer";

}  // namespace

std::vector<ledger::UplinkOffer> NamedUplinkOffer(const UplinkTally::Offer& offer,
                                                  const Fabric& fabric) {
  std::vector<ledger::UplinkOffer> named;
  named.reserve(offer.size());
  for (const auto& [s, rate] : offer) named.push_back({fabric.switches()[s].name, rate});
  return named;
}

UplinkTally::Offer UplinkOfferOf(const std::vector<ledger::UplinkOffer>& named,
                                 const Fabric& fabric) {
  UplinkTally::Offer offer;
  for (const ledger::UplinkOffer& o : named) {
    const std::optional<SwitchId> s = fabric.FindSwitch(o.switch_name);
    if (s && o.bytes_per_second > 0) offer.emplace_back(*s, o.bytes_per_second);
  }
  return offer;
}

UplinkTally::Offer LegacyUplinkOffer(const std::string& plan_json, const Fabric& fabric) {
  UplinkTally::Offer offer;
  // Most plans never had one: no parse for them (plans of thousands of ranks are large).
  if (plan_json.find(absl::StrCat("\"", kOfferKey, "\"")) == std::string::npos) return offer;
  const Json j = Json::parse(plan_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains(kOfferKey) || !j[kOfferKey].is_array()) {
    return offer;
  }
  for (const Json& entry : j[kOfferKey]) {
    if (!entry.is_object() || !entry.contains("switch") || !entry["switch"].is_string() ||
        !entry.contains("bytes_per_second") || !entry["bytes_per_second"].is_number()) {
      continue;
    }
    const std::optional<SwitchId> s = fabric.FindSwitch(entry["switch"].get<std::string>());
    const double rate = entry["bytes_per_second"].get<double>();
    if (s && rate > 0) offer.emplace_back(*s, rate);
  }
  return offer;
}

}  // namespace topoplace::sched
