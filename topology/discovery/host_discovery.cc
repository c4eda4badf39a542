#include "topology/discovery/host_discovery.h"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "topology/discovery/gpu_fabric.h"

namespace topoplace::discovery {
namespace {

std::string ReadOr(const SysfsEnv& env, const std::string& path, const std::string& fallback = "") {
  absl::StatusOr<std::string> text = env.ReadFile(path);
  return text.ok() ? *text : fallback;
}

int32_t ReadInt(const SysfsEnv& env, const std::string& path, int32_t fallback) {
  const std::string text = ReadOr(env, path);
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end != text.data() ? value : fallback;
}

// "0000:17:00.0" from a resolved device path ".../0000:17:00.0".
std::string PciAddress(const std::string& real_path) {
  return real_path.substr(real_path.find_last_of('/') + 1);
}

// "400 Gb/sec (4X NDR)" -> 400.
double RateGbps(const std::string& rate) {
  double value = 0;
  auto [end, ec] = std::from_chars(rate.data(), rate.data() + rate.size(), value);
  return ec == std::errc() && end != rate.data() ? value : 0;
}

// "4: ACTIVE" -> "active"; "up" -> "up".
std::string PortState(const std::string& state) {
  const size_t colon = state.find(':');
  std::string word(
      absl::StripAsciiWhitespace(colon == std::string::npos ? state : state.substr(colon + 1)));
  absl::AsciiStrToLower(&word);
  return word;
}

// True for the all-zero GIDs that fill the unused rows of a GID table.
bool IsZeroGid(absl::string_view gid) {
  return std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; });
}

// The used rows of one port's GID table (ports/<n>/gids/<i> with gid_attrs/types/<i> and
// gid_attrs/ndevs/<i>), in index order. The kernel prints "IB/RoCE v1" for type 0, which
// is IB on an InfiniBand port and RoCE v1 on an Ethernet one.
std::vector<AgentGid> ReadGids(const SysfsEnv& env, const std::string& port_dir,
                               const std::string& link_layer) {
  std::vector<int32_t> indexes;
  for (const std::string& name : env.ListDir(port_dir + "/gids")) {
    int32_t i = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), i);
    if (ec == std::errc() && end == name.data() + name.size() && i >= 0) indexes.push_back(i);
  }
  std::sort(indexes.begin(), indexes.end());
  std::vector<AgentGid> gids;
  for (int32_t i : indexes) {
    AgentGid gid;
    gid.index = i;
    gid.gid = ReadOr(env, absl::StrCat(port_dir, "/gids/", i));
    if (gid.gid.empty() || IsZeroGid(gid.gid)) continue;
    const std::string type = ReadOr(env, absl::StrCat(port_dir, "/gid_attrs/types/", i));
    if (link_layer == "InfiniBand") {
      gid.type = "IB";
    } else if (absl::StrContains(type, "v2")) {
      gid.type = "RoCE v2";
    } else if (absl::StrContains(type, "v1")) {
      gid.type = "RoCE v1";
    }
    gid.netdev = ReadOr(env, absl::StrCat(port_dir, "/gid_attrs/ndevs/", i));
    gids.push_back(std::move(gid));
  }
  return gids;
}

// An InfiniBand port's GUID: the interface half of its GID 0 (fe80::<port GUID>); 0 when
// the port has no IB GID 0.
uint64_t PortGuid(const std::vector<AgentGid>& gids) {
  for (const AgentGid& gid : gids) {
    if (gid.index != 0 || gid.type != "IB") continue;
    const std::vector<absl::string_view> groups = absl::StrSplit(gid.gid, ':');
    if (groups.size() != 8) return 0;
    return ParseGuid(absl::StrJoin(groups.begin() + 4, groups.end(), ":")).value_or(0);
  }
  return 0;
}

struct PciNic {
  size_t nic;             // index into report.nics
  std::string real_path;  // resolved sysfs device path
};

void AddRdmaDevices(const SysfsEnv& env, AgentReport& report, std::vector<PciNic>& pci_nics,
                    std::vector<std::string>& claimed_netdevs) {
  for (const std::string& dev : env.ListDir("sys/class/infiniband")) {
    const std::string base = absl::StrCat("sys/class/infiniband/", dev);
    const std::string device = env.RealPath(base + "/device");
    const std::vector<std::string> netdevs = env.ListDir(base + "/device/net");
    for (const std::string& port : env.ListDir(base + "/ports")) {
      const std::string port_dir = absl::StrCat(base, "/ports/", port);
      AgentNic nic;
      nic.rdma_device = dev;
      nic.link_layer = ReadOr(env, port_dir + "/link_layer");
      nic.speed_gbps = RateGbps(ReadOr(env, port_dir + "/rate"));
      nic.state = PortState(ReadOr(env, port_dir + "/state"));
      nic.gids = ReadGids(env, port_dir, nic.link_layer);
      nic.node_guid = ParseGuid(ReadOr(env, base + "/node_guid")).value_or(0);
      nic.sys_image_guid = ParseGuid(ReadOr(env, base + "/sys_image_guid")).value_or(0);
      nic.port_guid = PortGuid(nic.gids);
      nic.numa = device.empty() ? -1 : ReadInt(env, base + "/device/numa_node", -1);
      nic.pci = device.empty() ? "" : PciAddress(device);
      const bool roce = nic.link_layer == "Ethernet" && !netdevs.empty();
      nic.name = roce ? netdevs.front() : dev;
      if (env.ListDir(base + "/ports").size() > 1)
        absl::StrAppend(&nic.name, roce ? "" : "-p" + port);
      if (roce) claimed_netdevs.push_back(netdevs.front());
      if (!device.empty()) pci_nics.push_back({report.nics.size(), device});
      report.nics.push_back(std::move(nic));
    }
  }
}

void AddNetdevs(const SysfsEnv& env, const HostDiscoveryOptions& options, AgentReport& report,
                std::vector<PciNic>& pci_nics, const std::vector<std::string>& claimed) {
  for (const std::string& dev : env.ListDir("sys/class/net")) {
    if (std::find(claimed.begin(), claimed.end(), dev) != claimed.end()) continue;
    const std::string base = absl::StrCat("sys/class/net/", dev);
    if (ReadOr(env, base + "/type") == "772") continue;  // ARPHRD_LOOPBACK
    const std::string device = env.RealPath(base + "/device");
    const bool matches = !options.netdev_pattern.empty() &&
                         fnmatch(options.netdev_pattern.c_str(), dev.c_str(), 0) == 0;
    if (device.empty() && !matches) continue;
    AgentNic nic;
    nic.name = dev;
    nic.link_layer = "Ethernet";
    const int32_t mbps = ReadInt(env, base + "/speed", -1);
    nic.speed_gbps = mbps > 0 ? mbps / 1000.0 : 0;
    nic.state = PortState(ReadOr(env, base + "/operstate", "unknown"));
    if (!device.empty()) {
      nic.pci = PciAddress(device);
      nic.numa = ReadInt(env, base + "/device/numa_node", -1);
      pci_nics.push_back({report.nics.size(), device});
    }
    report.nics.push_back(std::move(nic));
  }
}

void AddGpus(const SysfsEnv& env, AgentReport& report, const std::vector<PciNic>& pci_nics) {
  int32_t index = 0;
  for (const std::string& bdf : env.ListDir("sys/bus/pci/devices")) {  // sorted: PCI order
    const std::string base = absl::StrCat("sys/bus/pci/devices/", bdf);
    if (ReadOr(env, base + "/vendor") != "0x10de") continue;
    const std::string cls = ReadOr(env, base + "/class");
    if (!absl::StartsWith(cls, "0x0300") && !absl::StartsWith(cls, "0x0302")) continue;
    AgentGpu gpu;
    gpu.index = index++;
    gpu.pci = bdf;
    gpu.numa = ReadInt(env, base + "/numa_node", -1);
    const std::string real = env.RealPath(base);
    int best = 1;  // sharing only the root port is not enough for GPUDirect RDMA
    for (const PciNic& nic : pci_nics) {
      const int depth = SharedPciDepth(real, nic.real_path);
      if (depth > best) {
        best = depth;
        gpu.nic = report.nics[nic.nic].name;
      }
    }
    report.gpus.push_back(std::move(gpu));
  }
}

}  // namespace

int SharedPciDepth(const std::string& real_path_a, const std::string& real_path_b) {
  auto below_root = [](const std::string& path) {
    std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
    auto root = std::find_if(parts.begin(), parts.end(),
                             [](const std::string& p) { return absl::StartsWith(p, "pci"); });
    if (root == parts.end()) return std::vector<std::string>();
    // Keep the root complex itself: devices under different root complexes share nothing.
    return std::vector<std::string>(root, parts.end());
  };
  const std::vector<std::string> a = below_root(real_path_a), b = below_root(real_path_b);
  if (a.empty() || b.empty() || a.front() != b.front()) return 0;
  int depth = 0;
  // The last component is the device itself; two devices never share it.
  for (size_t i = 1; i + 1 < a.size() && i + 1 < b.size() && a[i] == b[i]; ++i) ++depth;
  return depth;
}

absl::StatusOr<AgentReport> DiscoverHost(const SysfsEnv& env, const HostDiscoveryOptions& options) {
  AgentReport report;
  std::vector<PciNic> pci_nics;
  std::vector<std::string> claimed;
  AddRdmaDevices(env, report, pci_nics, claimed);
  AddNetdevs(env, options, report, pci_nics, claimed);
  AddGpus(env, report, pci_nics);
  if (!options.nvlink_domain_file.empty()) {
    absl::StatusOr<std::string> domain = env.ReadFile(options.nvlink_domain_file);
    if (domain.ok()) {
      report.nvlink_domain = *domain;
    } else {
      report.warnings.push_back(absl::StrCat("NVLink domain file ", options.nvlink_domain_file,
                                             " not readable; host is its own domain"));
    }
  }
  if (report.nvlink_domain.empty() && !options.nvidia_smi_q.empty()) {
    absl::StatusOr<std::vector<GpuFabricInfo>> gpus =
        ParseNvidiaSmiFabric(options.nvidia_smi_q, "nvidia-smi -q");
    if (!gpus.ok()) {
      report.warnings.push_back(
          absl::StrCat(gpus.status().message(), "; host is its own NVLink domain"));
      return report;
    }
    GpuFabricDomain domain = NvlinkDomainOf(*gpus);
    report.nvlink_domain = domain.domain;
    for (const GpuFabricInfo& gpu : *gpus) {
      if (report.gpu_model.empty()) report.gpu_model = gpu.product;
    }
    for (std::string& w : domain.warnings) report.warnings.push_back(std::move(w));
  }
  return report;
}

}  // namespace topoplace::discovery
