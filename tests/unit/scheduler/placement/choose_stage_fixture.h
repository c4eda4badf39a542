// Everything a stage of PlacementEngine::Choose reads (choose_stage.h), built as Choose
// builds it for one job on an idle reference fabric, so that each stage can be called
// alone: the stage tests' common ground.
#ifndef TOPOPLACE_TESTS_UNIT_SCHEDULER_PLACEMENT_CHOOSE_STAGE_FIXTURE_H_
#define TOPOPLACE_TESTS_UNIT_SCHEDULER_PLACEMENT_CHOOSE_STAGE_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/placement/candidate_sketch.h"
#include "scheduler/placement/choose_stage.h"
#include "scheduler/placement/engine.h"
#include "scheduler/steptime/step_predictor.h"
#include "scheduler/traffic/link_loads.h"
#include "tests/testing/fabrics.h"

namespace topoplace::sched::testing {

class ChooseStageFixture {
 public:
  // `spec` a job spec (job_spec.h); `weights` overrides of the registry's scorer weights.
  ChooseStageFixture(const std::string& preset, const std::string& spec,
                     const ScorerWeights& weights = {}, bool link_loads = false)
      : fabric_(::topoplace::testing::Preset(preset)),
        engine_(fabric_),
        occupancy_(*fabric_),
        request_(Request(spec, weights, link_loads)),
        inventory_(*Inventory::Build(*fabric_, occupancy_, engine_.health(), request_.job)),
        layout_(request_.job),
        traffic_(BuildTrafficModel(request_.job)),
        tiers_(std::make_shared<const TierIndex>(*fabric_)),
        steps_(tiers_, CommModelOptions{}),
        router_(*tiers_, request_.routing),
        links_(*fabric_, {}, {}),
        climb_(ClimbFactsOf(*tiers_)),
        scorers_(*BuiltinPlugins().MakeScorers(weights)),
        context_{*fabric_,
                 request_.job,
                 layout_,
                 traffic_,
                 inventory_,
                 static_cast<int>(request_.job.nodes()),
                 1,
                 {},
                 {},
                 {},
                 &steps_.comm(),
                 &request_.outlook},
        stage_{request_, context_, scorers_, router_, engine_.health(), *tiers_, "test"} {}

  const Fabric& fabric() const { return *fabric_; }
  const JobSpec& job() const { return request_.job; }
  const Occupancy& occupancy() const { return occupancy_; }
  const ChooseStage& stage() const { return stage_; }
  const ClimbFacts& climb() const { return climb_; }
  const LinkIndex& links() const { return links_; }
  const StepPredictor& steps() const { return steps_; }
  // The first `count` hosts of block `b`.
  std::vector<HostId> BlockHosts(int b, size_t count) const {
    const std::vector<HostId>& hosts = fabric_->blocks()[static_cast<size_t>(b)].hosts;
    return {hosts.begin(), hosts.begin() + static_cast<std::ptrdiff_t>(count)};
  }
  // The first `per_block` hosts of block 0, then those of block 1.
  std::vector<HostId> AcrossTwoBlocks(size_t per_block) const {
    std::vector<HostId> hosts = BlockHosts(0, per_block);
    for (HostId h : BlockHosts(1, per_block)) hosts.push_back(h);
    return hosts;
  }

 private:
  static PlacementRequest Request(const std::string& spec, const ScorerWeights& weights,
                                  bool link_loads) {
    PlacementRequest request;
    request.job = *ParseJobSpec(spec);
    request.weights = weights;
    request.link_loads = link_loads;
    return request;
  }

  const FabricPtr& fabric_;
  PlacementEngine engine_;
  Occupancy occupancy_;
  PlacementRequest request_;
  Inventory inventory_;
  RankLayout layout_;
  TrafficModel traffic_;
  std::shared_ptr<const TierIndex> tiers_;
  StepPredictor steps_;
  Router router_;
  LinkIndex links_;
  ClimbFacts climb_;
  std::vector<WeightedScorer> scorers_;
  PlacementContext context_;
  ChooseStage stage_;
};

}  // namespace topoplace::sched::testing

#endif  // TOPOPLACE_TESTS_UNIT_SCHEDULER_PLACEMENT_CHOOSE_STAGE_FIXTURE_H_
