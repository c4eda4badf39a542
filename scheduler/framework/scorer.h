// The scoring extension point, shaped like kube-scheduler's Score plugins: one small
// interface, each plugin answers its name, returns a raw value in its own unit and a
// normalised cost in [0, 1] (0 best), and the engine multiplies by the configured weight.
// Costs add up; the candidate with the lowest total wins. Scorers are pure functions of
// their input and thread-safe.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_SCORER_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_SCORER_H_

#include <memory>
#include <span>

#include "absl/strings/string_view.h"
#include "scheduler/framework/footprint.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/traffic/link_loads.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {

struct ScoreInput {
  const PlacementContext& ctx;
  const TrafficReport& traffic;
  const PlanFootprint& footprint;
  // Per switch id: the share of its uplink capacity running jobs already use
  // (PlacementRequest::uplink_busy); empty when no load is known.
  std::span<const double> uplink_busy = {};
  // The candidate's bytes per link with fluid ECMP (LinkLoads: the expected spread over
  // parallel links, not any one hash's), computed only when a scorer of weight > 0
  // needs_links(); else empty.
  std::span<const LinkLoad> links = {};
};

struct ScoreResult {
  double raw = 0;         // in the scorer's unit (bytes, hops, blocks, ...)
  double normalized = 0;  // cost in [0, 1]; 0 is best
};

class Scorer {
 public:
  virtual ~Scorer() = default;
  virtual absl::string_view name() const = 0;
  // One line on what `raw` measures, for `explain`.
  virtual absl::string_view unit() const = 0;
  virtual ScoreResult Score(const ScoreInput& in) const = 0;
  // Whether Score reads ScoreInput::links (their walk costs about one more traffic
  // evaluation per candidate, so the engine makes them only for such a scorer).
  virtual bool needs_links() const { return false; }
  // A lower bound on Score(in).normalized for every candidate whose sketch `sketch` is:
  // its traffic and footprint hold, field by field, either the exact values or lower
  // bounds of them (CandidateSketch, scheduler/placement/candidate_sketch.h, says which).
  // The engine skips a candidate whose weighted bounds cannot beat the best plan so far.
  // 0 is always right (costs are in [0, 1]); a scorer may return Score(sketch).normalized
  // when its cost reads only exact fields and does not fall as a bounded field grows.
  virtual double LowerBound(const ScoreInput& sketch) const {
    (void)sketch;
    return 0;
  }
};
using ScorerPtr = std::unique_ptr<Scorer>;

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_SCORER_H_
