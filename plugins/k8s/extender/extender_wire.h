// The kube-scheduler HTTP extender wire format (k8s.io/kube-scheduler/extender/v1, as sent
// by kube-scheduler v1.20): JSON whose keys are the Go field names.
//
//   request  (filter and prioritize): {"Pod": <v1.Pod>, "Nodes": <v1.NodeList>|null,
//                                      "NodeNames": ["n1", ...]|null}
//   filter   answer: {"Nodes": <v1.NodeList>|null, "NodeNames": [...]|null,
//                     "FailedNodes": {"n": "reason"}, "FailedAndUnresolvableNodes": {...},
//                     "Error": ""}
//   prioritize answer: [{"Host": "n1", "Score": 0..10}, ...]
//
// With `nodeCacheCapable: true` the scheduler sends and expects NodeNames; otherwise it
// sends whole Node objects in Nodes.items and expects the passing ones back the same way.
//
//   preempt request: {"Pod": <v1.Pod>,
//                     "NodeNameToMetaVictims": {"n": {"Pods": [{"UID": "..."}],
//                                                     "NumPDBViolations": 0}}   (cache capable)
//                     "NodeNameToVictims": {"n": {"Pods": [<v1.Pod>], ...}}}   (otherwise)
//   preempt answer:  {"NodeNameToMetaVictims": {...}} always (the scheduler maps the UIDs
//                    back to the pods on each node; a UID not on its node fails the cycle)
//
//   TP_ASSIGN_OR_RETURN(ExtenderArgs args, ParseExtenderArgs(body));
//   FilterVerdict verdict;  // e.g. only "n7" passes:
//   verdict.All(FilterVerdict::Outcome::kUnresolvable, "planned elsewhere");
//   verdict.exceptions["n7"] = {};
//   std::string answer = EncodeFilterResult(args, verdict);
//
// Pure functions; thread-safe. Parsing never throws (JSON errors become InvalidArgument).
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_WIRE_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_WIRE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::k8s {

// The parts of a v1.Pod the extender reads.
struct PodInfo {
  std::string name;
  std::string namespace_name;  // "default" when the pod has none
  std::string uid;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
  // uid of the owner reference marked `controller: true` (the Job); empty if none.
  std::string controller_uid;
  // The same reference's apiVersion, kind and name (to own what the extender creates for
  // the pod's group); empty if none.
  std::string controller_api_version, controller_kind, controller_name;
  // spec.priority, which admission sets from the pod's PriorityClass; nullopt if absent.
  std::optional<int64_t> priority;
  // spec.activeDeadlineSeconds: how long the pod may run once started, its time limit;
  // nullopt if absent.
  std::optional<int64_t> active_deadline_seconds;
};

// The PodInfo of one v1.Pod object (as in a request or in a PodList the API server returns).
// InvalidArgument for a pod without metadata, with a non-integer spec.priority or with a
// spec.activeDeadlineSeconds that is not a positive integer.
absl::StatusOr<PodInfo> ParsePod(const nlohmann::json& pod);

struct ExtenderArgs {
  PodInfo pod;
  // Candidate node names in request order (from NodeNames, or from Nodes.items[].metadata.name).
  std::vector<std::string> node_names;
  // True when the request carried whole Node objects (nodeCacheCapable: false); the
  // answer must then carry them back in Nodes.
  bool has_node_objects = false;
  // Nodes.items as received (only with has_node_objects), same order as node_names.
  nlohmann::json node_items;
};

// What a filter decided for each candidate: one outcome for all of them (`others`), with
// per-node exceptions. "Only the planned node passes" is one exception, not 3,999 entries.
struct FilterVerdict {
  enum class Outcome {
    kPass,
    kFail,          // FailedNodes: may fit later (the scheduler may preempt for it)
    kUnresolvable,  // FailedAndUnresolvableNodes: cannot fit this pod whatever happens
  };
  struct Decision {
    Outcome outcome = Outcome::kPass;
    std::string reason;  // empty for kPass
  };

  Decision others;                             // every candidate not in `exceptions`
  std::map<std::string, Decision> exceptions;  // by node name
  // Non-empty: the filter failed as a whole; the scheduler retries the pod later (or, for
  // an `ignorable` extender, carries on without us).
  std::string error;

  // Sets every candidate's outcome (clearing exceptions).
  void All(Outcome outcome, std::string reason) {
    others = {outcome, std::move(reason)};
    exceptions.clear();
  }
  // The decision for `node`.
  const Decision& For(const std::string& node) const {
    auto it = exceptions.find(node);
    return it == exceptions.end() ? others : it->second;
  }
};

struct HostScore {
  std::string host;
  int score = 0;  // 0..kMaxExtenderScore
};

// The highest score an extender may give (extenderv1.MaxExtenderPriority).
inline constexpr int kMaxExtenderScore = 10;

// The victims kube-scheduler's dry run chose on one node (or the extender keeps there).
struct NodeVictims {
  std::vector<std::string> pod_uids;
  int64_t pdb_violations = 0;
};
using VictimsByNode = std::map<std::string, NodeVictims>;

struct PreemptionArgs {
  PodInfo pod;            // the preemptor
  VictimsByNode victims;  // the scheduler's candidates: node -> victims there
};

// Parses a preempt request, from NodeNameToMetaVictims or else NodeNameToVictims (whose
// pods must carry metadata.uid). InvalidArgument, naming the part, for wrong shapes.
absl::StatusOr<PreemptionArgs> ParsePreemptionArgs(absl::string_view body);

// The preempt answer: NodeNameToMetaVictims for `victims` (possibly empty: no preemption).
std::string EncodePreemptionResult(const VictimsByNode& victims);

// Parses a filter or prioritize request. InvalidArgument for malformed JSON, a missing or
// non-object Pod, and node lists of the wrong shape; a request with neither NodeNames nor
// Nodes has no candidates.
absl::StatusOr<ExtenderArgs> ParseExtenderArgs(absl::string_view body);

// The filter answer for `args`: the candidates `verdict` passes, in request order, as
// NodeNames or (has_node_objects) as Nodes objects; the others in FailedNodes or
// FailedAndUnresolvableNodes with their reasons. Exceptions for names that are not
// candidates are left out.
std::string EncodeFilterResult(const ExtenderArgs& args, const FilterVerdict& verdict);

// A filter answer that carries only `error` (used when the request cannot be parsed).
std::string EncodeFilterError(absl::string_view error);

// The prioritize answer; scores are clamped to 0..kMaxExtenderScore.
std::string EncodeHostPriorities(const std::vector<HostScore>& scores);

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_WIRE_H_
