#include "api/server/console/console_views.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "api/server/services/current_uplink_load.h"
#include "api/server/services/proto_convert.h"
#include "api/server/services/telemetry_path_view.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"
#include "scheduler/state/free_capacity.h"
#include "telemetry/health/fabric_health_model.h"
#include "telemetry/health/job_path.h"

namespace topoplace::server {
namespace {

using nlohmann::json;

// How many of the newest health events, counter rates and port readings a page shows.
constexpr int kTimelineEvents = 200;
constexpr int kCounterRows = 500;

// 0 up / healthy, 1 degraded, 2 down: the worse of the declared state and telemetry's.
int Severity(const Fabric& fabric, LinkId link, const HealthMonitor* health) {
  const LinkState state =
      EffectiveState(fabric, link, health ? health->Link(link) : telemetry::LinkHealthView{});
  return state == LinkState::kDown ? 2 : state == LinkState::kDegraded ? 1 : 0;
}

constexpr const char* kStateNames[] = {"up", "degraded", "down"};

// The switch end of a link whose other end is a switch of a lower tier: the lower one.
std::optional<SwitchId> LowerSwitch(const Fabric& fabric, const Link& link) {
  if (link.a.kind != Endpoint::Kind::kSwitch || link.b.kind != Endpoint::Kind::kSwitch) {
    return std::nullopt;
  }
  const int ta = fabric.switches()[link.a.id].tier, tb = fabric.switches()[link.b.id].tier;
  if (ta == tb) return std::nullopt;
  return ta < tb ? link.a.id : link.b.id;
}

std::optional<double> ShareOf(const std::vector<double>& load, SwitchId s) {
  if (s < 0 || static_cast<size_t>(s) >= load.size()) return std::nullopt;
  return load[s];
}

int64_t Millis(absl::Time t) {
  return t == absl::InfiniteFuture() || t == absl::InfinitePast() ? 0 : absl::ToUnixMillis(t);
}

json AllocationSummary(const ledger::Allocation& a, absl::Time now) {
  const v1::Allocation proto = AllocationToProto(a);
  absl::flat_hash_set<absl::string_view> hosts;
  for (const ledger::GpuRef& g : a.gpus) hosts.insert(g.host);
  json out = {{"id", a.id},
              {"state", std::string(ledger::AllocationStateName(a.state))},
              {"external_id", a.external_id},
              {"job_spec", a.job_spec},
              {"policy", a.policy},
              {"priority", proto.priority()},
              {"gpus", a.gpus.size()},
              {"hosts", hosts.size()},
              {"created_unix_ms", Millis(a.created_at)},
              {"age_seconds", absl::ToInt64Seconds(now - a.created_at)}};
  if (a.state == ledger::AllocationState::kReserved) {
    out["expires_unix_ms"] = Millis(a.expires_at);
    out["ttl_seconds"] = std::max<int64_t>(0, absl::ToInt64Seconds(a.expires_at - now));
  } else {
    out["ttl_seconds"] = nullptr;
  }
  return out;
}

json LinkJson(const Fabric& fabric, LinkId link, const HealthMonitor* health) {
  v1::LinkHealth h;
  FillLinkHealth(fabric, link, health ? health->Link(link) : telemetry::LinkHealthView{}, h);
  return {{"name", h.name()},
          {"a", h.a()},
          {"b", h.b()},
          {"state", h.state()},
          {"health", h.health()},
          {"reason", h.reason()},
          {"speed_gbps", fabric.links()[link].bandwidth_gbps()}};
}

// Names come from fabric files and agent reports: bytes that are not UTF-8 are replaced.
std::string Dump(const json& document) {
  return document.dump(-1, ' ', false, json::error_handler_t::replace);
}

json EventJson(const store::HealthEvent& e) {
  return {{"link", e.link},
          {"from", e.from},
          {"to", e.to},
          {"reason", e.reason},
          {"at_unix_ms", e.at_unix_ms}};
}

// The worst health of each host's access links and of each block's uplinks (0 healthy,
// 1 degraded, 2 down), and how many links are degraded and down.
struct LinkSeverities {
  std::vector<int> host, block;
  int degraded = 0, down = 0;
};

LinkSeverities SeveritiesOf(const Fabric& fabric, const HealthMonitor* health) {
  LinkSeverities out{.host = std::vector<int>(fabric.hosts().size(), 0),
                     .block = std::vector<int>(fabric.blocks().size(), 0)};
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const int severity = Severity(fabric, l, health);
    if (severity == 0) continue;
    (severity == 1 ? out.degraded : out.down) += 1;
    const Link& link = fabric.links()[l];
    for (const Endpoint& e : {link.a, link.b}) {
      if (e.kind == Endpoint::Kind::kNic) {
        int& h = out.host[fabric.nics()[e.id].host];
        h = std::max(h, severity);
      }
    }
    if (std::optional<SwitchId> lower = LowerSwitch(fabric, link)) {
      const int block = fabric.switches()[*lower].block;
      if (block >= 0) out.block[block] = std::max(out.block[block], severity);
    }
  }
  return out;
}

// The bytes a stored plan's "links" list gives each link, by "lower--upper" and
// "upper--lower" (malformed entries skipped: the plan is the daemon's own, but old).
absl::flat_hash_map<std::string, double> PlanLinkBytes(const json& plan) {
  absl::flat_hash_map<std::string, double> link_bytes;
  if (!plan.contains("links") || !plan["links"].is_array()) return link_bytes;
  for (const json& l : plan["links"]) {
    if (!l.is_object() || !l.contains("lower") || !l["lower"].is_string() || !l.contains("upper") ||
        !l["upper"].is_string()) {
      continue;
    }
    double bytes = 0;
    for (const char* key : {"up_bytes", "down_bytes"}) {
      if (l.contains(key) && l[key].is_number()) bytes += l[key].get<double>();
    }
    const std::string lower = l["lower"], upper = l["upper"];
    link_bytes[absl::StrCat(lower, "--", upper)] = bytes;
    link_bytes[absl::StrCat(upper, "--", lower)] = bytes;
  }
  return link_bytes;
}

}  // namespace

absl::StatusOr<std::string> SnapshotJson(const ServiceContext& context, absl::Time now) {
  const Fabric& fabric = *context.fabric;
  const HealthMonitor* health = context.health;
  const std::vector<double> load = CurrentUplinkLoad(context, now);

  const LinkSeverities severity = SeveritiesOf(fabric, health);
  json blocks = json::array();
  for (size_t b = 0; b < fabric.blocks().size(); ++b) {
    const Block& block = fabric.blocks()[b];
    double share = 0;
    for (SwitchId leaf : block.leaves) share = std::max(share, ShareOf(load, leaf).value_or(0));
    blocks.push_back({{"pod", block.pod},
                      {"hosts", block.hosts},
                      {"uplink_load", share},
                      {"health", kStateNames[severity.block[b]]}});
  }
  json pods = json::array();
  for (const Pod& pod : fabric.pods()) pods.push_back(pod.blocks);
  json racks = json::array();
  for (const std::vector<HostId>& domain : fabric.nvlink_domains()) {
    if (domain.size() > 1) racks.push_back(domain);
  }

  // Live allocations, and the owner of each GPU (index into "allocations", -1 free).
  json allocations = json::array();
  std::vector<int32_t> owner(fabric.gpus().size(), -1);
  context.ledger->ForEachLive([&](const ledger::Allocation& a) {
    const int32_t index = static_cast<int32_t>(allocations.size());
    allocations.push_back(AllocationSummary(a, now));
    for (const ledger::GpuRef& ref : a.gpus) {
      if (std::optional<GpuId> g = fabric.FindGpu(ref.host, ref.index)) owner[*g] = index;
    }
  });

  json names = json::array(), host_block = json::array(), host_rack = json::array(),
       host_gpus = json::array(), host_health = json::array(), gpu_owner = json::array();
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    const Host& host = fabric.hosts()[h];
    names.push_back(host.name);
    host_block.push_back(host.block);
    host_rack.push_back(host.nvlink_domain_id);
    host_gpus.push_back(host.gpus.size());
    host_health.push_back(severity.host[h]);
    for (GpuId g : host.gpus) gpu_owner.push_back(owner[g]);
  }
  json out = {{"schema", "topoplace.console.snapshot/v1"},
              {"at_unix_ms", absl::ToUnixMillis(now)},
              {"fabric",
               {{"name", fabric.name()},
                {"version", context.fabric_version},
                {"hosts", fabric.hosts().size()},
                {"gpus", fabric.gpus().size()},
                {"blocks", fabric.blocks().size()},
                {"max_tier", fabric.max_tier()}}},
              {"pods", std::move(pods)},
              {"blocks", std::move(blocks)},
              {"racks", std::move(racks)},
              {"hosts",
               {{"name", std::move(names)},
                {"block", std::move(host_block)},
                {"rack", std::move(host_rack)},
                {"gpus", std::move(host_gpus)},
                {"health", std::move(host_health)}}},
              {"gpu_owner", std::move(gpu_owner)},
              {"allocations", std::move(allocations)},
              {"links", {{"degraded", severity.degraded}, {"down", severity.down}}}};
  return Dump(out);
}

absl::StatusOr<std::string> AllocationsJson(const ServiceContext& context, absl::Time now) {
  json list = json::array();
  context.ledger->ForEachLive(
      [&](const ledger::Allocation& a) { list.push_back(AllocationSummary(a, now)); });
  json out = {{"schema", "topoplace.console.allocations/v1"},
              {"at_unix_ms", absl::ToUnixMillis(now)},
              {"allocations", std::move(list)}};
  return Dump(out);
}

absl::StatusOr<std::string> JobJson(const ServiceContext& context, absl::string_view id,
                                    absl::Time now) {
  TP_ASSIGN_OR_RETURN(ledger::Allocation allocation, context.ledger->Get(std::string(id)));
  const Fabric& fabric = *context.fabric;
  const HealthMonitor* health = context.health;
  const std::vector<double> load = CurrentUplinkLoad(context, now);

  // Hosts in the order the allocation lists its GPUs, with their GPU indices.
  json hosts = json::array();
  absl::flat_hash_map<std::string, size_t> host_index;
  for (const ledger::GpuRef& ref : allocation.gpus) {
    auto [it, fresh] = host_index.try_emplace(ref.host, hosts.size());
    if (fresh) hosts.push_back({{"name", ref.host}, {"gpus", json::array()}});
    hosts[it->second]["gpus"].push_back(ref.index);
  }

  // What the stored plan says: ranks, bytes per tier, bytes per link (when it kept them).
  json ranks = json::array(), bytes_per_tier = json::object();
  std::string how;
  json predicted = nullptr;  // the plan's predicted step: absent in plans older than it
  absl::flat_hash_map<std::string, double> link_bytes;
  const json plan = json::parse(allocation.plan_json, nullptr, /*allow_exceptions=*/false);
  if (plan.is_object()) {
    if (plan.contains("ranks")) ranks = plan["ranks"];
    if (plan.contains("bytes_per_tier")) bytes_per_tier = plan["bytes_per_tier"];
    if (plan.contains("how") && plan["how"].is_string()) how = plan["how"];
    if (plan.contains("predicted_slowdown") && plan["predicted_slowdown"].is_number() &&
        plan.contains("predicted_step_seconds") && plan["predicted_step_seconds"].is_number()) {
      predicted = {{"slowdown", plan["predicted_slowdown"]},
                   {"step_seconds", plan["predicted_step_seconds"]}};
    }
    link_bytes = PlanLinkBytes(plan);
  }

  // The path view, with each link's recent events.
  const telemetry::JobPath path =
      telemetry::PathOfGpus(fabric, GpusOfAllocation(fabric, allocation));
  absl::flat_hash_map<std::string, std::vector<store::HealthEvent>> events_by_link;
  TP_ASSIGN_OR_RETURN(std::vector<store::HealthEvent> recent,
                      context.telemetry->RecentHealthEvents(kTimelineEvents));
  for (store::HealthEvent& e : recent) events_by_link[e.link].push_back(std::move(e));
  json links = json::array();
  for (LinkId l : path.links) {
    json link = LinkJson(fabric, l, health);
    const std::string name = link["name"];
    if (std::optional<SwitchId> lower = LowerSwitch(fabric, fabric.links()[l])) {
      if (std::optional<double> share = ShareOf(load, *lower)) link["uplink_load"] = *share;
    }
    if (auto it = link_bytes.find(name); it != link_bytes.end()) link["plan_bytes"] = it->second;
    json events = json::array();
    if (auto it = events_by_link.find(name); it != events_by_link.end()) {
      for (const store::HealthEvent& e : it->second) events.push_back(EventJson(e));
    }
    link["events"] = std::move(events);
    links.push_back(std::move(link));
  }
  json switches = json::array();
  for (SwitchId s : path.switches) {
    json sw = {{"name", fabric.switches()[s].name}, {"tier", fabric.switches()[s].tier}};
    sw["health"] = health ? SwitchHealthOf(fabric, s, *health).health() : "healthy";
    if (std::optional<double> share = ShareOf(load, s)) sw["uplink_load"] = *share;
    switches.push_back(std::move(sw));
  }
  json out = {{"schema", "topoplace.console.job/v1"},
              {"at_unix_ms", absl::ToUnixMillis(now)},
              {"allocation", AllocationSummary(allocation, now)},
              {"how", how},
              {"predicted", std::move(predicted)},
              {"hosts", std::move(hosts)},
              {"ranks", std::move(ranks)},
              {"bytes_per_tier", std::move(bytes_per_tier)},
              {"links", std::move(links)},
              {"switches", std::move(switches)}};
  return Dump(out);
}

absl::StatusOr<std::string> LinksJson(const ServiceContext& context, absl::Time now) {
  const Fabric& fabric = *context.fabric;
  const HealthMonitor* health = context.health;
  std::vector<LinkId> unhealthy;
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    if (Severity(fabric, l, health) > 0) unhealthy.push_back(l);
  }
  // Blast radius: the live allocations whose path crosses each unhealthy link.
  std::vector<json> touched(unhealthy.size(), json::array());
  if (!unhealthy.empty()) {
    context.ledger->ForEachLive([&](const ledger::Allocation& a) {
      const telemetry::JobPath path = telemetry::PathOfGpus(fabric, GpusOfAllocation(fabric, a));
      for (size_t i = 0; i < unhealthy.size(); ++i) {
        if (!path.TouchesLink(unhealthy[i])) continue;
        touched[i].push_back({{"id", a.id}, {"external_id", a.external_id}});
      }
    });
  }
  json links = json::array();
  for (size_t i = 0; i < unhealthy.size(); ++i) {
    json link = LinkJson(fabric, unhealthy[i], health);
    if (health != nullptr) {
      const absl::Time since = health->LastTurnedBad(unhealthy[i]);
      link["since_unix_ms"] = Millis(since);
    }
    link["allocations"] = std::move(touched[i]);
    links.push_back(std::move(link));
  }
  json timeline = json::array();
  TP_ASSIGN_OR_RETURN(std::vector<store::HealthEvent> events,
                      context.telemetry->RecentHealthEvents(kTimelineEvents));
  for (const store::HealthEvent& e : events) timeline.push_back(EventJson(e));
  json rates = json::array();
  TP_ASSIGN_OR_RETURN(std::vector<store::CounterRateRow> rows,
                      context.telemetry->LatestCounterRates(kCounterRows));
  for (const store::CounterRateRow& r : rows) {
    rates.push_back({{"endpoint", r.endpoint},
                     {"counter", r.counter},
                     {"per_second", r.per_second},
                     {"at_unix_ms", r.at_unix_ms}});
  }
  json ports = json::array();
  TP_ASSIGN_OR_RETURN(std::vector<v1::PortCounters> readings,
                      context.telemetry->LatestPortCounters(kCounterRows));
  for (const v1::PortCounters& c : readings) {
    ports.push_back({{"endpoint", c.endpoint()},
                     {"port", c.port()},
                     {"peer", c.peer()},
                     {"rx_errors", c.rx_errors()},
                     {"tx_discards", c.tx_discards()},
                     {"ecn_marked", c.ecn_marked()},
                     {"cnp_sent", c.cnp_sent()},
                     {"link_downs", c.link_downs()},
                     {"tx_bytes", c.tx_bytes()},
                     {"at_unix_ms", c.measured_unix_ms()}});
  }
  json out = {{"schema", "topoplace.console.links/v1"}, {"at_unix_ms", absl::ToUnixMillis(now)},
              {"unhealthy", std::move(links)},          {"events", std::move(timeline)},
              {"counter_rates", std::move(rates)},      {"port_counters", std::move(ports)}};
  return Dump(out);
}

absl::StatusOr<std::string> CapacityJson(const ServiceContext& context, absl::Time now) {
  const Fabric& fabric = *context.fabric;
  const sched::FreeCapacity free = sched::MeasureFreeCapacity(fabric, context.ledger->Occupancy(),
                                                              context.engine->Current()->health());
  json levels = json::array();
  int64_t largest_domain = 0;
  for (const sched::FreeCapacity::Level& level : free.levels) {
    json domains = json::array();
    for (const sched::FreeCapacity::Domain& d : level.domains) {
      domains.push_back({{"name", d.name},
                         {"hosts", d.hosts},
                         {"free_hosts", d.free_hosts},
                         {"free_gpus", d.free_gpus}});
      if (level.level != "cluster") largest_domain = std::max(largest_domain, d.hosts);
    }
    levels.push_back({{"level", level.level},
                      {"largest_hosts", level.largest_hosts},
                      {"largest_gpus", level.largest_gpus},
                      {"domains", std::move(domains)}});
  }
  // Job sizes of 1, 2, 4, ... whole hosts, up to the largest domain below the cluster (or
  // the cluster), and how many domains of each level take one now.
  if (largest_domain == 0) largest_domain = static_cast<int64_t>(fabric.hosts().size());
  const int64_t gpus_per_host =
      fabric.hosts().empty() ? 0 : static_cast<int64_t>(fabric.hosts().front().gpus.size());
  json fits = json::array();
  for (int64_t hosts = 1; hosts <= largest_domain; hosts *= 2) {
    json domains = json::object();
    for (const sched::FreeCapacity::Level& level : free.levels) {
      int64_t count = 0;
      for (const sched::FreeCapacity::Domain& d : level.domains) {
        count += d.free_hosts >= hosts ? 1 : 0;
      }
      domains[level.level] = count;
    }
    fits.push_back({{"hosts", hosts}, {"gpus", hosts * gpus_per_host}, {"domains", domains}});
  }
  json runs = json::array();
  for (const auto& [size, hosts] : free.idle_hosts_by_run) {
    runs.push_back({{"size", size}, {"hosts", hosts}});
  }
  json refusals = json::array();
  int64_t refusals_total = 0;
  if (context.refusals) {
    for (const RefusalLog::Entry& e : context.refusals->Newest()) {
      refusals.push_back({{"at_unix_ms", absl::ToUnixMillis(e.at)},
                          {"job_spec", e.job_spec},
                          {"level", e.level},
                          {"message", e.message}});
    }
    refusals_total = context.refusals->total();
  }
  json out = {{"schema", "topoplace.console.capacity/v1"},
              {"at_unix_ms", absl::ToUnixMillis(now)},
              {"levels", std::move(levels)},
              {"fits", std::move(fits)},
              {"idle_hosts_by_run", std::move(runs)},
              {"refusals", std::move(refusals)},
              {"refusals_total", refusals_total}};
  return Dump(out);
}

}  // namespace topoplace::server
