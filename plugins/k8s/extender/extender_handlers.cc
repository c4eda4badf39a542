#include "plugins/k8s/extender/extender_handlers.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/k8s/extender/extender_wire.h"
#include "plugins/k8s/extender/pod_group.h"

namespace topoplace::k8s {

HttpAnswer ExtenderHandlers::Filter(absl::string_view body) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(body);
  if (!args.ok()) return {400, EncodeFilterError(args.status().message())};
  absl::StatusOr<std::optional<GroupMember>> member = ReadGroupMember(args->pod);
  FilterVerdict verdict;
  if (!member.ok()) {
    verdict.All(FilterVerdict::Outcome::kUnresolvable,
                absl::StrCat("topoplace: ", member.status().message()));
  } else if (member->has_value()) {
    if (keeper_ != nullptr && !(*member)->compute_domain.empty()) keeper_->Note(args->pod);
    verdict = planner_.Filter(**member, args->node_names);
  }
  return {200, EncodeFilterResult(*args, verdict)};
}

namespace {

HttpAnswer BadRequest(const absl::Status& status) {
  return {400, nlohmann::json{{"Error", std::string(status.message())}}.dump(
                   -1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace

HttpAnswer ExtenderHandlers::Preempt(absl::string_view body) {
  absl::StatusOr<PreemptionArgs> args = ParsePreemptionArgs(body);
  if (!args.ok()) return BadRequest(args.status());
  absl::StatusOr<std::optional<GroupMember>> member = ReadGroupMember(args->pod);
  if (!member.ok()) return {200, EncodePreemptionResult({})};
  if (!member->has_value()) return {200, EncodePreemptionResult(args->victims)};
  return {200, EncodePreemptionResult(planner_.Preempt(**member, args->victims))};
}

HttpAnswer ExtenderHandlers::Prioritize(absl::string_view body) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(body);
  if (!args.ok()) return BadRequest(args.status());
  absl::StatusOr<std::optional<GroupMember>> member = ReadGroupMember(args->pod);
  std::vector<HostScore> scores;
  if (!member.ok()) {
    for (const std::string& node : args->node_names) scores.push_back({node, 0});
  } else if (member->has_value()) {
    scores = planner_.Prioritize(**member, args->node_names);
  } else {
    scores = planner_.ScoreUnrelated(args->node_names);
  }
  return {200, EncodeHostPriorities(scores)};
}

}  // namespace topoplace::k8s
