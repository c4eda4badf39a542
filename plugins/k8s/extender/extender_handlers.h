// The extender's two verbs as functions of the request body: parse the wire format, ask
// the gang planner, encode the answer. No HTTP here (see extender_server.h), so tests and
// benchmarks call them directly.
//
//   ExtenderHandlers handlers(planner);
//   HttpAnswer a = handlers.Filter(request_body);   // a.status 200 or 400, a.body JSON
//
// Thread-safe (the planner is).
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_HANDLERS_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_HANDLERS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "plugins/k8s/extender/compute_domains.h"
#include "plugins/k8s/extender/gang_planner.h"

namespace topoplace::k8s {

struct HttpAnswer {
  int status = 200;  // 400 for a request that cannot be parsed
  std::string body;  // JSON
};

class ExtenderHandlers {
 public:
  // `planner` (and `keeper`, if any: it is told of the pods of ComputeDomain groups the
  // filter sees) must outlive the handlers.
  explicit ExtenderHandlers(GangPlanner& planner, ComputeDomainKeeper* keeper = nullptr)
      : planner_(planner), keeper_(keeper) {}

  // Pods without a job spec pass on every node untouched. Pods of a group are steered to
  // their planned node; a job-spec pod with unusable annotations fails on every node
  // (unresolvable) with the reason. A malformed request is 400 with `Error` set.
  HttpAnswer Filter(absl::string_view body);

  // The preempt verb. For a pod of a group: at most its planned node with the scheduler's
  // victims there (GangPlanner::Preempt). Pods without a job spec keep the scheduler's
  // candidates unchanged; a job-spec pod with unusable annotations gets none. A malformed
  // request is 400 with {"Error": ...}.
  HttpAnswer Preempt(absl::string_view body);

  // The planned node scores kMaxExtenderScore; pods without a job spec get the planner's
  // mild score. A malformed request is 400 with {"Error": ...}.
  HttpAnswer Prioritize(absl::string_view body);

 private:
  GangPlanner& planner_;
  ComputeDomainKeeper* const keeper_;
};

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_HANDLERS_H_
