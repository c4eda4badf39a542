#include "client/allocation_report.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/terminal_text.h"
#include "nlohmann/json.hpp"

namespace topoplace::client {
namespace {

using Json = nlohmann::ordered_json;

absl::string_view StateName(v1::AllocationState state) {
  switch (state) {
    case v1::ALLOCATION_STATE_RESERVED:
      return "reserved";
    case v1::ALLOCATION_STATE_COMMITTED:
      return "committed";
    case v1::ALLOCATION_STATE_RELEASED:
      return "released";
    case v1::ALLOCATION_STATE_EXPIRED:
      return "expired";
    default:
      return "unknown";
  }
}

Json Time(int64_t unix_ms) {
  if (unix_ms == 0) return nullptr;
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

Json ToJson(const v1::Allocation& a) {
  Json gpus = Json::array();
  for (const v1::GpuSlot& g : a.gpus()) gpus.push_back(absl::StrCat(g.host(), "/gpu", g.gpu()));
  return Json{{"schema", "topoplace.allocation/v1"},
              {"id", a.allocation_id()},
              {"state", std::string(StateName(a.state()))},
              {"external_id", a.external_id()},
              {"request_id", a.request_id()},
              {"job", a.job_spec()},
              {"priority", a.priority()},
              {"policy", a.policy()},
              {"fabric_version", a.fabric_version()},
              {"gpus", std::move(gpus)},
              {"created_at", Time(a.created_unix_ms())},
              {"expires_at", Time(a.expires_unix_ms())},
              {"finished_at", Time(a.finished_unix_ms())},
              {"expected_end_at", Time(a.expected_end_unix_ms())}};
}

// The stored plan JSON, or its text as a string if it somehow does not parse.
Json PlanJson(const std::string& text) {
  Json plan = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (plan.is_discarded()) return text;
  return plan;
}

std::vector<std::string> Hosts(const v1::Allocation& a) {
  std::vector<std::string> hosts;
  std::set<std::string> seen;
  for (const v1::GpuSlot& g : a.gpus()) {
    if (seen.insert(g.host()).second) hosts.push_back(g.host());
  }
  return hosts;
}

std::string Header() {
  return absl::StrFormat("%-12s %-10s %-20s %5s %-24s %s\n", "id", "state", "external id", "gpus",
                         "hosts", "job");
}

std::string Row(const v1::Allocation& a) {
  std::vector<std::string> hosts = Hosts(a);
  std::string host_text = hosts.empty() ? "-" : TerminalSafe(hosts.front());
  if (hosts.size() > 1) absl::StrAppend(&host_text, " +", hosts.size() - 1);
  std::string row =
      absl::StrFormat("%-12s %-10s %-20s %5d %-24s %s", TerminalSafe(a.allocation_id()),
                      std::string(StateName(a.state())),
                      a.external_id().empty() ? "-" : TerminalSafe(a.external_id()), a.gpus_size(),
                      host_text, TerminalSafe(a.job_spec()));
  if (a.expires_unix_ms() != 0) {
    absl::StrAppend(&row, "  (expires ", Time(a.expires_unix_ms()).get<std::string>(), ")");
  }
  return row + "\n";
}

}  // namespace

std::string AllocationJson(const v1::Allocation& allocation) {
  return ToJson(allocation).dump(2) + "\n";
}

std::string AllocationListJson(const v1::ListAllocationsResponse& list) {
  Json all = Json::array();
  for (const v1::Allocation& a : list.allocations()) all.push_back(ToJson(a));
  return Json{{"schema", "topoplace.allocations/v1"}, {"allocations", std::move(all)}}.dump(2) +
         "\n";
}

std::string ReservationJson(const v1::ReserveResponse& reservation) {
  return Json{{"allocation", ToJson(reservation.allocation())},
              {"replayed", reservation.replayed()},
              {"plan", PlanJson(reservation.plan().json())}}
             .dump(2) +
         "\n";
}

std::string ExplainJson(const v1::ExplainResponse& explain) {
  return Json{{"allocation", ToJson(explain.allocation())}, {"plan", PlanJson(explain.plan_json())}}
             .dump(2) +
         "\n";
}

std::string AllocationTable(const v1::ListAllocationsResponse& list) {
  std::string out = Header();
  for (const v1::Allocation& a : list.allocations()) out += Row(a);
  if (list.allocations().empty()) out += "(no live allocations)\n";
  return out;
}

std::string AllocationTable(const v1::Allocation& allocation) { return Header() + Row(allocation); }

std::string ExplainTable(const v1::ExplainResponse& explain) {
  std::string out = AllocationTable(explain.allocation());
  Json plan = PlanJson(explain.plan_json());
  if (!plan.is_object()) return out + "(no plan recorded)\n";
  absl::StrAppend(&out, "\npolicy    ", plan.value("policy", ""), "\n");
  if (plan.contains("hosts") && plan["hosts"].is_array()) {
    std::vector<std::string> hosts;
    for (const Json& h : plan["hosts"]) hosts.push_back(h.get<std::string>());
    absl::StrAppend(&out, "hosts     ", absl::StrJoin(hosts, " "), "\n");
  }
  if (plan.contains("spine_bytes")) {
    absl::StrAppend(&out, "spine     ", plan["spine_bytes"].dump(),
                    " bytes/iteration (lower bound ",
                    plan.value("spine_bytes_lower_bound", Json(0)).dump(), ")\n");
  }
  if (plan.contains("predicted_slowdown") && plan["predicted_slowdown"].is_number() &&
      plan.contains("predicted_step_seconds") && plan["predicted_step_seconds"].is_number()) {
    absl::StrAppend(&out, absl::StrFormat("predicted %.4g s/iteration, slowdown %.2fx\n",
                                          plan["predicted_step_seconds"].get<double>(),
                                          plan["predicted_slowdown"].get<double>()));
  }
  absl::StrAppend(&out, "\n",
                  absl::StrFormat("%-20s %14s %10s %8s %10s\n", "scorer", "raw", "normalized",
                                  "weight", "weighted"));
  if (plan.contains("explain") && plan["explain"].is_array()) {
    for (const Json& c : plan["explain"]) {
      absl::StrAppend(&out,
                      absl::StrFormat("%-20s %14.4g %10.4f %8.3f %10.4f\n", c.value("scorer", ""),
                                      c.value("raw", 0.0), c.value("normalized", 0.0),
                                      c.value("weight", 0.0), c.value("weighted", 0.0)));
    }
  }
  absl::StrAppend(&out, "cost      ", plan.value("cost", Json(0)).dump(), "\n");
  return out;
}

}  // namespace topoplace::client
