// `topoplace place`: places one job on a fabric with a policy (topoplace's own or a
// baseline) around a background occupancy, and prints the plan (table or JSON).
// `--compare` places it with every policy on the same background and prints one row each.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "client/topoplace_client.h"
#include "nlohmann/json.hpp"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/ledger/clock.h"
#include "scheduler/load/current_uplink_load.h"
#include "scheduler/load/held_uplink_load.h"
#include "scheduler/load/running_jobs.h"
#include "scheduler/placement/engine.h"
#include "scheduler/placement/preemption.h"
#include "scheduler/report/plan_report.h"
#include "scheduler/report/plan_svg.h"
#include "scheduler/reserve/advisor.h"
#include "scheduler/state/occupancy.h"
#include "scheduler/state/uplink_load.h"
#include "store/sqlite/sqlite_ledger.h"
#include "topology/io/fabric_file.h"

namespace topoplace::cli {
namespace {

using sched::FormatBytes;

struct PlaceOptions {
  std::string fabric;
  std::string job;
  std::string policy = "topoplace";
  std::string occupied;
  std::string uplink_load;
  std::string ledger;
  double load = -1;
  uint64_t seed = 1;
  bool json = false;
  bool rail_local = true;  // NCCL's PXN default; --no-rail-local for fabrics without it
  bool compare = false;
  bool may_preempt = false;
  std::string weights;
  std::string unhealthy;
  std::string render;
  int rank_rows = 16;
};

// `--ledger DB`: what a copy of topoplaced's database says runs now: the GPUs its live
// allocations hold and the uplink load their stored plans offer, as the daemon with
// uplink_load_from_allocations sees them.
struct LedgerBackground {
  std::unique_ptr<store::SqliteLedger> ledger;  // open until placed (--may-preempt reads it)
  std::unique_ptr<sched::HeldUplinkLoad> held;  // its allocations' stored offers
  sched::Occupancy occupancy;
};

absl::StatusOr<LedgerBackground> LoadLedgerBackground(const FabricPtr& fabric,
                                                      const std::string& path) {
  // Opening a ledger creates a missing database; a typo must not look like an idle cluster.
  if (std::error_code ec; !std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat("--ledger: no database file at '", path, "'"));
  }
  absl::StatusOr<std::unique_ptr<store::SqliteLedger>> ledger =
      store::SqliteLedger::Open(path, fabric, ledger::RealClock());
  if (!ledger.ok()) {
    return absl::Status(ledger.status().code(),
                        absl::StrCat("--ledger: ", ledger.status().message()));
  }
  LedgerBackground out{*std::move(ledger), std::make_unique<sched::HeldUplinkLoad>(*fabric),
                       sched::Occupancy(*fabric)};
  out.occupancy = out.ledger->Occupancy();
  return out;
}

absl::StatusOr<sched::Occupancy> LoadBackground(const Fabric& fabric, const PlaceOptions& opt) {
  if (!opt.occupied.empty()) return sched::LoadOccupancyFile(fabric, opt.occupied);
  if (opt.load >= 0) {
    if (opt.load > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--load: expected a fraction in [0, 1], got ", opt.load));
    }
    return sched::RandomBackgroundLoad(fabric, opt.load, opt.seed);
  }
  return sched::Occupancy(fabric);
}

absl::StatusOr<sched::FabricHealth> ParseHealth(const Fabric& fabric, const std::string& list) {
  sched::FabricHealth health;
  if (list.empty()) return health;
  for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    std::optional<HostId> h = fabric.FindHost(name);
    if (!h) {
      return absl::InvalidArgumentError(absl::StrCat("--unhealthy: expected host names of '",
                                                     fabric.name(), "', got '", name, "'"));
    }
    health.unhealthy_hosts.insert(*h);
  }
  return health;
}

void PrintComparison(CliContext& ctx, const std::vector<std::string>& policies,
                     const std::vector<absl::StatusOr<sched::PlacementPlan>>& plans, bool json) {
  if (json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (size_t i = 0; i < policies.size(); ++i) {
      nlohmann::ordered_json row{{"policy", policies[i]}};
      if (!plans[i].ok()) {
        row["error"] = std::string(plans[i].status().message());
      } else {
        const sched::PlacementPlan& p = *plans[i];
        row["spine_bytes"] = p.traffic.spine_bytes();
        row["spine_bytes_lower_bound"] = p.spine_bytes_lower_bound;
        row["max_switch_hops"] = p.traffic.max_hops;
        row["blocks"] = p.footprint.blocks_used;
        row["pods"] = p.footprint.pods_used;
        row["fragmentation_delta"] = p.footprint.fragmentation_delta();
        row["cost"] = p.cost;
        row["predicted_slowdown"] = p.step.slowdown;
      }
      rows.push_back(std::move(row));
    }
    ctx.out << rows.dump(2) << "\n";
    return;
  }
  ctx.out << absl::StrFormat("%-14s %14s %14s %5s %7s %5s %6s %8s\n", "policy", "spine bytes",
                             "lower bound", "hops", "blocks", "pods", "frag", "slowdown");
  for (size_t i = 0; i < policies.size(); ++i) {
    if (!plans[i].ok()) {
      ctx.out << absl::StrFormat("%-14s %s\n", policies[i], plans[i].status().message());
      continue;
    }
    const sched::PlacementPlan& p = *plans[i];
    ctx.out << absl::StrFormat("%-14s %14s %14s %5d %7d %5d %+6d %7.2fx\n", policies[i],
                               FormatBytes(p.traffic.spine_bytes()),
                               FormatBytes(p.spine_bytes_lower_bound), p.traffic.max_hops,
                               p.footprint.blocks_used, p.footprint.pods_used,
                               p.footprint.fragmentation_delta(), p.step.slowdown);
  }
  ctx.out << "slowdown: the comm model's step time on the plan (this job alone on its links) "
             "over the job's on the empty fabric's most compact hosts\n";
}

// One victim of a preemption plan, as both paths print it.
struct VictimRow {
  std::string id, external_id;
  int64_t priority = 0;
  std::string reason;
};

// The victims of `place --may-preempt` above the plan (table), or around it (JSON).
void PrintPreemption(CliContext& ctx, const std::string& domain,
                     const std::vector<VictimRow>& victims, bool json,
                     const std::string& plan_json) {
  if (json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const VictimRow& v : victims) {
      rows.push_back({{"allocation_id", v.id},
                      {"external_id", v.external_id},
                      {"priority", v.priority},
                      {"reason", v.reason}});
    }
    ctx.out << nlohmann::ordered_json{{"schema", "topoplace.preemption/v1"},
                                      {"domain", domain},
                                      {"victims", std::move(rows)},
                                      {"plan", nlohmann::ordered_json::parse(plan_json)}}
                   .dump(2)
            << "\n";
    return;
  }
  if (victims.empty()) {
    ctx.out << "preemption: none needed, the job fits as things are\n\n";
    return;
  }
  ctx.out << "preemption: stop " << victims.size() << " allocation(s) to fit in " << domain << "\n";
  for (const VictimRow& v : victims) {
    ctx.out << absl::StrFormat("  %-12s %-20s priority %-6d %s\n", v.id,
                               v.external_id.empty() ? "-" : v.external_id, v.priority, v.reason);
  }
  ctx.out << "\n";
}

// `place --server`: the daemon places around its own fabric, ledger and health, so the
// options that describe a local background, health or scoring are refused, not ignored.
absl::Status RunRemotePlace(CliContext& ctx, const CLI::App& cmd, const PlaceOptions& opt) {
  for (const char* local_only :
       {"--fabric", "--occupied", "--uplink-load", "--ledger", "--load", "--unhealthy", "--weights",
        "--rail-local", "--no-rail-local", "--compare", "--render", "--rank-rows"}) {
    if (cmd.count(local_only) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(local_only, " applies to local placement only; with --server the daemon at ",
                       ctx.server, " places around its own fabric and ledger"));
    }
  }
  TP_ASSIGN_OR_RETURN(client::v1::PlaceResponse response,
                      client::RemotePlace(ctx.server, opt.job, opt.policy, opt.may_preempt));
  if (opt.may_preempt) {
    std::vector<VictimRow> victims;
    for (const client::v1::Victim& v : response.victims()) {
      victims.push_back({v.allocation_id(), v.external_id(), v.priority(), v.reason()});
    }
    PrintPreemption(ctx, response.preemption_domain(), victims, opt.json, response.plan().json());
    if (opt.json) return absl::OkStatus();
  }
  ctx.out << (opt.json ? response.plan().json() + "\n" : response.plan().table());
  return absl::OkStatus();
}

// --compare: `request` placed by every policy, printed side by side.
absl::Status ComparePolicies(CliContext& ctx, const sched::PlacementEngine& engine,
                             sched::PlacementRequest request, const sched::Occupancy& background,
                             bool json) {
  const std::vector<std::string> policies = sched::BuiltinPlugins().PolicyNames();
  std::vector<absl::StatusOr<sched::PlacementPlan>> plans;
  for (const std::string& name : policies) {
    request.policy = name;
    plans.push_back(engine.Place(request, background));
    // Bad input is bad for every policy; report it once as such.
    if (!plans.back().ok() && plans.back().status().code() == absl::StatusCode::kInvalidArgument) {
      return plans.back().status();
    }
  }
  PrintComparison(ctx, policies, plans, json);
  return plans.front().status();
}

// --may-preempt: the plan after the cheapest preemption, as the daemon's dry run
// (sched::Advisor) finds it over `ledger` and `engine` with the request's uplink load;
// printed here with its victims. Empty when the JSON answer was printed whole.
absl::StatusOr<std::optional<sched::PlacementPlan>> PlaceMayPreempt(
    CliContext& ctx, const sched::PlacementEngine& engine, const Fabric& fabric,
    store::Ledger& ledger, const sched::PlacementRequest& request, bool json) {
  const sched::FixedPlacementPort port(
      std::shared_ptr<const sched::PlacementEngine>(&engine, [](const sched::PlacementEngine*) {}),
      request.uplink_busy);
  const sched::ReserverPorts ports{.ledger = &ledger, .fabric = &fabric, .placement = &port};
  TP_ASSIGN_OR_RETURN(sched::PreemptionAdvice advice,
                      sched::Advisor(ports).PlaceWithPreemption(request));
  std::vector<VictimRow> victims;
  for (size_t i = 0; i < advice.preemption.victims.size(); ++i) {
    const sched::Victim& v = advice.preemption.victims[i];
    victims.push_back({v.id, advice.external_ids[i], v.priority, v.reason});
  }
  PrintPreemption(ctx, advice.preemption.domain, victims, json,
                  sched::PlanToJson(fabric, advice.preemption.plan));
  if (json) return std::nullopt;
  return std::move(advice.preemption.plan);
}

absl::Status RunPlace(CliContext& ctx, const CLI::App& cmd, const PlaceOptions& opt) {
  if (!ctx.server.empty()) return RunRemotePlace(ctx, cmd, opt);
  if (opt.fabric.empty()) {
    return absl::InvalidArgumentError(
        "--fabric is required (a fabric file or preset:NAME), "
        "unless --server names a running topoplaced");
  }
  TP_ASSIGN_OR_RETURN(sched::JobSpec job, sched::ParseJobSpec(opt.job));
  TP_ASSIGN_OR_RETURN(sched::ScorerWeights weights,
                      sched::BuiltinPlugins().ParseScorerWeights(opt.weights));
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  std::optional<LedgerBackground> held;
  if (!opt.ledger.empty()) {
    TP_ASSIGN_OR_RETURN(held, LoadLedgerBackground(fabric, opt.ledger));
  }
  TP_ASSIGN_OR_RETURN(
      sched::Occupancy background,
      held ? absl::StatusOr<sched::Occupancy>(held->occupancy) : LoadBackground(*fabric, opt));
  TP_ASSIGN_OR_RETURN(sched::FabricHealth health, ParseHealth(*fabric, opt.unhealthy));
  sched::PlacementEngine engine(fabric, health);
  sched::PlacementRequest request;
  request.job = job;
  request.routing.rail_local = opt.rail_local;
  request.weights = weights;
  request.seed = opt.seed;
  request.link_loads = true;
  // The load file's shares and, with --ledger, the load its allocations' plans offer, as
  // the daemon with uplink_load_from_allocations combines them.
  std::vector<double> file_shares;
  if (!opt.uplink_load.empty()) {
    TP_ASSIGN_OR_RETURN(file_shares, sched::LoadUplinkLoadFile(*fabric, opt.uplink_load));
  }
  sched::UplinkLoadSources sources;
  if (!file_shares.empty()) sources.file = [&file_shares] { return file_shares; };
  if (held) sources.held = held->held.get();
  request.uplink_busy =
      sched::CurrentUplinkLoad(sources, absl::Now(), held ? held->ledger.get() : nullptr);
  if (opt.compare) return ComparePolicies(ctx, engine, request, background, opt.json);
  request.policy = opt.policy;
  if (opt.may_preempt && !held) {
    return absl::InvalidArgumentError(
        "--may-preempt needs the running jobs and their priorities: --ledger DB, or --server");
  }
  sched::PlacementPlan plan;
  if (opt.may_preempt) {
    TP_ASSIGN_OR_RETURN(std::optional<sched::PlacementPlan> preempting,
                        PlaceMayPreempt(ctx, engine, *fabric, *held->ledger, request, opt.json));
    if (!preempting) return absl::OkStatus();  // the JSON answer is printed whole
    plan = *std::move(preempting);
  } else {
    TP_ASSIGN_OR_RETURN(plan, engine.Place(request, background));
  }
  if (!opt.render.empty()) {
    std::ofstream svg(opt.render, std::ios::trunc);
    svg << sched::PlanToSvg(*fabric, plan, background);
    if (!svg.good()) {
      return absl::PermissionDeniedError(absl::StrCat("--render: cannot write '", opt.render, "'"));
    }
  }
  if (opt.json) {
    ctx.out << sched::PlanToJson(*fabric, plan) << "\n";
  } else {
    sched::PrintPlanTable(*fabric, plan, ctx.out, opt.rank_rows);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterPlaceCommand(CLI::App& app, CliContext& ctx) {
  auto opt = std::make_shared<PlaceOptions>();
  CLI::App* place = app.add_subcommand("place", "Place a training job on a fabric");
  place->add_option("--fabric", opt->fabric, "Fabric file, or preset:NAME (not with --server)");
  place->add_option("--job", opt->job, "Job spec, e.g. tp=8,pp=4,dp=16,model=70b")->required();
  place->add_option("--policy", opt->policy,
                    "Policy: " + absl::StrJoin(sched::BuiltinPlugins().PolicyNames(), ", "));
  CLI::Option* occupied = place->add_option(
      "--occupied", opt->occupied, "Busy GPUs: lines 'HOST' or 'HOST GPU[,GPU]' ('#' comments)");
  CLI::Option* load =
      place->add_option("--load", opt->load, "Random background load, fraction of GPUs busy");
  occupied->excludes(load);
  CLI::Option* ledger_db = place->add_option(
      "--ledger", opt->ledger,
      "A copy of topoplaced's database (sqlite3 topoplaced.db '.backup copy.db'): place "
      "around its live allocations and the uplink load their plans stored");
  ledger_db->excludes(occupied);
  ledger_db->excludes(load);
  place->add_option("--uplink-load", opt->uplink_load,
                    "How loaded uplinks already are: lines 'SWITCH SHARE' (share of the "
                    "switch's uplink capacity in use, e.g. from port counters); the "
                    "uplink-load scorer then steers the job off hot uplinks");
  place->add_option("--seed", opt->seed, "Seed for --load and the random policy");
  place->add_flag("--json", opt->json, "Print stable JSON instead of tables");
  place->add_flag("--rail-local,!--no-rail-local", opt->rail_local,
                  "Rail-local (PXN) forwarding, on by default as in NCCL: cross-rail traffic "
                  "hops over NVLink first. --no-rail-local models hosts without it");
  place->add_flag("--compare", opt->compare, "Place with every policy and compare");
  place->add_flag("--may-preempt", opt->may_preempt,
                  "If the job does not fit inside its max_tier, also name the live allocations "
                  "of lower priority (job spec priority=) to stop so that it fits in one "
                  "domain (needs --ledger or --server; nothing is stopped)");
  place->add_option("--weights", opt->weights, "Scorer weights, e.g. spine-bytes=10,spread=0");
  place->add_option("--unhealthy", opt->unhealthy, "Comma-separated unhealthy hosts");
  place->add_option("--rank-rows", opt->rank_rows, "Rank-map rows in the table");
  place->add_option("--render", opt->render,
                    "Also draw the plan over the fabric as SVG into this file");
  place->callback([&ctx, place, opt] {
    if (absl::Status s = RunPlace(ctx, *place, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
