// libFuzzer target: any bytes through the Kubernetes readers: the NodeList (clique labels)
// and the DRA ResourceSliceList (GPUs, RDMA NICs, PCIe roots).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "topology/discovery/k8s_nodes.h"
#include "topology/discovery/k8s_resource_slices.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  (void)topoplace::discovery::ParseK8sNodeList(text, "fuzz");
  (void)topoplace::discovery::ParseK8sResourceSlices(text, "fuzz");
  return 0;
}
