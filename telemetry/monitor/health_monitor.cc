#include "telemetry/monitor/health_monitor.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {
namespace {

// Pruning is cheap but not free: once a minute is plenty for retentions of hours.
constexpr absl::Duration kPruneEvery = absl::Minutes(1);

}  // namespace

HealthMonitor::HealthMonitor(FabricPtr fabric, store::HealthHistory* history, HealthSink on_health,
                             DaemonMetrics* metrics, HealthMonitorOptions options)
    : fabric_(fabric),
      history_(history),
      on_health_(std::move(on_health)),
      metrics_(metrics),
      options_(options),
      model_(std::move(fabric), options.model),
      turned_bad_at_(fabric_->links().size(), absl::InfinitePast()) {
  if (metrics_ != nullptr) {
    metrics_->SetLinkCounts(static_cast<int>(fabric_->links().size()), 0, 0);
  }
}

HealthMonitor::~HealthMonitor() { Stop(); }

absl::Status HealthMonitor::Restore() {
  TP_ASSIGN_OR_RETURN(std::vector<store::HealthEvent> events, history_->LatestHealthEvents());
  std::vector<HealthChange> restored;
  {
    absl::MutexLock lock(&mu_);
    for (const store::HealthEvent& e : events) {
      absl::StatusOr<LinkId> link = FindLink(*fabric_, e.link);
      std::optional<LinkVerdict> state = ParseLinkVerdict(e.to);
      if (!link.ok() || !state) continue;  // a link of an older fabric: nothing to restore
      const LinkVerdict was = model_.state(*link);
      if (was == *state && model_.reason(*link) == e.reason) continue;
      model_.Restore(*link, *state, e.reason);
      if (was != *state) {
        restored.push_back(
            {*link, e.link, was, *state, e.reason, absl::FromUnixMillis(e.at_unix_ms)});
      }
    }
  }
  if (!restored.empty()) Publish(restored, absl::Now());
  return absl::OkStatus();
}

void HealthMonitor::Start() {
  ticker_ = std::thread([this] { RunTicks(); });
}

void HealthMonitor::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (ticker_.joinable()) ticker_.join();
}

void HealthMonitor::RunTicks() {
  while (!stop_.WaitForNotificationWithTimeout(options_.tick)) {
    // A failed tick (e.g. the disk is full) is retried on the next one; the evidence stays.
    (void)Tick(absl::Now());
  }
}

absl::Status HealthMonitor::ObserveProbes(const std::vector<ProbeSample>& batch, absl::Time now) {
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    status = model_.ObserveProbes(batch, now);
  }
  if (metrics_ == nullptr) return status;
  if (!status.ok()) {
    metrics_->CountRejectedReport("probe");
    return status;
  }
  for (const ProbeSample& r : batch) {
    const Tier tier = fabric_->NicTier(*fabric_->FindNic(r.source), *fabric_->FindNic(r.target));
    metrics_->ObserveProbe(tier, r.latency_us, r.bandwidth_gbps, r.reachable);
  }
  return status;
}

namespace {

// True if `report` shows `leaf` as LLDP neighbor of fabric NIC `nic_name` (matched by the
// NIC's own name or by the netdev of the RDMA device of that name).
bool SeesNeighbor(const discovery::AgentReport& report, absl::string_view nic_name,
                  absl::string_view leaf) {
  auto is_port_of_nic = [&](absl::string_view port) {
    if (port == nic_name) return true;
    for (const discovery::AgentNic& n : report.nics) {
      if (n.name == port && n.rdma_device == nic_name) return true;
    }
    return false;
  };
  for (const discovery::LldpNeighbor& n : report.lldp) {
    if (is_port_of_nic(n.local_port) && n.system_name == leaf) return true;
  }
  return false;
}

}  // namespace

void HealthMonitor::ObserveNeighbors(const discovery::AgentReport& report, absl::Time now) {
  if (report.lldp.empty()) return;
  std::optional<HostId> host = fabric_->FindHost(report.host);
  if (!host) return;
  absl::MutexLock lock(&mu_);
  for (NicId nic : fabric_->hosts()[*host].nics) {
    const Nic& n = fabric_->nics()[nic];
    if (n.leaf < 0) continue;
    const LinkId link = model_.access_link(nic);
    if (link < 0) continue;
    const bool lost = !SeesNeighbor(report, n.name, fabric_->switches()[n.leaf].name);
    (void)model_.ObserveNeighbor(link, lost, now);  // the id came from this fabric
  }
}

absl::Status HealthMonitor::ObserveCounters(const std::vector<CounterSample>& batch,
                                            absl::Time now) {
  std::vector<store::CounterRateRow> rates;
  {
    absl::MutexLock lock(&mu_);
    absl::Status status = model_.ObserveCounters(batch, now);
    if (!status.ok()) {
      if (metrics_ != nullptr) metrics_->CountRejectedReport("counters");
      return status;
    }
    for (const CounterSample& c : batch) {
      // The model validated every endpoint; switch endpoints judge nothing.
      std::optional<NicId> nic = fabric_->FindNic(c.endpoint);
      if (!nic || model_.access_link(*nic) < 0) continue;
      std::optional<double> rate = model_.error_rate(model_.access_link(*nic));
      if (!rate) continue;
      rates.push_back({c.endpoint, "rx_errors", *rate, absl::ToUnixMillis(now)});
      if (metrics_ != nullptr) metrics_->SetReceiveErrorRate(c.endpoint, *rate);
    }
  }
  if (!rates.empty()) TP_RETURN_IF_ERROR(history_->AddCounterRates(rates));
  return absl::OkStatus();
}

absl::Status HealthMonitor::Tick(absl::Time now) {
  std::vector<HealthChange> changes;
  bool prune = false;
  {
    absl::MutexLock lock(&mu_);
    changes = model_.Evaluate(now);
    if (options_.retention > absl::ZeroDuration() && now - last_prune_ >= kPruneEvery) {
      last_prune_ = now;
      prune = true;
    }
  }
  if (prune) {
    TP_RETURN_IF_ERROR(history_->Prune(absl::ToUnixMillis(now - options_.retention)).status());
  }
  if (changes.empty()) return history_->RetryUnwritten();
  std::vector<store::HealthEvent> events;
  for (const HealthChange& c : changes) {
    events.push_back({c.link_name, std::string(LinkVerdictName(c.from)),
                      std::string(LinkVerdictName(c.to)), c.reason, absl::ToUnixMillis(c.at)});
  }
  // The new state is already in the model: placement follows it even if persisting fails
  // (the error is returned and the tick retried; the events are then missing, not wrong).
  absl::Status persisted = history_->AddHealthEvents(events);
  Publish(changes, now);
  return persisted;
}

void HealthMonitor::Publish(const std::vector<HealthChange>& changes, absl::Time /*now*/) {
  sched::FabricHealth health;
  {
    absl::MutexLock lock(&mu_);
    health = model_.ToFabricHealth();
    ++version_;
    for (const HealthChange& c : changes) {
      if (c.from == LinkVerdict::kHealthy && c.to != LinkVerdict::kHealthy) {
        turned_bad_at_[c.link] = c.at;
      }
    }
    degraded_ = static_cast<int>(health.degraded_links.size());
    down_ = static_cast<int>(health.unhealthy_links.size());
  }
  on_health_(health);
  if (metrics_ != nullptr) {
    for (const HealthChange& c : changes) {
      metrics_->CountHealthChange(c.to);
      metrics_->SetLinkHealth(c.link_name, c.to);
    }
    const int total = static_cast<int>(fabric_->links().size());
    metrics_->SetLinkCounts(total - static_cast<int>(health.degraded_links.size()) -
                                static_cast<int>(health.unhealthy_links.size()),
                            static_cast<int>(health.degraded_links.size()),
                            static_cast<int>(health.unhealthy_links.size()));
  }
  absl::MutexLock lock(&subscribers_mu_);
  for (auto& [id, callback] : subscribers_) callback();
}

LinkHealthView HealthMonitor::Link(LinkId link) const {
  absl::MutexLock lock(&mu_);
  return {model_.state(link), model_.reason(link)};
}

absl::Time HealthMonitor::LastTurnedBad(LinkId link) const {
  absl::MutexLock lock(&mu_);
  return turned_bad_at_[link];
}

uint64_t HealthMonitor::health_version() const {
  absl::MutexLock lock(&mu_);
  return version_;
}

std::pair<int, int> HealthMonitor::UnhealthyCounts() const {
  absl::MutexLock lock(&mu_);
  return {degraded_, down_};
}

int HealthMonitor::Subscribe(std::function<void()> on_change) {
  absl::MutexLock lock(&subscribers_mu_);
  subscribers_[next_id_] = std::move(on_change);
  return next_id_++;
}

void HealthMonitor::Unsubscribe(int id) {
  absl::MutexLock lock(&subscribers_mu_);
  subscribers_.erase(id);
}

}  // namespace topoplace::telemetry
