#include "scheduler/builtin/builtin_plugins.h"

#include <memory>

#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/policies/topoplace_policy.h"
#include "scheduler/scorers/builtin_scorers.h"

namespace topoplace::sched {
namespace {

PlacementPolicyPtr MakeTopoplacePolicy() { return std::make_unique<TopoplacePolicy>(); }

// The step-time scorer's weight. 0 until the simulator shows a weight that does not lose
// goodput on any fabric and mix (FINDINGS.md, "Step time as a scorer"); `--weights
// step-time=W` turns it on for `place` and `simulate`.
constexpr double kStepTimeWeight = 0.0;
// The link-step scorer's weight: 0 for the same reason, until the report's scenarios show
// it (FINDINGS.md, "Step time as a scorer"); `--weights link-step=W` turns it on.
constexpr double kLinkStepWeight = 0.0;

}  // namespace

const PluginRegistry& BuiltinPlugins() {
  // On fabrics whose NVLink domains span hosts, bytes leaving a domain come first (NVLink
  // gives a GB200 GPU 1.8 TB/s, its NIC 50 GB/s: each such byte is ~36x slower), so their
  // weight makes a 1% difference outweigh any tie-breaker; the scorer is 0 elsewhere. Then
  // spine bytes: they are what oversubscription punishes. Link health and uplink load are
  // next: a degraded or congested link stalls the whole job. The rest break ties.
  static const PluginRegistry* const kRegistry = new PluginRegistry(
      {
          {kTopoplacePolicyName, &MakeTopoplacePolicy},
          {kFirstFitPolicyName, &MakeFirstFitPolicy},
          {kRandomPolicyName, &MakeRandomPolicy},
          {kSlurmTreePolicyName, &MakeSlurmTreePolicy},
          {kSlurmBlockPolicyName, &MakeSlurmBlockPolicy},
          {kKueueBestFitPolicyName, &MakeKueueBestFitPolicy},
          {kVolcanoPolicyName, &MakeVolcanoPolicy},
          {kKaiPolicyName, &MakeKaiPolicy},
      },
      {
          {kSpineBytesScorerName, &MakeSpineBytesScorer, 10.0},
          {kMaxHopsScorerName, &MakeMaxHopsScorer, 1.0},
          {kSpreadScorerName, &MakeSpreadScorer, 1.0},
          {kFragmentationScorerName, &MakeFragmentationScorer, 1.0},
          {kLinkHealthScorerName, &MakeLinkHealthScorer, 5.0},
          {kRailAlignmentScorerName, &MakeRailAlignmentScorer, 2.0},
          {kUplinkLoadScorerName, &MakeUplinkLoadScorer, 5.0},
          {kNvlinkEgressScorerName, &MakeNvlinkEgressScorer, 100.0},
          {kNvlinkFragmentationScorerName, &MakeNvlinkFragmentationScorer, 1.0},
          {kStepTimeScorerName, &MakeStepTimeScorer, kStepTimeWeight},
          {kLinkStepScorerName, &MakeLinkStepScorer, kLinkStepWeight},
      });
  return *kRegistry;
}

}  // namespace topoplace::sched
