// The parts of the RDMA verbs probe transport that are pure logic, kept apart from the
// libibverbs calls so they are unit-tested on recorded device attributes (CI machines
// have no RDMA devices):
// - which port and GID a probe uses (RoCEv2 with an IPv4-mapped GID first, like
//   perftest's -x auto selection; InfiniBand ports use their LID),
// - the QP connection info exchanged over the TCP side channel, and its wire format,
// - the attributes of the RC QP transitions INIT -> RTR -> RTS.
// Port and GID attributes come through the DeviceAttributes interface: from sysfs (a
// recorded tree in tests) or from ibv_query_port / ibv_query_gid_ex (verbs_transport.cc).
//
//   TP_ASSIGN_OR_RETURN(PortChoice port, ChooseProbePort(attributes, "mlx5_0"));
//   QpInfo local{.qpn = qp->qp_num, .psn = psn, .lid = port.lid, .gid = port.gid, ...};
//   std::string wire = EncodeQpInfo(local);          // over the side channel
//   TP_ASSIGN_OR_RETURN(QpInfo remote, DecodeQpInfo(received));
//   RtrAttributes rtr = PlanRtr(port, remote);
//
// Thread-safe (no state).
#ifndef TOPOPLACE_TELEMETRY_PROBE_VERBS_PLAN_H_
#define TOPOPLACE_TELEMETRY_PROBE_VERBS_PLAN_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::telemetry {

using Gid = std::array<uint8_t, 16>;

enum class LinkLayer : uint8_t { kInfiniband, kEthernet };
enum class GidType : uint8_t { kIb, kRoceV1, kRoceV2 };

struct PortAttributes {
  int port = 1;
  bool active = false;  // state ACTIVE (4)
  LinkLayer link_layer = LinkLayer::kInfiniband;
  uint16_t lid = 0;
  int active_mtu_bytes = 4096;  // 256 .. 4096
};

struct GidEntry {
  int index = 0;
  Gid gid{};
  GidType type = GidType::kIb;
};

// What a device tells about its ports and GID tables.
class DeviceAttributes {
 public:
  virtual ~DeviceAttributes() = default;
  // Port numbers of `device` (1-based). NotFound for an unknown device.
  virtual absl::StatusOr<std::vector<int>> Ports(const std::string& device) const = 0;
  virtual absl::StatusOr<PortAttributes> Port(const std::string& device, int port) const = 0;
  // Non-empty GID table entries.
  virtual absl::StatusOr<std::vector<GidEntry>> Gids(const std::string& device, int port) const = 0;
};

// Reads <root>/sys/class/infiniband/<dev>/ports/<n>/{state,link_layer,lid,gids/*,
// gid_attrs/types/*}. Garbage files are InvalidArgument naming the file.
std::unique_ptr<DeviceAttributes> NewSysfsDeviceAttributes(std::string root);

struct PortChoice {
  int port = 1;
  LinkLayer link_layer = LinkLayer::kInfiniband;
  uint16_t lid = 0;
  int gid_index = -1;  // -1: no GID (InfiniBand without GRH)
  Gid gid{};
  int mtu_bytes = 4096;
};

// The first active port of `device`; on Ethernet the RoCEv2 GID holding an IPv4-mapped
// address (::ffff:a.b.c.d), else any RoCEv2 GID, else RoCEv1. FailedPrecondition names
// the device when no port is active or an Ethernet port has no RoCE GID.
absl::StatusOr<PortChoice> ChooseProbePort(const DeviceAttributes& attributes,
                                           const std::string& device);

// What each side sends the other over the TCP side channel (like perftest's
// "local address: LID QPN PSN RKey VAddr GID").
struct QpInfo {
  uint32_t qpn = 0;  // 24 bits
  uint32_t psn = 0;  // 24 bits
  uint16_t lid = 0;
  Gid gid{};
  uint32_t rkey = 0;
  uint64_t addr = 0;  // remote buffer address
  uint32_t size = 0;  // remote buffer size
  int mtu_bytes = 4096;
};

// Fixed-size text form "TPQP1 lid qpn psn rkey addr size mtu gidhex\n" (hex fields).
std::string EncodeQpInfo(const QpInfo& info);
// InvalidArgument for anything malformed or out of range (QPN/PSN > 24 bits, bad MTU).
absl::StatusOr<QpInfo> DecodeQpInfo(absl::string_view text);

// The side channel after the QP info lines: the client asks for `iterations` latency
// ping-pongs ("L <n>"), each side says it is ready to send ("R") once its QP is RTS, and
// the client says when it is done writing into the responder's buffer ("D").
inline constexpr absl::string_view kReadyLine = "R";
inline constexpr absl::string_view kDoneLine = "D";
std::string EncodeLatencyOp(int iterations);
// InvalidArgument unless `line` is "L <n>" with n in 1..10000.
absl::StatusOr<int> DecodeLatencyOp(absl::string_view line);

// Attributes of the RTR transition.
struct RtrAttributes {
  int path_mtu_bytes = 1024;  // min of both ends
  uint32_t dest_qpn = 0;
  uint32_t rq_psn = 0;
  uint16_t dlid = 0;       // InfiniBand only
  bool is_global = false;  // GRH: always on RoCE
  Gid dgid{};
  int sgid_index = 0;
  uint8_t hop_limit = 1;
  uint8_t max_dest_rd_atomic = 1;
  uint8_t min_rnr_timer = 12;
};
RtrAttributes PlanRtr(const PortChoice& local, const QpInfo& remote);

struct RtsAttributes {
  uint32_t sq_psn = 0;
  uint8_t timeout = 14;  // 4.096 us x 2^14 = 67 ms per retry
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  uint8_t max_rd_atomic = 1;
};
RtsAttributes PlanRts(uint32_t local_psn);

// ibv_mtu enum value (1..5) for 256..4096 bytes; 0 for anything else.
int MtuEnum(int bytes);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_PROBE_VERBS_PLAN_H_
