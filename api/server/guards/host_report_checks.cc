#include "api/server/guards/host_report_checks.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/server/guards/request_limits.h"
#include "base/status_macros.h"
#include "store/ports/host_report_store.h"

namespace topoplace::server {
namespace {

// Every string in the report's JSON form, wherever it sits, must be printable and short:
// one walk covers fields added to the report later too.
absl::Status CheckStrings(const nlohmann::json& j, const std::string& path) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    const std::string field = absl::StrCat("report_json: field ", path);
    TP_RETURN_IF_ERROR(CheckField(field, s, kMaxNameBytes * 4, false));
    return CheckPrintable(field, s);
  }
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      TP_RETURN_IF_ERROR(CheckStrings(j[i], absl::StrCat(path, "[", i, "]")));
    }
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      TP_RETURN_IF_ERROR(CheckStrings(value, path.empty() ? key : absl::StrCat(path, ".", key)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSpeed(const std::string& field, double gbps) {
  if (!std::isfinite(gbps) || gbps < 0 || gbps > kMaxPortSpeedGbps) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": expected a speed in [0, ", kMaxPortSpeedGbps, "] Gb/s (0: unknown), got ", gbps));
  }
  return absl::OkStatus();
}

absl::Status CheckCount(absl::string_view field, size_t n, size_t max) {
  if (n > max) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": at most ", max, " entries, got ", n));
  }
  return absl::OkStatus();
}

absl::Status CheckNuma(const std::string& field, int32_t numa) {
  // Linux's MAX_NUMNODES is 1 << CONFIG_NODES_SHIFT, at most 1024 on x86-64 and arm64.
  if (numa < -1 || numa >= 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": expected -1 (unknown) or a NUMA node in [0, 1023], got ", numa));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CheckedHostReport> ParseCheckedHostReport(absl::string_view report_json) {
  TP_RETURN_IF_ERROR(CheckField("report_json", report_json, store::kMaxHostReportBytes, true));
  TP_ASSIGN_OR_RETURN(discovery::AgentReport report,
                      discovery::ParseAgentReport(report_json, "report_json"));
  TP_RETURN_IF_ERROR(CheckHostName("report_json: field host", report.host));
  TP_RETURN_IF_ERROR(CheckCount("report_json: field nics", report.nics.size(), kMaxReportNics));
  TP_RETURN_IF_ERROR(CheckCount("report_json: field gpus", report.gpus.size(), kMaxReportGpus));
  TP_RETURN_IF_ERROR(
      CheckCount("report_json: field lldp", report.lldp.size(), kMaxReportNeighbors));
  for (size_t i = 0; i < report.nics.size(); ++i) {
    const std::string at = absl::StrCat("report_json: field nics[", i, "]");
    TP_RETURN_IF_ERROR(CheckSpeed(at + ".speed_gbps", report.nics[i].speed_gbps));
    TP_RETURN_IF_ERROR(CheckNuma(at + ".numa", report.nics[i].numa));
  }
  for (size_t i = 0; i < report.gpus.size(); ++i) {
    const std::string at = absl::StrCat("report_json: field gpus[", i, "]");
    if (report.gpus[i].index < 0 || static_cast<size_t>(report.gpus[i].index) >= kMaxReportGpus) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ".index: expected 0 to ", kMaxReportGpus - 1, ", got ", report.gpus[i].index));
    }
    TP_RETURN_IF_ERROR(CheckNuma(at + ".numa", report.gpus[i].numa));
  }
  for (size_t i = 0; i < report.lldp.size(); ++i) {
    TP_RETURN_IF_ERROR(CheckSpeed(absl::StrCat("report_json: field lldp[", i, "].speed_gbps"),
                                  report.lldp[i].speed_gbps));
  }
  // The report as it will be stored: what the checks above did not cover is text.
  // (AgentReportToJson pretty-prints for people reading `topoplace-agent --json`.)
  const nlohmann::json stored = nlohmann::json::parse(discovery::AgentReportToJson(report));
  TP_RETURN_IF_ERROR(CheckStrings(stored, ""));
  return CheckedHostReport{std::move(report), stored.dump()};
}

}  // namespace topoplace::server
