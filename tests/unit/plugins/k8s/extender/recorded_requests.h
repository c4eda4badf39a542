// The requests a real kube-scheduler v1.20.2 sent to an extender (nodeCacheCapable: true),
// recorded in testdata/kube-scheduler-1.20-requests.jsonl (one {"path", "body"} per line;
// a copy of ../shared/fixtures/k8s-extender/). The build defines TP_K8S_TESTDATA_DIR.
#ifndef TOPOPLACE_TESTS_UNIT_PLUGINS_K8S_EXTENDER_RECORDED_REQUESTS_H_
#define TOPOPLACE_TESTS_UNIT_PLUGINS_K8S_EXTENDER_RECORDED_REQUESTS_H_

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace topoplace::k8s::testing {

struct RecordedRequest {
  std::string path;  // "/topo/filter", "/topo/prioritize"
  std::string body;  // the JSON body, as sent
};

inline std::vector<RecordedRequest> LoadRecordedRequests() {
  std::ifstream in(std::string(TP_K8S_TESTDATA_DIR) + "/kube-scheduler-1.20-requests.jsonl");
  std::vector<RecordedRequest> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json record = nlohmann::json::parse(line);
    out.push_back({record["path"].get<std::string>(), record["body"].dump()});
  }
  return out;
}

// A recorded request body with annotations added to its pod.
inline std::string WithAnnotations(const std::string& body, const nlohmann::json& annotations) {
  nlohmann::json j = nlohmann::json::parse(body);
  j["Pod"]["metadata"]["annotations"] = annotations;
  return j.dump();
}

}  // namespace topoplace::k8s::testing

#endif  // TOPOPLACE_TESTS_UNIT_PLUGINS_K8S_EXTENDER_RECORDED_REQUESTS_H_
