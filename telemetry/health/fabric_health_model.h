// The daemon's link health model: turns probe results, port-counter rates and LLDP
// neighbor loss into a healthy / degraded / down state per fabric link, with hysteresis,
// and reports every state change as an event.
//
//   FabricHealthModel model(fabric, {});
//   TP_RETURN_IF_ERROR(model.ObserveProbes(batch, now));     // evidence only
//   std::vector<HealthChange> changes = model.Evaluate(now); // one sample per touched link
//   sched::FabricHealth health = model.ToFabricHealth();     // for a new PlacementEngine
//
// Observe* only records evidence. Evaluate, called on a steady tick (the daemon: once a
// second), feeds one sample to the hysteresis of every link that got new evidence since
// the last tick, so how many agents report a link does not change how fast it flips.
//
// How samples become verdicts:
// - A probe between two NICs judges both NICs' access links (NIC <-> leaf). A good probe
//   exonerates both ends, so a link is bad by probes only if every fresh probe touching
//   it is bad. A bad probe condemns the target's link only when the target's own host
//   measured it too or at least `accusers_quorum` other hosts did: one host (one per-host
//   credential) cannot take another host's links down alone (hardening finding 3: a
//   credential's "unreachable" results to three other hosts took 24 of their links down).
//   A dead host's links still go down, on the word of the hosts that probe it. Spine uplinks are
//   not judged by probes (ECMP hides which uplink a probe took); counters and LLDP judge them.
// - Unreachable -> down. Bandwidth below a fraction of the expectation or latency far
//   above it -> degraded. The expectation is the pair's best result so far (min latency,
//   max bandwidth) and, for RDMA probes, the slower access link's speed. A pair with no
//   healthy result yet is held to its peers: the median best of the pairs of its tier
//   (leaf, spine, ...), bandwidth scaled by the slower access link's speed, as of the last
//   Evaluate. Without it, a pair first probed after its cable went slow would learn the slow
//   rate as its expectation and exonerate the cable for as long as it is probed.
// - Counter rates: any link-down event or error rate above a threshold -> degraded.
// - LLDP neighbor lost -> down until it is seen again.
// - The verdict fed to the link's hysteresis is the worst of these inputs.
//
// Errors: a batch with an unknown endpoint, a non-NIC probe end or an absurd value is
// rejected whole (InvalidArgument / NotFound naming the entry) and changes nothing.
// Thread-compatible: the owner serialises calls (HealthMonitor holds a mutex).
#ifndef TOPOPLACE_TELEMETRY_HEALTH_FABRIC_HEALTH_MODEL_H_
#define TOPOPLACE_TELEMETRY_HEALTH_FABRIC_HEALTH_MODEL_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/state/health.h"
#include "telemetry/counters/counter_rates.h"
#include "telemetry/health/link_verdict.h"
#include "topology/model/fabric.h"

namespace topoplace::telemetry {

struct ProbeSample {
  std::string source;  // "host/nic"
  std::string target;  // "host/nic"
  double latency_us = 0;
  double bandwidth_gbps = 0;  // 0: not measured
  bool reachable = true;
  std::string transport;  // "tcp" or "rdma" (empty: tcp)
};

struct CounterSample {
  std::string endpoint;  // "host/nic" (switch endpoints are accepted but judge nothing)
  uint64_t rx_errors = 0;
  uint64_t tx_discards = 0;
  uint64_t link_downs = 0;
};

struct HealthModelOptions {
  HysteresisOptions hysteresis;
  // Probe results older than this no longer exonerate or condemn a link.
  absl::Duration freshness = absl::Seconds(30);
  // How many hosts other than a NIC's own must find it bad before their probes count
  // against its link. 2: no single host decides alone, and the probe plan gives every
  // NIC several probers within the freshness window (telemetry/probe/probe_plan.h).
  int accusers_quorum = 2;
  // Degraded when bandwidth < fraction x expectation.
  double bandwidth_fraction = 0.25;
  // Degraded when latency > factor x best latency + slack.
  double latency_factor = 20;
  double latency_slack_us = 5000;
  // Degraded when receive errors exceed this many per second.
  double error_rate_per_second = 1.0;
  // Absurd-value bounds: anything outside is rejected, not judged.
  double max_latency_us = 60e6;
  double max_bandwidth_gbps = 1e5;
};

struct HealthChange {
  LinkId link = -1;
  std::string link_name;  // "a--b"
  LinkVerdict from = LinkVerdict::kHealthy;
  LinkVerdict to = LinkVerdict::kHealthy;
  std::string reason;
  absl::Time at;
};

// "a--b" with the fabric's endpoint names.
std::string LinkName(const Fabric& fabric, LinkId link);
// Resolves "a--b" (either order), or a NIC name ("host/nic": its access link).
// NotFound names what is missing.
absl::StatusOr<LinkId> FindLink(const Fabric& fabric, absl::string_view name);

class FabricHealthModel {
 public:
  FabricHealthModel(FabricPtr fabric, HealthModelOptions options);

  // Validates the whole batch, then records it as evidence.
  absl::Status ObserveProbes(const std::vector<ProbeSample>& batch, absl::Time now);
  absl::Status ObserveCounters(const std::vector<CounterSample>& batch, absl::Time now);
  // LLDP: the neighbor across `link` was lost (true) or is seen again (false).
  absl::Status ObserveNeighbor(LinkId link, bool lost, absl::Time now);
  // Sets a link's state without an event (restoring persisted health on start-up).
  void Restore(LinkId link, LinkVerdict state, std::string reason);
  // Feeds one sample to every link with new evidence; returns the state changes.
  std::vector<HealthChange> Evaluate(absl::Time now);

  LinkVerdict state(LinkId link) const { return links_[link].hysteresis.state(); }
  const std::string& reason(LinkId link) const { return links_[link].reason; }
  // Error rate (1/s) last computed for the link's NIC end; nullopt if none yet.
  std::optional<double> error_rate(LinkId link) const { return links_[link].error_rate; }
  // The link cabling `nic` to its leaf; -1 if uncabled. Precondition: a valid NIC id.
  LinkId access_link(NicId nic) const { return access_link_[nic]; }
  // Down links as unhealthy_links, degraded ones as degraded_links.
  sched::FabricHealth ToFabricHealth() const;
  const Fabric& fabric() const { return *fabric_; }

 private:
  struct PairResult {
    Tier tier = Tier::kUnreachable;
    LinkVerdict verdict = LinkVerdict::kHealthy;
    absl::Time at;
    double best_latency_us = -1;
    double best_bandwidth_gbps = 0;
    std::string evidence;  // "probe a -> b: why" when the verdict is not healthy
  };
  // What the pairs of one tier achieve when healthy: the median of their bests.
  struct TierReference {
    double bandwidth_per_line_gbps = 0;  // best bandwidth / slower access link's speed
    double latency_us = -1;
  };
  struct LinkStatus {
    Hysteresis hysteresis;
    LinkVerdict counter_verdict = LinkVerdict::kHealthy;
    std::string counter_evidence;
    bool neighbor_lost = false;
    std::optional<double> error_rate;
    std::string reason;
    std::string last_evidence;
  };

  absl::StatusOr<NicId> ResolveNic(absl::string_view field, absl::string_view name) const;
  LinkVerdict JudgeProbe(const ProbeSample& sample, PairResult& pair, NicId a, NicId b,
                         std::string& why) const;
  // The best verdict of the fresh probes touching the link, and the evidence behind it.
  LinkVerdict ProbeVerdict(LinkId link, absl::Time now, std::string& evidence) const;
  void Feed(LinkId link, absl::Time now, std::vector<HealthChange>& changes);
  // The slower access link's speed of a pair (1 when the fabric gives none).
  double LineRate(NicId a, NicId b) const;
  // Recomputes references_ from every pair's best results.
  void UpdateTierReferences();
  void Touch(LinkId link) { dirty_.insert(link); }

  FabricPtr fabric_;
  HealthModelOptions options_;
  std::vector<LinkStatus> links_;
  std::vector<LinkId> access_link_;  // per NIC, -1 if uncabled
  // Latest result per ordered (source NIC, target NIC).
  absl::flat_hash_map<std::pair<NicId, NicId>, PairResult> pairs_;
  absl::flat_hash_map<NicId, std::vector<std::pair<NicId, NicId>>> pairs_by_nic_;
  // Per tier (index: the Tier value, kMaxSwitchTier + 1 for unreachable).
  std::array<TierReference, kMaxSwitchTier + 2> references_;
  CounterRates rates_;
  absl::flat_hash_set<LinkId> dirty_;
};

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_HEALTH_FABRIC_HEALTH_MODEL_H_
