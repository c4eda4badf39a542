#include "topology/model/hierarchy_inference.h"

namespace topoplace {

void HierarchyInference::Run(Fabric& f) {
  namespace h = hierarchy;
  std::vector<std::string>& warnings = f.warnings_;
  const h::SwitchGraph graph = h::ReadSwitchGraph(f.switches_.size(), f.links_);
  const int32_t max_tier = h::InferTiers(graph, f.switches_, warnings);
  h::FindNicLeaves(f.links_, f.hosts_, f.nics_, warnings);
  f.rail_optimized_ = h::AssignRails(f.hosts_, f.switches_, f.nics_, f.rails_, warnings);
  h::FormBlocks(graph, f.rails_, f.nics_, f.switches_, f.hosts_, f.blocks_, warnings);
  f.leaf_domain_ = h::JoinTierDomains(graph, f.switches_, max_tier);
  h::FormPods(f.leaf_domain_, f.blocks_, f.hosts_, f.pods_);
  f.nvlink_domains_ = h::FormNvlinkDomains(f.hosts_, warnings);
  f.host_places_.clear();
  for (const Host& host : f.hosts_) {
    f.host_places_.push_back(
        {host.block, host.pod, host.nvlink_domain_id, static_cast<int32_t>(host.gpus.size())});
  }
  f.tier_stats_ = h::SumTierBandwidth(f.switches_, f.links_, max_tier);
}

}  // namespace topoplace
