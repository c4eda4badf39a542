#include "scheduler/framework/registry.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace topoplace::sched {

std::vector<std::string> PluginRegistry::PolicyNames() const {
  std::vector<std::string> names;
  for (const PolicyEntry& e : policies_) names.emplace_back(e.name);
  return names;
}

absl::StatusOr<PlacementPolicyPtr> PluginRegistry::MakePolicy(absl::string_view name) const {
  for (const PolicyEntry& e : policies_) {
    if (e.name == name) return e.factory();
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown policy '", name, "' (expected one of ",
                                                 absl::StrJoin(PolicyNames(), ", "), ")"));
}

const ScorerEntry* PluginRegistry::FindScorer(absl::string_view name) const {
  for (const ScorerEntry& e : scorers_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string PluginRegistry::ScorerNames() const {
  std::vector<absl::string_view> names;
  for (const ScorerEntry& e : scorers_) names.push_back(e.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<ScorerWeights> PluginRegistry::ParseScorerWeights(absl::string_view text) const {
  ScorerWeights weights;
  if (text.empty()) return weights;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    double w = 0;
    if (FindScorer(kv.first) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("weights: unknown scorer '", kv.first,
                                                     "' (expected one of ", ScorerNames(), ")"));
    }
    if (!absl::SimpleAtod(kv.second, &w) || w < 0) {
      return absl::InvalidArgumentError(absl::StrCat("weights: expected a number >= 0 for '",
                                                     kv.first, "', got '", kv.second, "'"));
    }
    weights[std::string(kv.first)] = w;
  }
  return weights;
}

absl::StatusOr<std::vector<WeightedScorer>> PluginRegistry::MakeScorers(
    const ScorerWeights& overrides) const {
  for (const auto& [name, w] : overrides) {
    if (FindScorer(name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown scorer '", name, "' (expected one of ", ScorerNames(), ")"));
    }
    if (w < 0) {
      return absl::InvalidArgumentError(absl::StrCat("negative weight for '", name, "'"));
    }
  }
  std::vector<WeightedScorer> out;
  for (const ScorerEntry& e : scorers_) {
    auto it = overrides.find(e.name);
    out.push_back({e.factory(), it == overrides.end() ? e.default_weight : it->second});
  }
  return out;
}

}  // namespace topoplace::sched
