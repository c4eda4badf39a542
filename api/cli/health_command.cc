// `topoplace health [--link L | --switch S | --job J] [--json]` against a running
// topoplaced (global --server): link health as telemetry judges it, the links and switches
// an allocation's traffic crosses, or the live allocations a link or switch touches.
// Without a target it lists the unhealthy links and the live allocations at risk: those
// whose GPUs' paths cross one of them, each with the links it crosses.
// Credentials come from the environment like every --server command.
//
//   topoplace --server 127.0.0.1:7469 health                       # unhealthy links
//   topoplace --server 127.0.0.1:7469 health --link h0/eth0 --json # allocations it touches
//   topoplace --server 127.0.0.1:7469 health --job alloc-3         # the job's path
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "client/rpc_status.h"
#include "client/terminal_text.h"
#include "client/topoplace_client.h"
#include "topoplace/v1/telemetry.grpc.pb.h"

namespace topoplace::cli {
namespace {

namespace v1 = ::topoplace::v1;
using client::TerminalSafe;

struct HealthOptions {
  std::string link;
  std::string switch_name;
  std::string job;
  bool json = false;
};

// The daemon(s) of the global --server, through the one client (failover included).
absl::StatusOr<std::unique_ptr<client::TopoplaceClient>> Connect(const CliContext& ctx) {
  if (ctx.server.empty()) {
    return absl::InvalidArgumentError(
        "--server: `health` asks a running topoplaced; give --server HOST:PORT");
  }
  TP_ASSIGN_OR_RETURN(client::ClientOptions options, client::ClientOptionsFromEnv(ctx.server));
  return client::TopoplaceClient::Connect(options);
}

nlohmann::json LinkJson(const v1::LinkHealth& l) {
  return {{"link", l.name()},   {"a", l.a()},           {"b", l.b()},
          {"state", l.state()}, {"health", l.health()}, {"reason", l.reason()}};
}

nlohmann::json AllocationJson(const v1::Allocation& a) {
  return {{"allocation_id", a.allocation_id()},
          {"external_id", a.external_id()},
          {"job_spec", a.job_spec()}};
}

std::string LinkRow(const v1::LinkHealth& l) {
  return absl::StrFormat("%-48s %-9s %s\n", TerminalSafe(l.name()),
                         l.health().empty() ? "healthy" : TerminalSafe(l.health()),
                         TerminalSafe(l.reason()));
}

std::string AllocationRows(const google::protobuf::RepeatedPtrField<v1::Allocation>& list) {
  if (list.empty()) return "no live allocation touches it\n";
  std::string out = absl::StrFormat("%-12s %-20s %s\n", "ALLOCATION", "EXTERNAL ID", "JOB");
  for (const v1::Allocation& a : list) {
    absl::StrAppendFormat(&out, "%-12s %-20s %s\n", TerminalSafe(a.allocation_id()),
                          a.external_id().empty() ? "-" : TerminalSafe(a.external_id()),
                          TerminalSafe(a.job_spec()));
  }
  return out;
}

// A live allocation whose path crosses unhealthy links, and those links.
struct AtRisk {
  v1::Allocation allocation;
  std::vector<const v1::LinkHealth*> links;
};

// The allocations every unhealthy link in `bad` touches, in allocation id order.
absl::StatusOr<std::vector<AtRisk>> AllocationsAtRisk(
    client::TopoplaceClient& daemon, const std::vector<const v1::LinkHealth*>& bad) {
  std::map<std::string, AtRisk> by_id;
  for (const v1::LinkHealth* link : bad) {
    v1::GetAffectedAllocationsRequest request;
    request.set_link(link->name());
    TP_ASSIGN_OR_RETURN(v1::GetAffectedAllocationsResponse r,
                        daemon.GetAffectedAllocations(request));
    for (const v1::Allocation& a : r.allocations()) {
      AtRisk& entry = by_id[a.allocation_id()];
      entry.allocation = a;
      entry.links.push_back(link);
    }
  }
  std::vector<AtRisk> out;
  for (auto& [id, entry] : by_id) out.push_back(std::move(entry));
  return out;
}

absl::Status RunLinks(CliContext& ctx, client::TopoplaceClient& daemon, const HealthOptions& opt) {
  TP_ASSIGN_OR_RETURN(v1::GetLinkHealthResponse r,
                      daemon.GetLinkHealth(v1::GetLinkHealthRequest()));
  int counts[3] = {0, 0, 0};
  std::vector<const v1::LinkHealth*> bad;
  for (const v1::LinkHealth& l : r.links()) {
    const int k = l.health() == "down" ? 2 : l.health() == "degraded" ? 1 : 0;
    ++counts[k];
    if (k > 0) bad.push_back(&l);
  }
  TP_ASSIGN_OR_RETURN(std::vector<AtRisk> at_risk, AllocationsAtRisk(daemon, bad));
  if (opt.json) {
    nlohmann::json unhealthy = nlohmann::json::array();
    for (const v1::LinkHealth* l : bad) unhealthy.push_back(LinkJson(*l));
    nlohmann::json risk = nlohmann::json::array();
    for (const AtRisk& a : at_risk) {
      nlohmann::json j = AllocationJson(a.allocation);
      j["links"] = nlohmann::json::array();
      for (const v1::LinkHealth* l : a.links) j["links"].push_back(LinkJson(*l));
      risk.push_back(std::move(j));
    }
    nlohmann::json j = {{"healthy", counts[0]},
                        {"degraded", counts[1]},
                        {"down", counts[2]},
                        {"unhealthy_links", unhealthy},
                        {"at_risk", risk}};
    ctx.out << j.dump(2) << "\n";
    return absl::OkStatus();
  }
  ctx.out << "links: " << counts[0] << " healthy, " << counts[1] << " degraded, " << counts[2]
          << " down\n";
  for (const v1::LinkHealth* l : bad) ctx.out << LinkRow(*l);
  if (at_risk.empty()) return absl::OkStatus();
  ctx.out << "at risk: " << at_risk.size() << " live allocation(s) crossing them\n"
          << absl::StrFormat("%-12s %-20s %-9s %s\n", "ALLOCATION", "EXTERNAL ID", "HEALTH",
                             "LINK");
  for (const AtRisk& a : at_risk) {
    for (const v1::LinkHealth* l : a.links) {
      const std::string& ext = a.allocation.external_id();
      ctx.out << absl::StrFormat("%-12s %-20s %-9s %s\n",
                                 TerminalSafe(a.allocation.allocation_id()),
                                 ext.empty() ? "-" : TerminalSafe(ext), TerminalSafe(l->health()),
                                 TerminalSafe(l->name()));
    }
  }
  return absl::OkStatus();
}

absl::Status RunTarget(CliContext& ctx, client::TopoplaceClient& daemon, const HealthOptions& opt) {
  v1::GetAffectedAllocationsRequest request;
  if (!opt.link.empty()) request.set_link(opt.link);
  if (!opt.switch_name.empty()) request.set_switch_name(opt.switch_name);
  TP_ASSIGN_OR_RETURN(v1::GetAffectedAllocationsResponse r, daemon.GetAffectedAllocations(request));
  nlohmann::json allocations = nlohmann::json::array();
  for (const v1::Allocation& a : r.allocations()) allocations.push_back(AllocationJson(a));
  if (opt.json) {
    nlohmann::json j = {{"allocations", allocations}};
    if (r.has_link()) j["link"] = LinkJson(r.link());
    if (r.has_switch_health()) {
      j["switch"] = {{"name", r.switch_health().name()},
                     {"tier", r.switch_health().tier()},
                     {"health", r.switch_health().health()}};
    }
    ctx.out << j.dump(2) << "\n";
    return absl::OkStatus();
  }
  if (r.has_link()) ctx.out << "link " << LinkRow(r.link());
  if (r.has_switch_health()) {
    ctx.out << "switch " << r.switch_health().name() << " (tier " << r.switch_health().tier()
            << ") " << r.switch_health().health() << "\n";
  }
  ctx.out << AllocationRows(r.allocations());
  return absl::OkStatus();
}

absl::Status RunJob(CliContext& ctx, client::TopoplaceClient& daemon, const HealthOptions& opt) {
  v1::GetJobPathRequest request;
  int64_t n = 0;  // "alloc-<n>" is an allocation id; anything else an external id
  if (absl::StartsWith(opt.job, "alloc-") && absl::SimpleAtoi(opt.job.substr(6), &n)) {
    request.set_allocation_id(opt.job);
  } else {
    request.set_external_id(opt.job);
  }
  TP_ASSIGN_OR_RETURN(v1::GetJobPathResponse r, daemon.GetJobPath(request));
  if (opt.json) {
    nlohmann::json links = nlohmann::json::array();
    nlohmann::json switches = nlohmann::json::array();
    for (const v1::LinkHealth& l : r.links()) links.push_back(LinkJson(l));
    for (const v1::SwitchHealth& s : r.switches()) {
      switches.push_back({{"name", s.name()}, {"tier", s.tier()}, {"health", s.health()}});
    }
    nlohmann::json j = {
        {"allocation", AllocationJson(r.allocation())}, {"links", links}, {"switches", switches}};
    ctx.out << j.dump(2) << "\n";
    return absl::OkStatus();
  }
  ctx.out << "allocation " << r.allocation().allocation_id() << "  " << r.allocation().job_spec()
          << "\n"
          << "switches:\n";
  for (const v1::SwitchHealth& s : r.switches()) {
    ctx.out << absl::StrFormat("  %-32s tier %d  %s\n", s.name(), s.tier(), s.health());
  }
  ctx.out << "links:\n";
  for (const v1::LinkHealth& l : r.links()) ctx.out << "  " << LinkRow(l);
  return absl::OkStatus();
}

absl::Status Run(CliContext& ctx, const HealthOptions& opt) {
  const int targets =
      (opt.link.empty() ? 0 : 1) + (opt.switch_name.empty() ? 0 : 1) + (opt.job.empty() ? 0 : 1);
  if (targets > 1) {
    return absl::InvalidArgumentError("health: give at most one of --link, --switch, --job");
  }
  TP_ASSIGN_OR_RETURN(std::unique_ptr<client::TopoplaceClient> daemon, Connect(ctx));
  if (!opt.job.empty()) return RunJob(ctx, *daemon, opt);
  if (targets == 1) return RunTarget(ctx, *daemon, opt);
  return RunLinks(ctx, *daemon, opt);
}

}  // namespace

void RegisterHealthCommand(CLI::App& app, CliContext& ctx) {
  auto opt = std::make_shared<HealthOptions>();
  CLI::App* health = app.add_subcommand(
      "health", "Link health, a job's network path, or the jobs a link touches (--server)");
  health->add_option("--link", opt->link, "A link 'a--b' or a NIC 'host/nic': its allocations");
  health->add_option("--switch", opt->switch_name, "A switch: the allocations it touches");
  health->add_option("--job", opt->job, "An allocation id or external id: its path and health");
  health->add_flag("--json", opt->json, "Print stable JSON instead of tables");
  health->callback([&ctx, opt] {
    if (absl::Status s = Run(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
