// GPUs and RDMA NICs, and which share a PCIe root, from Kubernetes DRA ResourceSlices
// (resource.k8s.io/v1) as the drivers publish them: NVIDIA's GPU driver (`gpu.nvidia.com`,
// NVIDIA/k8s-dra-driver-gpu) and an RDMA NIC driver such as DraNet (`dra.net`,
// kubernetes-sigs/dranet). Read from a ResourceSliceList as the apiserver returns it (GET
// /apis/resource.k8s.io/v1/resourceslices) or `kubectl get resourceslices -o json` writes
// it: a discovery source beside sysfs for clusters whose hosts run no topoplace agent.
//
//   TP_ASSIGN_OR_RETURN(FabricFacts f, LoadK8sResourceSlices("slices.json"));
//
// Per node (spec.nodeName; slices without one are skipped):
// - GPUs: gpu.nvidia.com devices of type "gpu" (MIG and VFIO devices are skipped), ordered
//   by `resource.kubernetes.io/pciBusID` (`pcieBusID` before driver v25.12), which is
//   nvidia-smi's order and CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID; their position is the
//   GPU index. The driver publishes no index of its own.
// - NICs: dra.net devices with `dra.net/rdma` true, named by `dra.net/rdmaDevice` (the
//   fabric's NIC name, e.g. mlx5_0), ordered by `dra.net/pciAddress`.
// - Each GPU's NIC is one under the same `resource.kubernetes.io/pcieRoot`: with g GPUs and
//   n NICs under a root, both in PCI order, GPU k gets NIC floor(k * n / g) (one each when
//   n == g, shared when n < g). A GPU or NIC without a pcieRoot (the drivers omit it when
//   sysfs does not resolve it) pairs with nothing.
// Devices of other drivers are ignored. fabric import merges these facts after every
// discovered source, so a host's own agent report wins a conflict (the merger warns).
//
// Errors: InvalidArgument naming the origin and items[i] (and the device) for text that is
// not a ResourceSliceList, a slice without spec.driver, or an attribute of the wrong type.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_K8S_RESOURCE_SLICES_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_K8S_RESOURCE_SLICES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/facts.h"

namespace topoplace::discovery {

inline constexpr char kNvidiaGpuDriver[] = "gpu.nvidia.com";
inline constexpr char kDranetDriver[] = "dra.net";
inline constexpr char kPcieRootAttribute[] = "resource.kubernetes.io/pcieRoot";

absl::StatusOr<FabricFacts> ParseK8sResourceSlices(absl::string_view text,
                                                   absl::string_view origin);
// The same for the file at `path`; NotFound if it cannot be read.
absl::StatusOr<FabricFacts> LoadK8sResourceSlices(const std::string& path);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_K8S_RESOURCE_SLICES_H_
