// The network path view of a set of GPUs (an allocation): the links and switches its
// traffic can cross, and the reverse question, whether a link or switch is on that path.
//
// The path of a set of GPUs is: the access link (NIC <-> leaf) of every GPU's NIC and
// those leaves; if the GPUs span more than one leaf, every uplink of those leaves and the
// switches at their far end (ECMP may use any of them); the same one tier further up if
// they span more than one tier-2 domain.
//
//   JobPath path = PathOfGpus(*fabric, gpus);
//   bool hit = path.Touches(link);
//
// Thread-safe (no state).
#ifndef TOPOPLACE_TELEMETRY_HEALTH_JOB_PATH_H_
#define TOPOPLACE_TELEMETRY_HEALTH_JOB_PATH_H_

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "topology/model/fabric.h"

namespace topoplace::telemetry {

struct JobPath {
  std::vector<LinkId> links;       // sorted
  std::vector<SwitchId> switches;  // sorted
  bool TouchesLink(LinkId link) const;
  bool TouchesSwitch(SwitchId s) const;
};

JobPath PathOfGpus(const Fabric& fabric, const std::vector<GpuId>& gpus);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_HEALTH_JOB_PATH_H_
