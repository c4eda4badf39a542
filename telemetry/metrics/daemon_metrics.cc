#include "telemetry/metrics/daemon_metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <exception>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace topoplace::telemetry {
namespace {

using prometheus::Histogram;

std::string TierLabel(Tier tier) { return std::string(TierName(tier)); }

// Latency: 1 us .. 1 s; bandwidth: 1 MB/s .. 100 GB/s (800 Gb/s ports).
const Histogram::BucketBoundaries& LatencyBuckets() {
  static const auto* b = new Histogram::BucketBoundaries{1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4,
                                                         2e-4, 5e-4, 1e-3, 1e-2, 1e-1, 1};
  return *b;
}
const Histogram::BucketBoundaries& BandwidthBuckets() {
  static const auto* b =
      new Histogram::BucketBoundaries{1e6, 1e7, 1e8, 1e9, 5e9, 1e10, 2.5e10, 5e10, 1e11};
  return *b;
}
const Histogram::BucketBoundaries& PlacementBuckets() {
  static const auto* b =
      new Histogram::BucketBoundaries{1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 0.1, 0.5, 1, 5};
  return *b;
}

}  // namespace

namespace {

prometheus::MetricFamily Family(std::string name, std::string help, prometheus::MetricType type) {
  prometheus::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

// One sample of `value` with `labels` (none: unlabelled) added to `family`.
void Add(prometheus::MetricFamily& family, double value,
         std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  if (family.type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  family.metric.push_back(std::move(m));
}

// `family` with one unlabelled sample of `value`.
prometheus::MetricFamily One(prometheus::MetricFamily family, double value) {
  Add(family, value);
  return family;
}

std::vector<prometheus::MetricFamily> LedgerFamilies(const LedgerGauges& now) {
  prometheus::MetricFamily allocations =
      Family("topoplace_allocations", "Live allocations by state", prometheus::MetricType::Gauge);
  for (const auto& [state, count] : now.allocations) Add(allocations, count, {{"state", state}});
  std::vector<prometheus::MetricFamily> families = {
      std::move(allocations),
      One(Family("topoplace_ledger_writable",
                 "1 while this process can record ledger changes, 0 otherwise",
                 prometheus::MetricType::Gauge),
          now.writable ? 1 : 0),
      One(Family("topoplace_leader",
                 "1 while this replica leads (may write the ledger), 0 for a follower",
                 prometheus::MetricType::Gauge),
          now.leading ? 1 : 0),
      One(Family("topoplace_reservations_expired_total",
                 "Reservations this process marked expired, never committed in time",
                 prometheus::MetricType::Counter),
          static_cast<double>(now.expired_reservations)),
  };
  if (now.store_bytes >= 0 && now.store_quota_bytes > 0) {
    families.push_back(One(Family("topoplace_store_bytes",
                                  "Bytes of the ledger store's database (etcd's db size), "
                                  "which its space quota is measured against",
                                  prometheus::MetricType::Gauge),
                           static_cast<double>(now.store_bytes)));
    families.push_back(One(Family("topoplace_store_quota_bytes",
                                  "The ledger store's space quota (etcd_quota_bytes): past "
                                  "it etcd refuses every write",
                                  prometheus::MetricType::Gauge),
                           static_cast<double>(now.store_quota_bytes)));
  }
  return families;
}

std::vector<prometheus::MetricFamily> CapacityFamilies(const sched::FreeCapacity& now) {
  prometheus::MetricFamily free_gpus =
      Family("topoplace_free_gpus", "Free GPUs on usable hosts, per domain of each placement level",
             prometheus::MetricType::Gauge);
  prometheus::MetricFamily largest_gpus =
      Family("topoplace_largest_placeable_gpus",
             "GPUs of the largest whole-host job one domain of the level can take now",
             prometheus::MetricType::Gauge);
  prometheus::MetricFamily largest_hosts =
      Family("topoplace_largest_placeable_hosts",
             "Hosts (trays) of the largest whole-host job one domain of the level can take now",
             prometheus::MetricType::Gauge);
  for (const sched::FreeCapacity::Level& level : now.levels) {
    for (const sched::FreeCapacity::Domain& d : level.domains) {
      Add(free_gpus, static_cast<double>(d.free_gpus),
          {{"level", level.level}, {"domain", d.name}});
    }
    Add(largest_gpus, static_cast<double>(level.largest_gpus), {{"level", level.level}});
    Add(largest_hosts, static_cast<double>(level.largest_hosts), {{"level", level.level}});
  }
  prometheus::MetricFamily runs =
      Family("topoplace_idle_hosts_by_run",
             "Idle hosts by the number of idle hosts in their NVLink domain (or block): "
             "segment sizes",
             prometheus::MetricType::Gauge);
  for (const auto& [size, hosts] : now.idle_hosts_by_run) {
    Add(runs, static_cast<double>(hosts), {{"size", absl::StrCat(size)}});
  }
  return {std::move(free_gpus), std::move(largest_gpus), std::move(largest_hosts), std::move(runs)};
}

}  // namespace

// Families computed at every scrape from a source given later (the ledger's state, the
// free capacity): none until then.
class DaemonMetrics::ScrapeCollectable : public prometheus::Collectable {
 public:
  void Set(std::function<std::vector<prometheus::MetricFamily>()> collect) {
    absl::MutexLock lock(&mu_);
    collect_ = std::move(collect);
  }
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::function<std::vector<prometheus::MetricFamily>()> collect;
    {
      absl::MutexLock lock(&mu_);
      collect = collect_;
    }
    return collect ? collect() : std::vector<prometheus::MetricFamily>{};
  }

 private:
  mutable absl::Mutex mu_;
  std::function<std::vector<prometheus::MetricFamily>()> collect_ ABSL_GUARDED_BY(mu_);
};

DaemonMetrics::DaemonMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      ledger_(std::make_shared<ScrapeCollectable>()),
      capacity_(std::make_shared<ScrapeCollectable>()),
      probe_latency_(prometheus::BuildHistogram()
                         .Name("topoplace_probe_latency_seconds")
                         .Help("One-way link probe latency (median ping-pong / 2) by tier")
                         .Register(*registry_)),
      probe_bandwidth_(prometheus::BuildHistogram()
                           .Name("topoplace_probe_bandwidth_bytes_per_second")
                           .Help("Link probe streaming bandwidth by tier")
                           .Register(*registry_)),
      probe_results_(prometheus::BuildCounter()
                         .Name("topoplace_probe_results_total")
                         .Help("Probe results received, by outcome")
                         .Register(*registry_)),
      links_(prometheus::BuildGauge()
                 .Name("topoplace_links")
                 .Help("Fabric links by telemetry health state")
                 .Register(*registry_)),
      link_state_(prometheus::BuildGauge()
                      .Name("topoplace_link_health_state")
                      .Help("Health of links telemetry judges unhealthy: 1 degraded, 2 down")
                      .Register(*registry_)),
      health_changes_(prometheus::BuildCounter()
                          .Name("topoplace_link_health_changes_total")
                          .Help("Link health state changes, by new state")
                          .Register(*registry_)),
      error_rate_(prometheus::BuildGauge()
                      .Name("topoplace_port_receive_errors_per_second")
                      .Help("Receive error rate from port counters, per NIC")
                      .Register(*registry_)),
      rejected_(prometheus::BuildCounter()
                    .Name("topoplace_telemetry_rejected_reports_total")
                    .Help("Telemetry reports rejected as invalid, by kind")
                    .Register(*registry_)),
      placement_(prometheus::BuildHistogram()
                     .Name("topoplace_placement_duration_seconds")
                     .Help("Time the placement engine took per placement, by result")
                     .Register(*registry_)),
      rpcs_(prometheus::BuildCounter()
                .Name("topoplace_rpc_requests_total")
                .Help("gRPC requests handled, by method and status code")
                .Register(*registry_)),
      refused_(prometheus::BuildCounter()
                   .Name("topoplace_refused_requests_total")
                   .Help("Place and Reserve requests refused for want of room, by the level "
                         "the job was bound to")
                   .Register(*registry_)) {
  for (LinkVerdict v : {LinkVerdict::kHealthy, LinkVerdict::kDegraded, LinkVerdict::kDown}) {
    links_.Add({{"health", std::string(LinkVerdictName(v))}});
  }
}

DaemonMetrics::~DaemonMetrics() = default;

void DaemonMetrics::ObserveProbe(Tier tier, double latency_us, double bandwidth_gbps,
                                 bool reachable) {
  probe_results_.Add({{"result", reachable ? "reachable" : "unreachable"}}).Increment();
  if (!reachable) return;
  if (latency_us > 0) {
    probe_latency_.Add({{"tier", TierLabel(tier)}}, LatencyBuckets()).Observe(latency_us * 1e-6);
  }
  if (bandwidth_gbps > 0) {
    probe_bandwidth_.Add({{"tier", TierLabel(tier)}}, BandwidthBuckets())
        .Observe(bandwidth_gbps * 1e9 / 8);
  }
}

void DaemonMetrics::SetLinkHealth(const std::string& link, LinkVerdict verdict) {
  absl::MutexLock lock(&mu_);
  auto it = link_gauges_.find(link);
  if (verdict == LinkVerdict::kHealthy) {
    if (it != link_gauges_.end()) {
      link_state_.Remove(it->second);
      link_gauges_.erase(it);
    }
    return;
  }
  if (it == link_gauges_.end()) {
    it = link_gauges_.emplace(link, &link_state_.Add({{"link", link}})).first;
  }
  it->second->Set(static_cast<double>(verdict));
}

void DaemonMetrics::SetLinkCounts(int healthy, int degraded, int down) {
  links_.Add({{"health", "healthy"}}).Set(healthy);
  links_.Add({{"health", "degraded"}}).Set(degraded);
  links_.Add({{"health", "down"}}).Set(down);
}

void DaemonMetrics::CountHealthChange(LinkVerdict to) {
  health_changes_.Add({{"to", std::string(LinkVerdictName(to))}}).Increment();
}

void DaemonMetrics::SetReceiveErrorRate(const std::string& endpoint, double per_second) {
  error_rate_.Add({{"endpoint", endpoint}}).Set(per_second);
}

void DaemonMetrics::CountRejectedReport(const std::string& kind) {
  rejected_.Add({{"kind", kind}}).Increment();
}

void DaemonMetrics::ObservePlacement(absl::Duration elapsed, bool ok) {
  placement_.Add({{"result", ok ? "ok" : "error"}}, PlacementBuckets())
      .Observe(absl::ToDoubleSeconds(elapsed));
}

void DaemonMetrics::CountRpc(const std::string& method, const std::string& code) {
  rpcs_.Add({{"method", method}, {"code", code}}).Increment();
}

void DaemonMetrics::CountRefused(const std::string& level) {
  refused_.Add({{"level", level}}).Increment();
}

void DaemonMetrics::SetLedgerSource(std::function<LedgerGauges()> source) {
  ledger_->Set([source = std::move(source)] { return LedgerFamilies(source()); });
}

void DaemonMetrics::SetCapacitySource(std::function<sched::FreeCapacity()> source) {
  capacity_->Set([source = std::move(source)] { return CapacityFamilies(source()); });
}

std::string DaemonMetrics::Render() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (const auto& source : {ledger_, capacity_}) {
    std::vector<prometheus::MetricFamily> more = source->Collect();
    families.insert(families.end(), more.begin(), more.end());
  }
  return prometheus::TextSerializer().Serialize(families);
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address,
                                                                    const DaemonMetrics& metrics,
                                                                    BasicAuthCheck auth) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  try {
    server->exposer_ = std::make_unique<prometheus::Exposer>(address, 2);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("metrics_listen: cannot serve /metrics on '", address, "': ", e.what()));
  }
  server->exposer_->RegisterCollectable(metrics.registry());
  server->exposer_->RegisterCollectable(metrics.ledger_);
  server->exposer_->RegisterCollectable(metrics.capacity_);
  if (auth) server->exposer_->RegisterAuth(std::move(auth), "topoplace");
  std::vector<int> ports = server->exposer_->GetListeningPorts();
  server->port_ = ports.empty() ? 0 : ports.front();
  return server;
}

MetricsServer::~MetricsServer() = default;

}  // namespace topoplace::telemetry
