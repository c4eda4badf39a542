// The NVLink domain as the innermost placement level (GPU, host, NVLink domain, block, pod,
// cluster). A domain is a set of hosts whose GPUs share one NVLink switch fabric: a single
// 8-GPU node on rail fabrics, an 18-tray rack on GB200 NVL72 (Fabric::nvlink_domains()).
// Traffic between hosts of one domain never touches the network (Tier::kNvlink).
//
//   if (LargestNvlinkDomain(fabric) > 1) ... domains are a level worth choosing ...
//   GroupByNvlinkDomain(fabric, candidate.node_hosts);  // before mapping ranks
//   if (auto why = TpDomainViolation(fabric, inv, job, hosts)) ... reject ...
//
// Rank order puts TP fastest, then CP and EP (RankOrder): the first tp ranks are one TP
// group, the first tp*cp*ep one TP x CP x EP group, so groups are runs of consecutive
// node slots, and keeping a run inside one domain keeps that group on NVLink.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_NVLINK_DOMAINS_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_NVLINK_DOMAINS_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scheduler/framework/inventory.h"
#include "scheduler/framework/queue_outlook.h"
#include "scheduler/job/job_spec.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Hosts in the largest NVLink domain of `fabric`: 1 where NVLink stays inside each host.
int LargestNvlinkDomain(const Fabric& fabric);

// The NVLink domains of block `b` (a domain sits in one block), in id order.
std::vector<int32_t> NvlinkDomainsOf(const Fabric& fabric, int32_t b);

// Node slots one TP group spans: tp / gpus_per_node when TP is wider than a node, else 1.
int TpSpanNodes(const JobSpec& job);

// Node slots of one TP x CP x EP group (the dimensions that move the most bytes), at least
// 1 and at most `largest_domain`: the run of slots a domain-aware choice keeps together.
int NvlinkUnitNodes(const JobSpec& job, int largest_domain);

// Seconds until `needed` NVLink domains are expected to be wholly free for a job
// (outlook.host_free_in_s; a host free now that `inv` does not let the job use counts as
// never): the needed-th soonest of the domains' times; infinity when the fabric has fewer
// domains. Preconditions: outlook.known(), needed >= 1.
double WholeDomainsFreeIn(const Fabric& fabric, const Inventory& inv, const QueueOutlook& outlook,
                          int needed);

// InvalidArgument when the job's TP groups span more hosts than any NVLink domain of
// `fabric` has (and tp_across_nodes is not set), naming the largest domain.
absl::Status CheckTpFitsADomain(const Fabric& fabric, const JobSpec& job);

// Reorders `hosts` so that the hosts of each NVLink domain are consecutive: domains in
// the order of their first host in `hosts`, hosts of a domain in their given order. The
// identity where every host is its own domain.
void GroupByNvlinkDomain(const Fabric& fabric, std::vector<HostId>& hosts);

// Whether every run of `unit` consecutive node slots of `node_hosts` (the last may be
// shorter) lies inside one NVLink domain.
bool GroupsStayInDomains(const Fabric& fabric, std::span<const HostId> node_hosts, int unit);

// Why the node slots `node_hosts` put a TP group across NVLink domains, naming the first
// such group's domains and their free GPUs; nullopt if every TP group stays in one domain
// (always when tp_across_nodes or TP fits in a node).
std::optional<std::string> TpDomainViolation(const Fabric& fabric, const Inventory& inv,
                                             const JobSpec& job,
                                             std::span<const HostId> node_hosts);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_NVLINK_DOMAINS_H_
