// The ledger commands that talk to a running topoplaced (global `--server ADDR`):
// `reserve`, `renew`, `commit`, `release`, `allocations`, `explain`, `preempt`, `defrag`.
// Credentials come from the environment (TOPOPLACE_TOKEN_FILE, TOPOPLACE_CA_FILE,
// TOPOPLACE_CERT_FILE, TOPOPLACE_KEY_FILE; see client/topoplace_client.h). Every
// command prints a table by default and stable JSON with --json.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "client/allocation_report.h"
#include "client/topoplace_client.h"
#include "nlohmann/json.hpp"
#include "plugins/slurm/spank/job_binding.h"

namespace topoplace::cli {
namespace {

using client::TopoplaceClient;

struct ServiceOptions {
  std::string job;
  std::string policy;
  int64_t ttl_seconds = 0;
  std::string request_id;
  std::string allocation_id;
  std::string external_id;
  // release --slurm-job: only if the allocation is that Slurm job's (of user slurm_uid).
  std::optional<uint32_t> slurm_job;
  uint32_t slurm_uid = 0;
  std::vector<std::string> waiting;  // defrag --for
  int64_t restart_cost_seconds = 0;
  bool json = false;
};

// "slurm:1234" (the SPANK plugin's external ids) -> "1234"; nullopt for anything else.
std::optional<std::string> SlurmJobId(const std::string& external_id) {
  constexpr absl::string_view kPrefix = "slurm:";
  if (!absl::StartsWith(external_id, kPrefix) || external_id.size() == kPrefix.size()) {
    return std::nullopt;
  }
  return external_id.substr(kPrefix.size());
}

absl::StatusOr<std::unique_ptr<TopoplaceClient>> ConnectTo(const CliContext& ctx) {
  if (ctx.server.empty()) {
    return absl::InvalidArgumentError(
        "--server: this command talks to a running topoplaced; give --server HOST:PORT");
  }
  TP_ASSIGN_OR_RETURN(client::ClientOptions options, client::ClientOptionsFromEnv(ctx.server));
  return TopoplaceClient::Connect(options);
}

absl::Status RunReserve(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  v1::ReserveRequest request;
  request.set_job_spec(opt.job);
  request.set_policy(opt.policy);
  request.set_ttl_seconds(opt.ttl_seconds);
  request.set_request_id(opt.request_id);
  TP_ASSIGN_OR_RETURN(v1::ReserveResponse r, client->Reserve(request));
  if (opt.json) {
    ctx.out << client::ReservationJson(r);
  } else if (r.replayed()) {
    ctx.out << client::AllocationTable(r.allocation()) << "\n(request id '" << opt.request_id
            << "' was reserved before: this is the first answer, nothing new is held)\n";
  } else {
    ctx.out << client::AllocationTable(r.allocation()) << "\n" << r.plan().table();
  }
  return absl::OkStatus();
}

absl::Status RunRenew(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  TP_ASSIGN_OR_RETURN(v1::Allocation a, client->Renew(opt.allocation_id, opt.ttl_seconds));
  ctx.out << (opt.json ? client::AllocationJson(a) : client::AllocationTable(a));
  return absl::OkStatus();
}

absl::Status RunCommit(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  TP_ASSIGN_OR_RETURN(v1::Allocation a, client->Commit(opt.allocation_id, opt.external_id));
  ctx.out << (opt.json ? client::AllocationJson(a) : client::AllocationTable(a));
  return absl::OkStatus();
}

absl::Status RunRelease(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  if (opt.slurm_job) {
    TP_ASSIGN_OR_RETURN(v1::Allocation held, client->GetAllocation(opt.allocation_id));
    TP_RETURN_IF_ERROR(slurm::CheckJobMayBind(
        slurm::AllocationOwner{held.allocation_id(), held.state() == v1::ALLOCATION_STATE_RESERVED,
                               held.external_id(), held.request_id()},
        *opt.slurm_job, opt.slurm_uid, slurm::BindAction::kRelease));
  }
  TP_ASSIGN_OR_RETURN(v1::Allocation a, client->Release(opt.allocation_id));
  ctx.out << (opt.json ? client::AllocationJson(a) : client::AllocationTable(a));
  return absl::OkStatus();
}

absl::Status RunAllocations(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  TP_ASSIGN_OR_RETURN(v1::ListAllocationsResponse list, client->ListAllocations());
  ctx.out << (opt.json ? client::AllocationListJson(list) : client::AllocationTable(list));
  return absl::OkStatus();
}

absl::Status RunExplain(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  TP_ASSIGN_OR_RETURN(v1::ExplainResponse e, client->Explain(opt.allocation_id));
  ctx.out << (opt.json ? client::ExplainJson(e) : client::ExplainTable(e));
  return absl::OkStatus();
}

// `preempt --for SPEC`: the Slurm jobs to requeue so the job fits in one domain, one id a
// line on stdout (for `xargs scontrol requeue`); what and why on stderr. Victims that are
// not Slurm jobs (Kubernetes pod groups, reservations not yet committed) are named on
// stderr for the operator: requeueing the listed ones alone may not make room then.
absl::Status RunPreempt(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  TP_ASSIGN_OR_RETURN(v1::PlaceResponse response, client->Place(opt.job, opt.policy, true));
  if (opt.json) {
    nlohmann::ordered_json victims = nlohmann::ordered_json::array();
    nlohmann::ordered_json slurm = nlohmann::ordered_json::array();
    for (const v1::Victim& v : response.victims()) {
      victims.push_back({{"allocation_id", v.allocation_id()},
                         {"external_id", v.external_id()},
                         {"priority", v.priority()},
                         {"reason", v.reason()}});
      if (std::optional<std::string> id = SlurmJobId(v.external_id())) slurm.push_back(*id);
    }
    ctx.out << nlohmann::ordered_json{{"schema", "topoplace.slurm-preempt/v1"},
                                      {"domain", response.preemption_domain()},
                                      {"slurm_job_ids", std::move(slurm)},
                                      {"victims", std::move(victims)}}
                   .dump(2)
            << "\n";
    return absl::OkStatus();
  }
  if (response.victims().empty()) {
    ctx.err << "preempt: nothing to requeue, the job fits as things are\n";
    return absl::OkStatus();
  }
  ctx.err << "preempt: requeue to fit in " << response.preemption_domain() << ":\n";
  for (const v1::Victim& v : response.victims()) {
    const std::optional<std::string> slurm = SlurmJobId(v.external_id());
    if (slurm) ctx.out << *slurm << "\n";
    ctx.err << absl::StrFormat("  %-12s %-22s %s%s\n", v.allocation_id(),
                               v.external_id().empty() ? "-" : v.external_id(), v.reason(),
                               slurm ? "" : "  (not a Slurm job: stop it yourself)");
  }
  return absl::OkStatus();
}

// `defrag --for SPEC...`: the allocations to restart elsewhere so the waiting jobs fit.
absl::Status RunDefrag(CliContext& ctx, const ServiceOptions& opt) {
  TP_ASSIGN_OR_RETURN(auto client, ConnectTo(ctx));
  TP_ASSIGN_OR_RETURN(v1::DefragResponse response,
                      client->Defrag(opt.waiting, opt.restart_cost_seconds));
  if (opt.json) {
    nlohmann::ordered_json moves = nlohmann::ordered_json::array();
    for (const v1::DefragMove& m : response.moves()) {
      moves.push_back(
          {{"allocation_id", m.allocation_id()},
           {"external_id", m.external_id()},
           {"gpus", m.gpus()},
           {"for_job", m.for_job()},
           {"domain", m.domain()},
           {"to_hosts", std::vector<std::string>(m.to_hosts().begin(), m.to_hosts().end())},
           {"gpu_hours", m.gpu_hours()}});
    }
    ctx.out << nlohmann::ordered_json{{"schema", "topoplace.defrag/v1"},
                                      {"moves", std::move(moves)},
                                      {"freed", std::vector<std::string>(response.freed().begin(),
                                                                         response.freed().end())},
                                      {"notes", std::vector<std::string>(response.notes().begin(),
                                                                         response.notes().end())},
                                      {"gpu_hours", response.gpu_hours()}}
                   .dump(2)
            << "\n";
    return absl::OkStatus();
  }
  ctx.out << absl::StrFormat("defrag: %d move(s) costing %.2f GPU-hours\n", response.moves_size(),
                             response.gpu_hours());
  for (const v1::DefragMove& m : response.moves()) {
    ctx.out << absl::StrFormat(
        "  restart %-12s %-22s %5d GPUs on %s%s (%.2f GPU-hours), for %s in %s\n",
        m.allocation_id(), m.external_id().empty() ? "-" : m.external_id(), m.gpus(),
        m.to_hosts_size() > 0 ? m.to_hosts(0) : "-",
        m.to_hosts_size() > 1 ? absl::StrCat(" +", m.to_hosts_size() - 1) : "", m.gpu_hours(),
        m.for_job(), m.domain());
  }
  for (const std::string& f : response.freed()) ctx.out << "  room: " << f << "\n";
  for (const std::string& n : response.notes()) ctx.out << "  note: " << n << "\n";
  return absl::OkStatus();
}

using Runner = absl::Status (*)(CliContext&, const ServiceOptions&);

void OnRun(CLI::App* command, CliContext& ctx, const std::shared_ptr<ServiceOptions>& opt,
           Runner run) {
  command->add_flag("--json", opt->json, "Print stable JSON instead of tables");
  command->callback([&ctx, opt, run] {
    if (absl::Status s = run(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace

void RegisterServiceCommands(CLI::App& app, CliContext& ctx) {
  auto opt = std::make_shared<ServiceOptions>();

  CLI::App* reserve = app.add_subcommand("reserve", "Place a job and hold its GPUs (--server)");
  reserve->add_option("--job", opt->job, "Job spec, e.g. tp=8,pp=4,dp=16,model=70b")->required();
  reserve->add_option("--policy", opt->policy, "Placement policy; default topoplace");
  reserve->add_option("--ttl", opt->ttl_seconds,
                      "Seconds to hold the GPUs before commit; 0 = the daemon's default");
  reserve->add_option("--request-id", opt->request_id,
                      "Idempotency key: a retry with the same key returns the first answer");
  OnRun(reserve, ctx, opt, RunReserve);

  CLI::App* renew = app.add_subcommand("renew", "Extend a reservation's hold (--server)");
  renew->add_option("allocation", opt->allocation_id, "Allocation id, e.g. alloc-7")->required();
  renew->add_option("--ttl", opt->ttl_seconds, "New hold from now, seconds; 0 = the default");
  OnRun(renew, ctx, opt, RunRenew);

  CLI::App* commit = app.add_subcommand("commit", "Bind a reservation to a job id (--server)");
  commit->add_option("allocation", opt->allocation_id, "Allocation id, e.g. alloc-7")->required();
  commit->add_option("--external-id", opt->external_id, "Slurm job id or Kubernetes pod group")
      ->required();
  OnRun(commit, ctx, opt, RunCommit);

  CLI::App* release = app.add_subcommand("release", "Free an allocation's GPUs (--server)");
  release->add_option("allocation", opt->allocation_id, "Allocation id")->required();
  release->add_option("--slurm-job", opt->slurm_job,
                      "Release only if the allocation is this Slurm job's (EpilogSlurmctld: "
                      "the plan id comes from the job's environment, which its user set)");
  release->add_option("--slurm-uid", opt->slurm_uid, "The job's user, with --slurm-job")
      ->needs("--slurm-job");
  OnRun(release, ctx, opt, RunRelease);

  CLI::App* allocations = app.add_subcommand("allocations", "List live allocations (--server)");
  OnRun(allocations, ctx, opt, RunAllocations);

  CLI::App* preempt = app.add_subcommand(
      "preempt", "Name the Slurm jobs of lower priority to requeue so a job fits (--server)");
  preempt->add_option("--for", opt->job, "Job spec of the waiting job, with its priority=")
      ->required();
  preempt->add_option("--policy", opt->policy, "Placement policy; default topoplace");
  OnRun(preempt, ctx, opt, RunPreempt);

  CLI::App* defrag = app.add_subcommand(
      "defrag", "Name the allocations to restart elsewhere so waiting jobs fit (--server)");
  defrag->add_option("--for", opt->waiting, "Job spec of a waiting job (repeat for several)")
      ->required();
  defrag
      ->add_option("--restart-cost", opt->restart_cost_seconds,
                   "Seconds a moved job spends restarting; 0 = the daemon's default (600)")
      ->check(CLI::Range(0, 86400));
  OnRun(defrag, ctx, opt, RunDefrag);

  CLI::App* explain = app.add_subcommand("explain", "Show why an allocation was placed (--server)");
  explain->add_option("allocation", opt->allocation_id, "Allocation id")->required();
  OnRun(explain, ctx, opt, RunExplain);
}

}  // namespace topoplace::cli
