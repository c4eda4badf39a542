// The placement engine: takes a job and a policy name, and returns the cheapest plan the
// policy proposes, scored by the weighted scorers and explained.
//
//   PlacementEngine engine(fabric);                   // no health problems
//   PlacementRequest req{.job = job, .policy = "topoplace"};
//   TP_ASSIGN_OR_RETURN(PlacementPlan plan, engine.Place(req, occupancy));
//
// Errors: InvalidArgument for a bad request (unknown policy, excluded host, weights);
// ResourceExhausted when the job does not fit (the message says why: capacity, excluded
// or unhealthy hosts, a hard max_tier, or no network path); Internal otherwise.
// Thread-safe: Place may run concurrently; the engine itself is immutable.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_ENGINE_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/framework/queue_outlook.h"
#include "scheduler/framework/registry.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/placement/candidate_sketch.h"
#include "scheduler/placement/faster_domains.h"
#include "scheduler/placement/plan.h"
#include "scheduler/state/health.h"
#include "scheduler/state/occupancy.h"
#include "scheduler/steptime/step_predictor.h"
#include "scheduler/traffic/link_loads.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/tier_index.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct PlacementRequest {
  JobSpec job;
  std::string policy = "topoplace";
  RoutingOptions routing;
  ScorerWeights weights;  // overrides of the registry defaults
  uint64_t seed = 1;      // for the random baseline
  // Fill PlacementPlan::links (bytes per link): one more traffic walk over the chosen
  // plan, pair by pair; about a third more time for an 8,192-GPU job on rail-28k
  // (placement_bench).
  bool link_loads = false;
  // How those bytes split over parallel uplinks (fluid spread or per-flow hashing).
  EcmpOptions ecmp;
  // Per switch id: the share (0 to 1, more when oversubscribed) of the switch's uplink
  // capacity that running jobs already use, from their plans or from measured port
  // counters. Empty (or all 0): no load known, and the uplink-load scorer is neutral.
  // Every share is >= 0 (Place turns down a NaN or negative one, naming it).
  std::vector<double> uplink_busy;
  // The jobs waiting behind this one and when busy hosts free up (queue_outlook.h); empty:
  // nothing known. Place turns down a host_free_in_s of the wrong size or with a NaN or
  // negative entry, naming it.
  QueueOutlook outlook;
};

// Stages of Choose (choose_stage.h, which includes this header).
struct ChooseStage;
struct EvaluatedCandidate;

class PlacementEngine {
 public:
  // Precomputes the health view, the tier index and the links' ECMP shares. `fabric` must
  // not be null; `plugins` (the policies and scorers a request may name) must outlive the
  // engine. `comm` sets the comm-time model that predicts each plan's step time (the
  // fabric's GPU model by default; the simulator passes its --gpu-model and --comm-scale).
  explicit PlacementEngine(const FabricPtr& fabric, const FabricHealth& health = {},
                           const PluginRegistry& plugins = BuiltinPlugins(),
                           const CommModelOptions& comm = {});

  absl::StatusOr<PlacementPlan> Place(const PlacementRequest& request,
                                      const Occupancy& occupancy) const;

  // This engine with other health (a health change in the daemon or the simulator): the
  // fabric's tier index, which health does not change, is shared instead of built again.
  std::unique_ptr<PlacementEngine> WithHealth(const FabricHealth& health) const;

  const Fabric& fabric() const { return *fabric_; }
  const HealthView& health() const { return health_; }
  // The fabric's tier index (built once, shared with WithHealth's engines).
  const TierIndex& tiers() const { return *tiers_; }
  const PluginRegistry& plugins() const { return *plugins_; }
  // What predicts a plan's step time and slowdown (shared with WithHealth's engines).
  const StepPredictor& steps() const { return *steps_; }

 private:
  PlacementEngine(FabricPtr fabric, const FabricHealth& health, const PluginRegistry& plugins,
                  std::shared_ptr<const TierIndex> tiers,
                  std::shared_ptr<const StepPredictor> steps);
  // Place's choice among `policy`'s candidates on the job's inventory `inv` (built from
  // `occupancy`); ResourceExhausted when none fits, which Place words with the room left.
  absl::StatusOr<PlacementPlan> Choose(const PlacementRequest& request, const Occupancy& occupancy,
                                       const PlacementPolicy& policy,
                                       const std::vector<WeightedScorer>& scorers,
                                       const Inventory& inv) const;

  // OK, or ResourceExhausted saying why `best`, Choose's winner, waits for faster NVLink
  // domains (faster_domains.h): only for a policy that waits_for_faster_domains(), a hard
  // job and an outlook that is known and gives the job's run.
  absl::Status HoldForFasterDomains(const ChooseStage& stage, const PlacementPolicy& policy,
                                    const Inventory& inv, const EvaluatedCandidate& best) const;
  // The job's placement on the empty fabric under the request's policy and weights, timed
  // by its busiest cable (faster_domains.h): placed once per policy, spec and weights and
  // kept; nullopt where it does not fit even there.
  std::optional<StepOn> StepOnEmptyFabric(const PlacementRequest& request) const;

  FabricPtr fabric_;
  const PluginRegistry* plugins_;
  HealthView health_;
  std::vector<uint8_t> bad_uplink_blocks_;      // PlacementContext::bad_uplink_blocks
  std::shared_ptr<const TierIndex> tiers_;      // immutable, shared by WithHealth
  std::shared_ptr<const StepPredictor> steps_;  // on tiers_; shared by WithHealth
  LinkIndex links_;
  ClimbFacts climb_;  // ClimbFactsOf(*tiers_), for candidates' lower bounds
  // StepOnEmptyFabric's answers, by policy, spec and weights (not shared with WithHealth's
  // engines: health changes them).
  struct EmptyFabricSteps {
    absl::Mutex mu;
    absl::flat_hash_map<std::string, std::optional<StepOn>> steps ABSL_GUARDED_BY(mu);
  };
  std::unique_ptr<EmptyFabricSteps> empty_ = std::make_unique<EmptyFabricSteps>();
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_ENGINE_H_
