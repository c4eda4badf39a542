#include "telemetry/health/fabric_health_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {
namespace {

bool Finite(double v) { return std::isfinite(v); }

size_t TierIndex(Tier tier) {
  return std::min<size_t>(static_cast<size_t>(tier), kMaxSwitchTier + 1);
}

// The median of `values` (the upper one of an even count). Precondition: not empty.
double Median(std::vector<double>& values) {
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace

std::string LinkName(const Fabric& fabric, LinkId link) {
  const Link& l = fabric.links()[link];
  return absl::StrCat(fabric.EndpointName(l.a), "--", fabric.EndpointName(l.b));
}

absl::StatusOr<LinkId> FindLink(const Fabric& fabric, absl::string_view name) {
  const size_t sep = name.find("--");
  if (sep == absl::string_view::npos) {
    std::optional<NicId> nic = fabric.FindNic(name);
    if (!nic) {
      return absl::NotFoundError(absl::StrCat(
          "link: '", name, "' is neither a NIC ('host/nic') nor a link ('a--b') of the fabric"));
    }
    for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
      const Link& link = fabric.links()[l];
      const Endpoint e{Endpoint::Kind::kNic, *nic};
      if (link.a == e || link.b == e) return l;
    }
    return absl::NotFoundError(absl::StrCat("link: NIC '", name, "' is not cabled"));
  }
  const absl::string_view a = name.substr(0, sep);
  const absl::string_view b = name.substr(sep + 2);
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const std::string la = fabric.EndpointName(fabric.links()[l].a);
    const std::string lb = fabric.EndpointName(fabric.links()[l].b);
    if ((la == a && lb == b) || (la == b && lb == a)) return l;
  }
  return absl::NotFoundError(absl::StrCat("link: no link '", name, "' in the fabric"));
}

FabricHealthModel::FabricHealthModel(FabricPtr fabric, HealthModelOptions options)
    : fabric_(std::move(fabric)),
      options_(options),
      links_(fabric_->links().size()),
      access_link_(fabric_->nics().size(), -1) {
  for (LinkStatus& s : links_) s.hysteresis = Hysteresis(options_.hysteresis);
  for (LinkId l = 0; l < static_cast<LinkId>(fabric_->links().size()); ++l) {
    const Link& link = fabric_->links()[l];
    if (link.a.kind == Endpoint::Kind::kNic) access_link_[link.a.id] = l;
    if (link.b.kind == Endpoint::Kind::kNic) access_link_[link.b.id] = l;
  }
}

absl::StatusOr<NicId> FabricHealthModel::ResolveNic(absl::string_view field,
                                                    absl::string_view name) const {
  std::optional<NicId> nic = fabric_->FindNic(name);
  if (!nic) {
    return absl::NotFoundError(
        absl::StrCat(field, ": no NIC '", name, "' in the fabric (expected 'host/nic')"));
  }
  if (access_link_[*nic] < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": NIC '", name, "' has no link in the fabric"));
  }
  return *nic;
}

double FabricHealthModel::LineRate(NicId a, NicId b) const {
  const double rate = std::min(fabric_->nics()[a].speed_gbps, fabric_->nics()[b].speed_gbps);
  return rate > 0 ? rate : 1;
}

void FabricHealthModel::UpdateTierReferences() {
  std::array<std::vector<double>, kMaxSwitchTier + 2> bandwidth, latency;
  for (const auto& [key, pair] : pairs_) {
    const size_t t = TierIndex(pair.tier);
    if (pair.best_bandwidth_gbps > 0) {
      bandwidth[t].push_back(pair.best_bandwidth_gbps / LineRate(key.first, key.second));
    }
    if (pair.best_latency_us > 0) latency[t].push_back(pair.best_latency_us);
  }
  for (size_t t = 0; t < references_.size(); ++t) {
    references_[t].bandwidth_per_line_gbps = bandwidth[t].empty() ? 0 : Median(bandwidth[t]);
    references_[t].latency_us = latency[t].empty() ? -1 : Median(latency[t]);
  }
}

LinkVerdict FabricHealthModel::JudgeProbe(const ProbeSample& sample, PairResult& pair, NicId a,
                                          NicId b, std::string& why) const {
  if (!sample.reachable) {
    why = "unreachable";
    return LinkVerdict::kDown;
  }
  LinkVerdict verdict = LinkVerdict::kHealthy;
  const TierReference& peers = references_[TierIndex(pair.tier)];
  double expected_bw = pair.best_bandwidth_gbps;
  absl::string_view bw_source = "expected";
  if (sample.transport == "rdma") {
    expected_bw = std::min(fabric_->nics()[a].speed_gbps, fabric_->nics()[b].speed_gbps);
  } else if (expected_bw <= 0) {
    expected_bw = peers.bandwidth_per_line_gbps * LineRate(a, b);
    bw_source = "its tier's median";
  }
  if (sample.bandwidth_gbps > 0 && expected_bw > 0 &&
      sample.bandwidth_gbps < options_.bandwidth_fraction * expected_bw) {
    verdict = LinkVerdict::kDegraded;
    why = absl::StrFormat("bandwidth %.3g Gb/s < %.2g x %s %.3g Gb/s", sample.bandwidth_gbps,
                          options_.bandwidth_fraction, bw_source, expected_bw);
  }
  double expected_latency = pair.best_latency_us;
  absl::string_view latency_source = "best";
  if (expected_latency <= 0) {
    expected_latency = peers.latency_us;
    latency_source = "its tier's median";
  }
  if (expected_latency > 0 &&
      sample.latency_us > options_.latency_factor * expected_latency + options_.latency_slack_us) {
    verdict = LinkVerdict::kDegraded;
    why = absl::StrFormat("latency %.4g us > %.3g x %s %.4g us + %.4g us", sample.latency_us,
                          options_.latency_factor, latency_source, expected_latency,
                          options_.latency_slack_us);
  }
  // Only samples judged healthy teach the expectation, so a slow link cannot lower it.
  if (verdict == LinkVerdict::kHealthy) {
    if (sample.latency_us > 0 &&
        (pair.best_latency_us < 0 || sample.latency_us < pair.best_latency_us)) {
      pair.best_latency_us = sample.latency_us;
    }
    pair.best_bandwidth_gbps = std::max(pair.best_bandwidth_gbps, sample.bandwidth_gbps);
  }
  return verdict;
}

LinkVerdict FabricHealthModel::ProbeVerdict(LinkId link, absl::Time now,
                                            std::string& evidence) const {
  const Link& l = fabric_->links()[link];
  const NicId nic = l.a.kind == Endpoint::Kind::kNic   ? l.a.id
                    : l.b.kind == Endpoint::Kind::kNic ? l.b.id
                                                       : -1;
  if (nic < 0) return LinkVerdict::kHealthy;
  auto it = pairs_by_nic_.find(nic);
  if (it == pairs_by_nic_.end()) return LinkVerdict::kHealthy;
  const HostId own = fabric_->nics()[nic].host;
  // Hosts other than the NIC's own whose fresh probes to it went badly.
  absl::flat_hash_set<HostId> accusers;
  for (const auto& key : it->second) {
    const PairResult& r = pairs_.at(key);
    const HostId from = fabric_->nics()[key.first].host;
    if (now - r.at <= options_.freshness && r.verdict != LinkVerdict::kHealthy && from != own) {
      accusers.insert(from);
    }
  }
  const bool quorum = static_cast<int>(accusers.size()) >= options_.accusers_quorum;
  std::optional<LinkVerdict> best;
  for (const auto& key : it->second) {
    const PairResult& r = pairs_.at(key);
    if (now - r.at > options_.freshness) continue;
    const bool hearsay = fabric_->nics()[key.first].host != own;
    if (hearsay && r.verdict != LinkVerdict::kHealthy && !quorum) continue;
    if (!best || r.verdict < *best) {
      best = r.verdict;
      evidence = r.evidence;
    }
  }
  return best.value_or(LinkVerdict::kHealthy);
}

void FabricHealthModel::Feed(LinkId link, absl::Time now, std::vector<HealthChange>& changes) {
  LinkStatus& s = links_[link];
  std::string probe_evidence;
  const LinkVerdict probe = ProbeVerdict(link, now, probe_evidence);
  LinkVerdict sample = std::max(probe, s.counter_verdict);
  // The evidence of whichever input decided the sample.
  if (sample != LinkVerdict::kHealthy) {
    s.last_evidence = probe >= s.counter_verdict ? probe_evidence : s.counter_evidence;
  }
  if (s.neighbor_lost) {
    sample = LinkVerdict::kDown;
    s.last_evidence = "LLDP neighbor lost";
  }
  const LinkVerdict before = s.hysteresis.state();
  if (!s.hysteresis.Observe(sample)) return;
  s.reason = s.hysteresis.state() == LinkVerdict::kHealthy ? "recovered" : s.last_evidence;
  changes.push_back({link, LinkName(*fabric_, link), before, s.hysteresis.state(), s.reason, now});
}

absl::Status FabricHealthModel::ObserveProbes(const std::vector<ProbeSample>& batch,
                                              absl::Time now) {
  std::vector<std::pair<NicId, NicId>> ends;
  ends.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const ProbeSample& p = batch[i];
    const std::string at = absl::StrCat("results[", i, "]");
    TP_ASSIGN_OR_RETURN(NicId a, ResolveNic(at + ".source", p.source));
    TP_ASSIGN_OR_RETURN(NicId b, ResolveNic(at + ".target", p.target));
    if (a == b) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": source and target are the same NIC '", p.source, "'"));
    }
    if (!Finite(p.latency_us) || p.latency_us < 0 || p.latency_us > options_.max_latency_us) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ".latency_us: ", p.latency_us, " is outside [0, ", options_.max_latency_us, "]"));
    }
    if (!Finite(p.bandwidth_gbps) || p.bandwidth_gbps < 0 ||
        p.bandwidth_gbps > options_.max_bandwidth_gbps) {
      return absl::InvalidArgumentError(absl::StrCat(at, ".bandwidth_gbps: ", p.bandwidth_gbps,
                                                     " is outside [0, ",
                                                     options_.max_bandwidth_gbps, "]"));
    }
    if (p.reachable && p.latency_us == 0 && p.bandwidth_gbps == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": a reachable result must carry latency_us or bandwidth_gbps"));
    }
    if (!p.transport.empty() && p.transport != "tcp" && p.transport != "rdma") {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".transport: expected 'tcp' or 'rdma', got '", p.transport, "'"));
    }
    ends.emplace_back(a, b);
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    const auto key = ends[i];
    auto [it, inserted] = pairs_.try_emplace(key);
    if (inserted) {
      it->second.tier = fabric_->NicTier(key.first, key.second);
      pairs_by_nic_[key.first].push_back(key);
      pairs_by_nic_[key.second].push_back(key);
    }
    std::string why;
    it->second.verdict = JudgeProbe(batch[i], it->second, key.first, key.second, why);
    it->second.at = now;
    it->second.evidence =
        it->second.verdict == LinkVerdict::kHealthy
            ? ""
            : absl::StrCat("probe ", batch[i].source, " -> ", batch[i].target, ": ", why);
    for (NicId n : {key.first, key.second}) Touch(access_link_[n]);
  }
  return absl::OkStatus();
}

absl::Status FabricHealthModel::ObserveCounters(const std::vector<CounterSample>& batch,
                                                absl::Time now) {
  std::vector<LinkId> links(batch.size(), -1);
  for (size_t i = 0; i < batch.size(); ++i) {
    const std::string field = absl::StrCat("counters[", i, "].endpoint");
    if (fabric_->FindSwitch(batch[i].endpoint)) continue;  // stored, judges nothing yet
    TP_ASSIGN_OR_RETURN(NicId nic, ResolveNic(field, batch[i].endpoint));
    links[i] = access_link_[nic];
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (links[i] < 0) continue;
    const CounterSample& c = batch[i];
    LinkStatus& s = links_[links[i]];
    const CounterRate errors = rates_.Update(c.endpoint + ":rx_errors", c.rx_errors, now);
    const CounterRate downs = rates_.Update(c.endpoint + ":link_downs", c.link_downs, now);
    if (!errors.per_second && !downs.per_second) continue;  // first reading or reset
    s.error_rate = errors.per_second;
    s.counter_verdict = LinkVerdict::kHealthy;
    if (downs.per_second && downs.delta > 0) {
      s.counter_verdict = LinkVerdict::kDegraded;
      s.counter_evidence = absl::StrCat("counters ", c.endpoint, ": ", downs.delta, " link downs");
    }
    if (errors.per_second && *errors.per_second > options_.error_rate_per_second) {
      s.counter_verdict = LinkVerdict::kDegraded;
      s.counter_evidence =
          absl::StrFormat("counters %s: %.3g receive errors/s > %.3g/s", c.endpoint,
                          *errors.per_second, options_.error_rate_per_second);
    }
    Touch(links[i]);
  }
  return absl::OkStatus();
}

absl::Status FabricHealthModel::ObserveNeighbor(LinkId link, bool lost, absl::Time /*now*/) {
  if (link < 0 || link >= static_cast<LinkId>(links_.size())) {
    return absl::NotFoundError(absl::StrCat("link: no link with id ", link));
  }
  links_[link].neighbor_lost = lost;
  Touch(link);
  return absl::OkStatus();
}

void FabricHealthModel::Restore(LinkId link, LinkVerdict state, std::string reason) {
  if (link < 0 || link >= static_cast<LinkId>(links_.size())) return;
  links_[link].hysteresis.Reset(state);
  links_[link].reason = std::move(reason);
}

std::vector<HealthChange> FabricHealthModel::Evaluate(absl::Time now) {
  std::vector<LinkId> links(dirty_.begin(), dirty_.end());
  dirty_.clear();
  std::sort(links.begin(), links.end());
  std::vector<HealthChange> changes;
  for (LinkId l : links) Feed(l, now, changes);
  if (!links.empty()) UpdateTierReferences();
  return changes;
}

sched::FabricHealth FabricHealthModel::ToFabricHealth() const {
  sched::FabricHealth health;
  for (LinkId l = 0; l < static_cast<LinkId>(links_.size()); ++l) {
    switch (links_[l].hysteresis.state()) {
      case LinkVerdict::kDown:
        health.unhealthy_links.insert(l);
        break;
      case LinkVerdict::kDegraded:
        health.degraded_links.insert(l);
        break;
      case LinkVerdict::kHealthy:
        break;
    }
  }
  return health;
}

}  // namespace topoplace::telemetry
