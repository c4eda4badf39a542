#include "scheduler/placement/defrag.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace topoplace::sched {
namespace {

void Take(Occupancy& occupancy, const PlacementPlan& plan, bool busy) {
  for (const RankSlot& slot : plan.ranks) occupancy.Set(slot.gpu, busy);
}

PlacementRequest RequestFor(const JobSpec& job) {
  PlacementRequest request;
  request.job = job;
  // As the daemon places: NCCL forwards cross-rail traffic over NVLink (PXN).
  request.routing.rail_local = true;
  return request;
}

std::vector<std::string> HostNames(const Fabric& fabric, const PlacementPlan& plan) {
  std::vector<std::string> names;
  for (HostId h : plan.node_hosts) names.push_back(fabric.hosts()[h].name);
  return names;
}

// The running jobs of `victims`, the largest first.
std::vector<const MovableJob*> LargestFirst(
    std::span<const Victim> victims,
    const absl::flat_hash_map<std::string, const MovableJob*>& by_id) {
  std::vector<const MovableJob*> movers;
  for (const Victim& v : victims) movers.push_back(by_id.at(v.id));
  std::sort(movers.begin(), movers.end(), [](const MovableJob* a, const MovableJob* b) {
    return a->job.gpus.size() > b->job.gpus.size();
  });
  return movers;
}

}  // namespace

absl::StatusOr<DefragPlan> PlanDefrag(const PlacementEngine& engine, const Occupancy& occupancy,
                                      std::span<const MovableJob> running,
                                      std::span<const JobSpec> waiting,
                                      const DefragOptions& options) {
  const Fabric& fabric = engine.fabric();
  DefragPlan out;
  Occupancy now = occupancy;
  absl::flat_hash_set<std::string> moved;  // a job is moved at most once
  absl::flat_hash_map<std::string, const MovableJob*> by_id;
  for (const MovableJob& m : running) by_id[m.job.id] = &m;

  std::vector<const JobSpec*> order;
  for (const JobSpec& job : waiting) order.push_back(&job);
  std::stable_sort(order.begin(), order.end(), [](const JobSpec* a, const JobSpec* b) {
    return a->world_size() > b->world_size();
  });
  for (const JobSpec* job : order) {
    const std::string name = FormatJobSpec(*job);
    absl::StatusOr<PlacementPlan> as_is = engine.Place(RequestFor(*job), now);
    if (as_is.ok() && !as_is->relaxed) {
      Take(now, *as_is, true);
      out.notes.push_back(absl::StrCat(name, ": fits as things are, no move needed"));
      continue;
    }
    if (!as_is.ok() && !absl::IsResourceExhausted(as_is.status())) return as_is.status();

    // The domain the fewest running jobs clear, whatever their priority (they move, not stop).
    std::vector<RunningJob> movable;
    for (const MovableJob& m : running) {
      if (!moved.contains(m.job.id)) movable.push_back(m.job);
    }
    PlacementRequest clearing = RequestFor(*job);
    clearing.job.priority = kMaxPriority;
    absl::StatusOr<PreemptionPlan> room = PlanPreemption(engine, clearing, now, movable);
    if (!room.ok()) {
      if (!absl::IsResourceExhausted(room.status())) return room.status();
      out.notes.push_back(
          absl::StrCat(name, ": no domain can be cleared: ", room.status().message()));
      continue;
    }
    // Try the moves on a copy: the movers leave, the waiting job takes its GPUs, then each
    // mover (largest first) is placed again on what is left.
    Occupancy trial = now;
    const std::vector<const MovableJob*> movers = LargestFirst(room->victims, by_id);
    for (const MovableJob* m : movers) {
      for (GpuId g : m->job.gpus) trial.Set(g, false);
    }
    Take(trial, room->plan, true);
    std::vector<Move> moves;
    std::optional<std::string> stuck;
    for (const MovableJob* m : movers) {
      absl::StatusOr<PlacementPlan> again = engine.Place(RequestFor(m->spec), trial);
      if (!again.ok()) {
        stuck = absl::StrCat(m->job.id, " (", m->job.gpus.size(),
                             " GPUs) has nowhere else to go: ", again.status().message());
        break;
      }
      Take(trial, *again, true);
      const int gpus = static_cast<int>(m->job.gpus.size());
      moves.push_back({m->job.id, gpus, name, room->domain, HostNames(fabric, *again),
                       gpus * absl::ToDoubleHours(options.restart_cost)});
    }
    if (stuck) {
      out.notes.push_back(
          absl::StrCat(name, ": clearing ", room->domain, " would need moves, but ", *stuck));
      continue;
    }
    now = std::move(trial);
    for (Move& m : moves) {
      moved.insert(m.id);
      out.gpu_hours += m.gpu_hours;
      out.moves.push_back(std::move(m));
    }
    out.freed.push_back(absl::StrCat(name, " in ", room->domain));
  }
  return out;
}

}  // namespace topoplace::sched
