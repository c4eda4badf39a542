#include "plugins/k8s/extender/compute_domains.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/json_depth.h"
#include "plugins/k8s/extender/extender_wire.h"
#include "plugins/k8s/extender/pod_group.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::k8s {
namespace {

using json = nlohmann::json;

// Unscheduled pods carrying the label, in every namespace.
constexpr char kPendingLabelledPods[] =
    "/api/v1/pods?labelSelector=topoplace.io%2Fcompute-domain&fieldSelector=spec.nodeName%3D";

// A ComputeDomain one or more pending pods ask for.
struct Wanted {
  std::string namespace_name, name, group;
  bool create = false;           // "auto": ours to create
  int64_t nodes = 0;             // the group's node count (0 if its spec does not parse)
  const PodInfo* pod = nullptr;  // one of its pods (for the owner reference)
};

// An object name Kubernetes takes (a DNS subdomain), leaving room for "-channel".
bool IsObjectName(absl::string_view name) {
  if (name.empty() || name.size() > 244) return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-' && c != '.') return false;
  }
  return absl::ascii_isalnum(name.front()) && absl::ascii_isalnum(name.back());
}

std::string Path(const Wanted& w, bool with_name) {
  std::string path =
      absl::StrCat(kComputeDomainApi, "/namespaces/", w.namespace_name, "/computedomains");
  if (with_name) absl::StrAppend(&path, "/", w.name);
  return path;
}

absl::Status Refused(absl::string_view call, const KubeReply& reply) {
  std::string message = reply.body.substr(0, 512);
  json status = CheckJsonDepth(reply.body, "status").ok()
                    ? json::parse(reply.body, nullptr, /*allow_exceptions=*/false)
                    : json();
  if (status.is_object() && status.contains("message") && status["message"].is_string()) {
    message = status["message"].get<std::string>();
  }
  return absl::InternalError(
      absl::StrCat("Kubernetes API ", call, ": HTTP ", reply.status, ": ", message));
}

// spec.numNodes of a ComputeDomain object, 0 when absent or not an integer.
int64_t NumNodes(const std::string& body) {
  if (!CheckJsonDepth(body, "ComputeDomain").ok()) return 0;
  const json cd = json::parse(body, nullptr, /*allow_exceptions=*/false);
  const json::json_pointer at("/spec/numNodes");
  if (!cd.is_object() || !cd.contains(at) || !cd[at].is_number_integer()) return 0;
  return cd[at].get<int64_t>();
}

json NewComputeDomain(const Wanted& w) {
  json cd = {{"apiVersion", "resource.nvidia.com/v1beta1"},
             {"kind", "ComputeDomain"},
             {"metadata",
              {{"name", w.name},
               {"namespace", w.namespace_name},
               {"labels", {{kManagedByLabel, kManagedByExtender}}},
               {"annotations", {{kGroupAnnotation, w.group}}}}},
             {"spec",
              {{"numNodes", w.nodes},
               {"channel", {{"resourceClaimTemplate", {{"name", ChannelTemplateName(w.name)}}}}}}}};
  const PodInfo& pod = *w.pod;
  if (!pod.controller_uid.empty() && !pod.controller_kind.empty()) {
    cd["metadata"]["ownerReferences"] = json::array({{{"apiVersion", pod.controller_api_version},
                                                      {"kind", pod.controller_kind},
                                                      {"name", pod.controller_name},
                                                      {"uid", pod.controller_uid}}});
  }
  return cd;
}

// The ComputeDomains the pending pods of `list` ask for, by "<namespace>/<name>"; a pod
// that cannot say which adds a problem.
std::map<std::string, Wanted> WantedDomains(const std::vector<PodInfo>& pods,
                                            std::vector<std::string>& problems) {
  std::map<std::string, Wanted> wanted;
  for (const PodInfo& pod : pods) {
    const std::string where = absl::StrCat("pod ", pod.namespace_name, "/", pod.name, ": ");
    absl::StatusOr<std::optional<GroupMember>> member = ReadGroupMember(pod);
    if (!member.ok() || !member->has_value()) {
      problems.push_back(absl::StrCat(
          where, member.ok() ? absl::StrCat("label ", kComputeDomainLabel, " without a ",
                                            kJobSpecAnnotation, " annotation")
                             : member.status().message()));
      continue;
    }
    Wanted w;
    w.namespace_name = pod.namespace_name;
    w.group = (*member)->group_key.substr(pod.namespace_name.size() + 1);
    w.create = (*member)->compute_domain == kComputeDomainAuto;
    w.name = w.create ? w.group : (*member)->compute_domain;
    if (!IsObjectName(w.name)) {
      problems.push_back(absl::StrCat(where, "'", w.name,
                                      "' cannot name a ComputeDomain (lower-case letters, digits, "
                                      "'-' and '.', at most 244)"));
      continue;
    }
    absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec((*member)->job_spec);
    w.nodes = job.ok() ? job->nodes() : 0;
    w.pod = &pod;
    wanted.try_emplace(absl::StrCat(w.namespace_name, "/", w.name), std::move(w));
  }
  return wanted;
}

}  // namespace

std::string ChannelTemplateName(const std::string& group) {
  return absl::StrCat(group, "-channel");
}

void ComputeDomainKeeper::Note(const PodInfo& pod) {
  absl::MutexLock lock(&mu_);
  if (noted_.size() < kMaxNoted) noted_.push_back(pod);
}

absl::StatusOr<ComputeDomainKeeper::Pass> ComputeDomainKeeper::Sync() {
  std::vector<PodInfo> noted;
  {
    absl::MutexLock lock(&mu_);
    noted.swap(noted_);
  }
  absl::StatusOr<Pass> pass = SyncWith(noted);
  if (!pass.ok()) {  // seen to on the next pass
    absl::MutexLock lock(&mu_);
    for (PodInfo& pod : noted) {
      if (noted_.size() < kMaxNoted) noted_.push_back(std::move(pod));
    }
  }
  return pass;
}

absl::StatusOr<ComputeDomainKeeper::Pass> ComputeDomainKeeper::SyncWith(
    const std::vector<PodInfo>& noted) {
  absl::StatusOr<KubeReply> listed = api_.Send("GET", kPendingLabelledPods, "");
  if (!listed.ok()) return listed.status();
  if (listed->status != 200) return Refused("list pending pods", *listed);
  if (absl::Status deep = CheckJsonDepth(listed->body, "Kubernetes API pod list"); !deep.ok()) {
    return absl::InternalError(deep.message());
  }
  json list = json::parse(listed->body, nullptr, /*allow_exceptions=*/false);
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    return absl::InternalError("Kubernetes API list pending pods: not a PodList");
  }
  Pass pass;
  std::vector<PodInfo> pods = noted;
  for (const json& item : list["items"]) {
    absl::StatusOr<PodInfo> pod = ParsePod(item);
    if (pod.ok()) pods.push_back(*std::move(pod));
  }
  for (const auto& [key, w] : WantedDomains(pods, pass.problems)) {
    absl::StatusOr<KubeReply> got = api_.Send("GET", Path(w, true), "");
    if (!got.ok()) return got.status();
    if (got->status == 200) {
      pass.found.push_back(key);
      const int64_t declared = NumNodes(got->body);
      if (declared != 0 && w.nodes != 0 && declared != w.nodes) {
        pass.problems.push_back(absl::StrCat("ComputeDomain ", key, " has numNodes ", declared,
                                             " but group ", w.group, " runs on ", w.nodes,
                                             " nodes"));
      }
      continue;
    }
    if (got->status != 404) return Refused(absl::StrCat("get ComputeDomain ", key), *got);
    if (!w.create) {
      pass.problems.push_back(absl::StrCat("group ", w.namespace_name, "/", w.group,
                                           " waits for its ComputeDomain ", key,
                                           ", which does not exist"));
      continue;
    }
    absl::StatusOr<KubeReply> made = api_.Send("POST", Path(w, false), NewComputeDomain(w).dump());
    if (!made.ok()) return made.status();
    if (made->status == 201 || made->status == 200) {
      pass.created.push_back(key);
    } else if (made->status == 409) {
      pass.found.push_back(key);  // made meanwhile (another extender, the workload)
    } else if (made->status == 404) {
      return absl::NotFoundError(absl::StrCat(
          "Kubernetes API create ComputeDomain ", key, ": HTTP 404: ", kComputeDomainApi,
          " is not served; install NVIDIA's DRA driver for GPUs (its ComputeDomain CRD)"));
    } else {
      return Refused(absl::StrCat("create ComputeDomain ", key), *made);
    }
  }
  return pass;
}

}  // namespace topoplace::k8s
