// The plugins an engine runs with, by name: the placement policies it can be asked for and
// the scorers, each with its default weight, that cost every candidate. The engine is
// handed a registry, as kube-scheduler's framework is handed its plugins; the built-in
// one (scheduler/builtin/builtin_plugins.h) lists topoplace's own and the baselines.
//
//   PluginRegistry registry({{"mine", &MakeMyPolicy}}, {{"spine-bytes", &MakeSpine, 10.0}});
//   TP_ASSIGN_OR_RETURN(ScorerWeights w, registry.ParseScorerWeights("spine-bytes=2"));
//   TP_ASSIGN_OR_RETURN(std::vector<WeightedScorer> scorers, registry.MakeScorers(w));
//
// Immutable; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_REGISTRY_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_REGISTRY_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/framework/scorer.h"

namespace topoplace::sched {

struct PolicyEntry {
  absl::string_view name;
  PlacementPolicyPtr (*factory)();
};

struct ScorerEntry {
  absl::string_view name;
  ScorerPtr (*factory)();
  double default_weight;
};

// Weight overrides by scorer name; scorers not named keep their default weight.
using ScorerWeights = std::map<std::string, double, std::less<>>;

struct WeightedScorer {
  ScorerPtr scorer;
  double weight = 0;
};

class PluginRegistry {
 public:
  // Names must be unique within each list; the scorers' order is the explain order.
  PluginRegistry(std::vector<PolicyEntry> policies, std::vector<ScorerEntry> scorers)
      : policies_(std::move(policies)), scorers_(std::move(scorers)) {}

  // Policy names in registration order.
  std::vector<std::string> PolicyNames() const;
  // A new instance of the policy called `name`; InvalidArgument listing the known names.
  absl::StatusOr<PlacementPolicyPtr> MakePolicy(absl::string_view name) const;

  const std::vector<ScorerEntry>& scorers() const { return scorers_; }
  // Parses "name=weight[,name=weight]". InvalidArgument on unknown names or bad numbers.
  absl::StatusOr<ScorerWeights> ParseScorerWeights(absl::string_view text) const;
  // Instantiates every scorer with its weight. InvalidArgument for an override that names
  // no scorer or a negative weight.
  absl::StatusOr<std::vector<WeightedScorer>> MakeScorers(const ScorerWeights& overrides) const;

 private:
  const ScorerEntry* FindScorer(absl::string_view name) const;
  std::string ScorerNames() const;

  std::vector<PolicyEntry> policies_;
  std::vector<ScorerEntry> scorers_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_REGISTRY_H_
