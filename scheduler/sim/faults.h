// Faults the simulator replays: hosts, switches and links that fail (down until repaired)
// and links that degrade (a share of their capacity lost for a time). A schedule comes
// either from a seeded Poisson process over the fabric's real elements at published rates
// (GenerateFaults) or from an operator's fault trace (fault_trace.h).
//
//   FaultRates rates = PublishedFaultRates();
//   rates.scale = 4;   // four times the published rates
//   TP_ASSIGN_OR_RETURN(FaultSchedule s, GenerateFaults(fabric, rates, 0, horizon_s, seed));
//
// Every rate and duration of PublishedFaultRates names its source beside its value in
// faults.cc; where no source gives a figure, the comment says so and what was assumed.
#ifndef TOPOPLACE_SCHEDULER_SIM_FAULTS_H_
#define TOPOPLACE_SCHEDULER_SIM_FAULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// What a fault hits: one host (all its GPUs), one switch (every link on it), or one link
// entry of the fabric (all its parallel cables).
struct FaultElement {
  enum class Type : uint8_t { kHost, kSwitch, kLink };
  Type type = Type::kLink;
  int32_t id = -1;  // HostId, SwitchId or LinkId
  friend bool operator==(const FaultElement&, const FaultElement&) = default;
};

enum class FaultKind : uint8_t {
  kFail,     // down until repaired: jobs crossing it are interrupted
  kDegrade,  // usable at `capacity` of its speed (links only): jobs crossing it slow down
};

struct FaultEvent {
  double time_s = 0;
  FaultElement element;
  FaultKind kind = FaultKind::kFail;
  double duration_s = 0;  // until repaired (fail) or restored (degrade); > 0
  double capacity = 0;    // kDegrade: share of the link's capacity left, in (0, 1)
  int line = 0;           // line in a fault trace, 0 when generated
};

struct FaultSchedule {
  std::string source;              // file name, or "model:published x SCALE"
  std::vector<FaultEvent> events;  // sorted by time
};

// Per-element rates (events per element per day) and mean durations, and a factor on the
// rates. Durations are drawn exponentially around their mean.
struct FaultRates {
  double host_fail_per_day = 0;
  double switch_fail_per_day = 0;
  double link_fail_per_day = 0;  // per link entry (a cable, or a bundle of them)
  double link_degrade_per_day = 0;
  double host_repair_s = 0;
  double switch_repair_s = 0;
  double link_repair_s = 0;
  double degrade_duration_s = 0;
  double degrade_capacity = 0.5;  // share of capacity a degraded link keeps
  double scale = 1;               // multiplies every rate; 0: no faults
};

// The published rates (faults.cc names the source of each).
FaultRates PublishedFaultRates();

// A seeded schedule over [start_s, end_s): for each kind, a Poisson process whose rate is
// the per-element rate x scale x the number of such elements, each event on an element
// drawn uniformly. Only links between two switches and NIC cables count as links;
// degradations hit links only. Deterministic for (fabric, rates, interval, seed): uses its
// own transforms of std::mt19937_64. InvalidArgument for a negative rate or scale, a
// non-positive duration, a capacity outside (0, 1) or end_s < start_s.
absl::StatusOr<FaultSchedule> GenerateFaults(const Fabric& fabric, const FaultRates& rates,
                                             double start_s, double end_s, uint64_t seed);

// "host:NAME", "switch:NAME" or "link:A--B" (A and B as Fabric::EndpointName names them).
std::string FaultElementName(const Fabric& fabric, const FaultElement& element);
// The inverse; a link may be named from either end. NotFound naming what is missing,
// InvalidArgument for a name of none of the three shapes.
absl::StatusOr<FaultElement> ParseFaultElement(const Fabric& fabric, absl::string_view name);

// "fail" / "degrade".
absl::string_view FaultKindName(FaultKind kind);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_FAULTS_H_
