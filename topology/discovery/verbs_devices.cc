#include "topology/discovery/verbs_devices.h"

#ifdef TOPOPLACE_HAVE_IBVERBS
#include <endian.h>
#include <infiniband/verbs.h>
#endif

#include "absl/strings/str_cat.h"

namespace topoplace::discovery {

#ifdef TOPOPLACE_HAVE_IBVERBS
namespace {

int32_t Lanes(uint8_t active_width) {
  switch (active_width) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return 0;
  }
}

// FDR10 lanes run at QDR's 10 Gb/s: two equal branches on purpose.
// NOLINTBEGIN(bugprone-branch-clone)
double LaneGbps(uint32_t active_speed) {
  switch (active_speed) {
    case 1:
      return 2.5;  // SDR
    case 2:
      return 5;  // DDR
    case 4:
      return 10;  // QDR
    case 8:
      return 10;  // FDR10
    case 16:
      return 14;  // FDR
    case 32:
      return 25;  // EDR
    case 64:
      return 50;  // HDR
    case 128:
      return 100;  // NDR
    default:
      return 0;
  }
}
// NOLINTEND(bugprone-branch-clone)

}  // namespace

absl::StatusOr<std::vector<VerbsDevice>> ListVerbsDevices() {
  std::vector<VerbsDevice> devices;
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (list == nullptr) return devices;  // ENOSYS and friends: no RDMA here
  for (int i = 0; i < count; ++i) {
    VerbsDevice& device = devices.emplace_back();
    device.name = ibv_get_device_name(list[i]);
    device.node_guid = be64toh(ibv_get_device_guid(list[i]));
    ibv_context* context = ibv_open_device(list[i]);
    if (context == nullptr) continue;
    ibv_device_attr attr{};
    if (ibv_query_device(context, &attr) != 0) {
      ibv_close_device(context);
      ibv_free_device_list(list);
      return absl::InternalError(absl::StrCat("ibv_query_device failed for ", device.name));
    }
    for (uint8_t p = 1; p <= attr.phys_port_cnt; ++p) {
      ibv_port_attr port{};
      if (ibv_query_port(context, p, &port) != 0) continue;
      VerbsPort& out = device.ports.emplace_back();
      out.port = p;
      out.state = ibv_port_state_str(port.state);
      out.link_layer = port.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
      out.width = Lanes(port.active_width);
      out.speed_gbps = out.width * LaneGbps(port.active_speed);
    }
    ibv_close_device(context);
  }
  ibv_free_device_list(list);
  return devices;
}

#else

absl::StatusOr<std::vector<VerbsDevice>> ListVerbsDevices() {
  return std::vector<VerbsDevice>();  // built without libibverbs: no devices to report
}

#endif

}  // namespace topoplace::discovery
