#include "scheduler/scorers/registry.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/scorers/builtin_scorers.h"

namespace topoplace::sched {
namespace {

std::string KnownNames() {
  std::vector<absl::string_view> names;
  for (const ScorerEntry& e : ScorerRegistry()) names.push_back(e.name);
  return absl::StrJoin(names, ", ");
}

const ScorerEntry* Find(absl::string_view name) {
  for (const ScorerEntry& e : ScorerRegistry()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace

const std::vector<ScorerEntry>& ScorerRegistry() {
  // Spine bytes dominate: they are what oversubscription punishes. Link health and uplink
  // load are next: a degraded or congested link stalls the whole job. The rest break ties.
  static const std::vector<ScorerEntry> kEntries = {
      {kSpineBytesScorerName, &MakeSpineBytesScorer, 10.0},
      {kMaxHopsScorerName, &MakeMaxHopsScorer, 1.0},
      {kSpreadScorerName, &MakeSpreadScorer, 1.0},
      {kFragmentationScorerName, &MakeFragmentationScorer, 1.0},
      {kLinkHealthScorerName, &MakeLinkHealthScorer, 5.0},
      {kRailAlignmentScorerName, &MakeRailAlignmentScorer, 2.0},
      {kUplinkLoadScorerName, &MakeUplinkLoadScorer, 5.0},
  };
  return kEntries;
}

absl::StatusOr<ScorerWeights> ParseScorerWeights(absl::string_view text) {
  ScorerWeights weights;
  if (text.empty()) return weights;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    double w = 0;
    if (Find(kv.first) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("weights: unknown scorer '", kv.first,
                                                     "' (expected one of ", KnownNames(), ")"));
    }
    if (!absl::SimpleAtod(kv.second, &w) || w < 0) {
      return absl::InvalidArgumentError(absl::StrCat("weights: expected a number >= 0 for '",
                                                     kv.first, "', got '", kv.second, "'"));
    }
    weights[std::string(kv.first)] = w;
  }
  return weights;
}

absl::StatusOr<std::vector<WeightedScorer>> MakeScorers(const ScorerWeights& overrides) {
  for (const auto& [name, w] : overrides) {
    if (Find(name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown scorer '", name, "' (expected one of ", KnownNames(), ")"));
    }
    if (w < 0) {
      return absl::InvalidArgumentError(absl::StrCat("negative weight for '", name, "'"));
    }
  }
  std::vector<WeightedScorer> out;
  for (const ScorerEntry& e : ScorerRegistry()) {
    auto it = overrides.find(e.name);
    out.push_back({e.factory(), it == overrides.end() ? e.default_weight : it->second});
  }
  return out;
}

}  // namespace topoplace::sched
