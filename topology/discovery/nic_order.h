// Decides the order of each host's NICs, which is what makes a NIC's index its rail.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_NIC_ORDER_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_NIC_ORDER_H_

#include "topology/discovery/facts.h"

namespace topoplace::discovery {

// Orders the NICs of every host in `facts` (roles resolved, links deduplicated):
// 1. natural name order (mlx5_2 before mlx5_10);
// 2. a host whose NIC names are a strict subset of the most common set (held by two hosts
//    or more, and by more hosts than any other set) gets the missing ones as uncabled placeholders,
//    so that a host whose HCA is dead or absent from a dump keeps its other HCAs on their rails;
// 3. NICs cabled into a minor network (a switch island with at most half as many host
//    cables as the largest island: storage, management) move after the host's other NICs.
// Each change is reported in one grouped warning.
void OrderHostNics(FabricFacts& facts);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_NIC_ORDER_H_
