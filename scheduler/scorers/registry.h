// The one place that lists every scorer, with its default weight, and builds the weighted
// set a placement uses. Weights come from configuration (`--weights name=w,...`); a
// weight of 0 disables a scorer.
//
//   TP_ASSIGN_OR_RETURN(ScorerWeights w, ParseScorerWeights("fragmentation=0"));
//   TP_ASSIGN_OR_RETURN(std::vector<WeightedScorer> scorers, MakeScorers(w));
#ifndef TOPOPLACE_SCHEDULER_SCORERS_REGISTRY_H_
#define TOPOPLACE_SCHEDULER_SCORERS_REGISTRY_H_

#include <map>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/scorers/scorer.h"

namespace topoplace::sched {

struct ScorerEntry {
  absl::string_view name;
  ScorerPtr (*factory)();
  double default_weight;
};

// Every built-in scorer, in explain order.
const std::vector<ScorerEntry>& ScorerRegistry();

// Weight overrides by scorer name; scorers not named keep their default weight.
using ScorerWeights = std::map<std::string, double, std::less<>>;

// Parses "name=weight[,name=weight]". InvalidArgument on unknown names or bad numbers.
absl::StatusOr<ScorerWeights> ParseScorerWeights(absl::string_view text);

struct WeightedScorer {
  ScorerPtr scorer;
  double weight = 0;
};

// Instantiates every registered scorer with its weight. InvalidArgument for an override
// that names no scorer or a negative weight.
absl::StatusOr<std::vector<WeightedScorer>> MakeScorers(const ScorerWeights& overrides);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_SCORERS_REGISTRY_H_
