// libFuzzer target: any bytes as a kube-scheduler extender request, through the wire
// parsers (filter/prioritize and preempt), the pod-group reader and the answer encoders (which must
// accept whatever the parser let through, including invalid UTF-8 in names and reasons); and
// as every reply of the API server to the ComputeDomain keeper (the pod list, a ComputeDomain).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "plugins/k8s/extender/compute_domains.h"
#include "plugins/k8s/extender/extender_wire.h"
#include "plugins/k8s/extender/pod_group.h"

namespace {

// Answers every call with the fuzzer's bytes.
class EchoKubeApi : public topoplace::k8s::KubeApi {
 public:
  explicit EchoKubeApi(absl::string_view body) : body_(body) {}
  absl::StatusOr<topoplace::k8s::KubeReply> Send(absl::string_view, absl::string_view,
                                                 absl::string_view) override {
    return topoplace::k8s::KubeReply{200, std::string(body_)};
  }

 private:
  absl::string_view body_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topoplace::k8s;  // NOLINT(build/namespaces)
  const absl::string_view body(reinterpret_cast<const char*>(data), size);
  EchoKubeApi api(body);
  (void)ComputeDomainKeeper(api).Sync();
  if (absl::StatusOr<PreemptionArgs> preempt = ParsePreemptionArgs(body); preempt.ok()) {
    (void)ReadGroupMember(preempt->pod);
    (void)EncodePreemptionResult(preempt->victims);
  }
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(body);
  if (!args.ok()) {
    (void)EncodeFilterError(args.status().message());
    return 0;
  }
  (void)ReadGroupMember(args->pod);
  FilterVerdict verdict;
  std::vector<HostScore> scores;
  for (size_t i = 0; i < args->node_names.size(); ++i) {
    const std::string& name = args->node_names[i];
    if (i % 3 == 1) verdict.exceptions[name] = {FilterVerdict::Outcome::kFail, name};
    if (i % 3 == 2)
      verdict.exceptions[name] = {FilterVerdict::Outcome::kUnresolvable, args->pod.name};
    scores.push_back({name, static_cast<int>(i) - 5});
  }
  (void)EncodeFilterResult(*args, verdict);
  (void)EncodeHostPriorities(scores);
  return 0;
}
