#include "scheduler/sim/faults.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace topoplace::sched::sim {
namespace {

constexpr double kDay = 86400;

// Uniform in [0, 1) from the top 53 bits (as synthetic_trace.cc).
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
double Exponential(std::mt19937_64& rng, double mean) { return -mean * std::log1p(-Uniform(rng)); }

// One Poisson process: events on elements 0..count-1 at `per_element_per_day` each.
void Draw(std::mt19937_64& rng, FaultElement::Type type, const std::vector<int32_t>& ids,
          FaultKind kind, double per_element_per_day, double mean_duration_s, double capacity,
          double start_s, double end_s, std::vector<FaultEvent>& out) {
  const double rate_per_s = per_element_per_day * static_cast<double>(ids.size()) / kDay;
  if (!(rate_per_s > 0)) return;
  for (double t = start_s + Exponential(rng, 1 / rate_per_s); t < end_s;
       t += Exponential(rng, 1 / rate_per_s)) {
    FaultEvent e;
    e.time_s = t;
    e.element = {type, ids[static_cast<size_t>(Uniform(rng) * static_cast<double>(ids.size()))]};
    e.kind = kind;
    // At least a second: a zero-length fault would be no fault.
    e.duration_s = std::max(1.0, Exponential(rng, mean_duration_s));
    e.capacity = kind == FaultKind::kDegrade ? capacity : 0;
    out.push_back(e);
  }
}

std::vector<int32_t> Iota(size_t n) {
  std::vector<int32_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>(i);
  return ids;
}

}  // namespace

FaultRates PublishedFaultRates() {
  FaultRates r;
  // Hosts: 289 hardware interruptions of hosts (faulty GPU 148, GPU HBM3 72, GPU SRAM 19,
  // GPU system processor 17, NIC 7, silent data corruption 6, GPU thermal/sensor 6, SSD 3,
  // power supply 3, server chassis 2, IO expansion board 2, CPU 2, system memory 2) of the
  // 419 unexpected interruptions in a 54-day snapshot of Llama 3 405B pre-training on
  // 16,384 H100 GPUs (2,048 hosts of 8): "The Llama 3 Herd of Models", Meta 2024, section
  // 3.3.4, Table 5 (software bugs, unplanned host maintenance, NCCL timeouts and
  // dependencies left out). 289 / (2,048 x 54) = 2.61 per 1,000 host-days, between the
  // 2.34 and 6.50 per 1,000 node-days Meta reports for its RSC-2 and RSC-1 clusters
  // (Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning Research
  // Clusters", HPCA 2025).
  r.host_fail_per_day = 289.0 / (2048.0 * 54.0);
  // Switches: about 0.051% of ToR switches crash or hit critical errors per month; links:
  // 0.057% of NIC-ToR links fail per month ("Alibaba HPN: A Data Center Network for Large
  // Language Model Training", SIGCOMM 2024, section 2.3). Applied to every switch and
  // every link: HPN gives no separate rate for spines or inter-switch cables. Cross-check:
  // Llama 3's Table 5 counts 35 network switch/cable interruptions in the same 54 days on
  // 2,048 hosts; on rail-28k (3,584 hosts, 29,696 links, 288 switches) these rates give
  // 0.57 failures a day, Llama 3's rate scaled to its hosts 1.1 a day.
  r.switch_fail_per_day = 0.00051 / 30;
  r.link_fail_per_day = 0.00057 / 30;
  // Degradations (lanes lost, error bursts, flapping): no public per-link rate found (HPN
  // counts 5K-60K flaps a day without the cluster's size; ByteDance's MegaScale, NSDI 2024,
  // names flapping NIC-AOC-switch links without a rate). Assumed: as frequent as link
  // failures. A stated assumption, not a figure: scale it with the fault scale.
  r.link_degrade_per_day = r.link_fail_per_day;
  // Repair and degradation times: no public MTTR for AI fabrics found (HPC repair times
  // range from under an hour to over a day: Schroeder and Gibson, "A large-scale study of
  // failures in high-performance computing systems", DSN 2006). Assumed: a host is
  // drained and repaired in a day, a switch replaced in 4 hours, a cable reseated or
  // replaced in 2 hours, a degradation lasts 2 hours.
  r.host_repair_s = kDay;
  r.switch_repair_s = 4 * 3600;
  r.link_repair_s = 2 * 3600;
  r.degrade_duration_s = 2 * 3600;
  // A 4x link that trains down to 2x keeps half its lanes (InfiniBand link width
  // downgrade, IBTA spec vol. 2: widths 4x, 2x, 1x).
  r.degrade_capacity = 0.5;
  return r;
}

absl::StatusOr<FaultSchedule> GenerateFaults(const Fabric& fabric, const FaultRates& rates,
                                             double start_s, double end_s, uint64_t seed) {
  for (double rate : {rates.host_fail_per_day, rates.switch_fail_per_day, rates.link_fail_per_day,
                      rates.link_degrade_per_day, rates.scale}) {
    if (!(rate >= 0) || !std::isfinite(rate)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fault model: rates and scale must be finite and >= 0, got ", rate));
    }
  }
  for (double d : {rates.host_repair_s, rates.switch_repair_s, rates.link_repair_s,
                   rates.degrade_duration_s}) {
    if (!(d > 0) || !std::isfinite(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fault model: durations must be finite and > 0 s, got ", d));
    }
  }
  if (!(rates.degrade_capacity > 0 && rates.degrade_capacity < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fault model: a degraded link keeps a share in (0, 1), got ", rates.degrade_capacity));
  }
  if (!(end_s >= start_s)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fault model: interval [", start_s, ", ", end_s, ") is empty"));
  }
  FaultSchedule schedule;
  schedule.source = absl::StrCat("model:published x ", rates.scale);
  // One generator per process, each seeded from `seed` and its index, so that adding a
  // kind or changing one rate leaves the other kinds' events where they were.
  const std::vector<int32_t> hosts = Iota(fabric.hosts().size());
  const std::vector<int32_t> switches = Iota(fabric.switches().size());
  const std::vector<int32_t> links = Iota(fabric.links().size());
  using T = FaultElement::Type;
  struct Process {
    T type;
    const std::vector<int32_t>* ids;
    FaultKind kind;
    double per_day, duration;
  };
  const Process processes[] = {
      {T::kHost, &hosts, FaultKind::kFail, rates.host_fail_per_day, rates.host_repair_s},
      {T::kSwitch, &switches, FaultKind::kFail, rates.switch_fail_per_day, rates.switch_repair_s},
      {T::kLink, &links, FaultKind::kFail, rates.link_fail_per_day, rates.link_repair_s},
      {T::kLink, &links, FaultKind::kDegrade, rates.link_degrade_per_day, rates.degrade_duration_s},
  };
  for (size_t i = 0; i < std::size(processes); ++i) {
    const Process& p = processes[i];
    std::mt19937_64 rng(seed * 1000003 + i);
    Draw(rng, p.type, *p.ids, p.kind, p.per_day * rates.scale, p.duration, rates.degrade_capacity,
         start_s, end_s, schedule.events);
  }
  std::stable_sort(schedule.events.begin(), schedule.events.end(),
                   [](const FaultEvent& a, const FaultEvent& b) { return a.time_s < b.time_s; });
  return schedule;
}

std::string FaultElementName(const Fabric& fabric, const FaultElement& element) {
  switch (element.type) {
    case FaultElement::Type::kHost:
      return absl::StrCat("host:", fabric.hosts()[element.id].name);
    case FaultElement::Type::kSwitch:
      return absl::StrCat("switch:", fabric.switches()[element.id].name);
    case FaultElement::Type::kLink: {
      const Link& link = fabric.links()[element.id];
      return absl::StrCat("link:", fabric.EndpointName(link.a), "--", fabric.EndpointName(link.b));
    }
  }
  return "";
}

absl::StatusOr<FaultElement> ParseFaultElement(const Fabric& fabric, absl::string_view name) {
  absl::string_view rest = name;
  if (absl::ConsumePrefix(&rest, "host:")) {
    if (std::optional<HostId> h = fabric.FindHost(rest)) {
      return FaultElement{FaultElement::Type::kHost, *h};
    }
    return absl::NotFoundError(absl::StrCat("no host '", rest, "' in fabric ", fabric.name()));
  }
  if (absl::ConsumePrefix(&rest, "switch:")) {
    if (std::optional<SwitchId> s = fabric.FindSwitch(rest)) {
      return FaultElement{FaultElement::Type::kSwitch, *s};
    }
    return absl::NotFoundError(absl::StrCat("no switch '", rest, "' in fabric ", fabric.name()));
  }
  if (absl::ConsumePrefix(&rest, "link:")) {
    const size_t dash = rest.find("--");
    if (dash == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("link '", rest, "': expected link:END--END"));
    }
    const absl::string_view a = rest.substr(0, dash), b = rest.substr(dash + 2);
    const std::vector<Link>& links = fabric.links();
    for (LinkId l = 0; l < static_cast<LinkId>(links.size()); ++l) {
      const std::string ea = fabric.EndpointName(links[l].a);
      const std::string eb = fabric.EndpointName(links[l].b);
      if ((ea == a && eb == b) || (ea == b && eb == a)) {
        return FaultElement{FaultElement::Type::kLink, l};
      }
    }
    return absl::NotFoundError(
        absl::StrCat("no link between '", a, "' and '", b, "' in fabric ", fabric.name()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("element '", name, "': expected host:NAME, switch:NAME or link:END--END"));
}

absl::string_view FaultKindName(FaultKind kind) {
  return kind == FaultKind::kFail ? "fail" : "degrade";
}

}  // namespace topoplace::sched::sim
