#include "telemetry/probe/verbs_plan.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadSmall(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot be read"));
  std::string text(256, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return std::string(absl::StripAsciiWhitespace(text));
}

// "fe80:0000:...:0001" (8 groups of 4 hex digits) -> 16 bytes.
absl::StatusOr<Gid> ParseGid(absl::string_view where, absl::string_view text) {
  const std::vector<absl::string_view> groups = absl::StrSplit(text, ':');
  Gid gid{};
  bool ok = groups.size() == 8;
  for (size_t i = 0; ok && i < 8; ++i) {
    uint32_t v = 0;
    ok = groups[i].size() == 4 && absl::SimpleHexAtoi(groups[i], &v);
    gid[2 * i] = static_cast<uint8_t>(v >> 8);
    gid[2 * i + 1] = static_cast<uint8_t>(v & 0xff);
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected a GID of 8 colon-separated 4-digit hex groups, got '",
                     text.substr(0, 64), "'"));
  }
  return gid;
}

bool IsZero(const Gid& gid) {
  return std::all_of(gid.begin(), gid.end(), [](uint8_t b) { return b == 0; });
}

bool IsIpv4Mapped(const Gid& gid) {
  for (int i = 0; i < 10; ++i) {
    if (gid[i] != 0) return false;
  }
  return gid[10] == 0xff && gid[11] == 0xff;
}

std::string GidHex(const Gid& gid) {
  std::string out;
  for (uint8_t b : gid) absl::StrAppendFormat(&out, "%02x", b);
  return out;
}

class SysfsDeviceAttributes final : public DeviceAttributes {
 public:
  explicit SysfsDeviceAttributes(std::string root) : root_(std::move(root)) {}

  absl::StatusOr<std::vector<int>> Ports(const std::string& device) const override {
    const fs::path dir = Dir(device) / "ports";
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
      return absl::NotFoundError(absl::StrCat(dir.string(), ": no such RDMA device"));
    }
    std::vector<int> ports;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, error)) {
      int n = 0;
      if (absl::SimpleAtoi(e.path().filename().string(), &n) && n > 0) ports.push_back(n);
    }
    std::sort(ports.begin(), ports.end());
    return ports;
  }

  absl::StatusOr<PortAttributes> Port(const std::string& device, int port) const override {
    const fs::path dir = Dir(device) / "ports" / std::to_string(port);
    PortAttributes a;
    a.port = port;
    TP_ASSIGN_OR_RETURN(std::string state, ReadSmall(dir / "state"));
    int code = 0;
    if (!absl::SimpleAtoi(state.substr(0, state.find(':')), &code)) {
      return absl::InvalidArgumentError(
          absl::StrCat((dir / "state").string(), ": expected 'N: NAME', got '", state, "'"));
    }
    a.active = code == 4;
    TP_ASSIGN_OR_RETURN(std::string layer, ReadSmall(dir / "link_layer"));
    if (layer == "Ethernet") {
      a.link_layer = LinkLayer::kEthernet;
      a.active_mtu_bytes = 1024;  // sysfs has no active MTU; RoCE on a 1500-byte netdev
    } else if (layer == "InfiniBand") {
      a.link_layer = LinkLayer::kInfiniband;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          (dir / "link_layer").string(), ": expected Ethernet or InfiniBand, got '", layer, "'"));
    }
    absl::StatusOr<std::string> lid_text = ReadSmall(dir / "lid");
    if (!lid_text.ok()) return lid_text.status();
    const std::string lid = *lid_text;
    uint32_t v = 0;
    if (lid.size() < 3 || lid.compare(0, 2, "0x") != 0 || !absl::SimpleHexAtoi(lid.substr(2), &v) ||
        v > 0xffff) {
      return absl::InvalidArgumentError(
          absl::StrCat((dir / "lid").string(), ": expected a 16-bit hex LID, got '", lid, "'"));
    }
    a.lid = static_cast<uint16_t>(v);
    return a;
  }

  absl::StatusOr<std::vector<GidEntry>> Gids(const std::string& device, int port) const override {
    const fs::path dir = Dir(device) / "ports" / std::to_string(port);
    std::vector<GidEntry> out;
    std::error_code error;
    for (const fs::directory_entry& e : fs::directory_iterator(dir / "gids", error)) {
      int index = 0;
      if (!absl::SimpleAtoi(e.path().filename().string(), &index)) continue;
      TP_ASSIGN_OR_RETURN(std::string text, ReadSmall(e.path()));
      TP_ASSIGN_OR_RETURN(Gid gid, ParseGid(e.path().string(), text));
      if (IsZero(gid)) continue;
      GidEntry entry{index, gid, GidType::kIb};
      const fs::path type_file = dir / "gid_attrs/types" / std::to_string(index);
      if (fs::exists(type_file, error)) {
        absl::StatusOr<std::string> type = ReadSmall(type_file);
        // Reading the type of an unused entry fails with EINVAL on real hardware.
        if (type.ok() && *type == "RoCE v2") entry.type = GidType::kRoceV2;
        if (type.ok() && *type == "IB/RoCE v1") entry.type = GidType::kRoceV1;
      }
      out.push_back(entry);
    }
    if (error) {
      return absl::NotFoundError(absl::StrCat((dir / "gids").string(), ": ", error.message()));
    }
    std::sort(out.begin(), out.end(),
              [](const GidEntry& a, const GidEntry& b) { return a.index < b.index; });
    return out;
  }

 private:
  fs::path Dir(const std::string& device) const {
    return fs::path(root_) / "sys/class/infiniband" / device;
  }
  std::string root_;
};

}  // namespace

std::unique_ptr<DeviceAttributes> NewSysfsDeviceAttributes(std::string root) {
  return std::make_unique<SysfsDeviceAttributes>(std::move(root));
}

absl::StatusOr<PortChoice> ChooseProbePort(const DeviceAttributes& attributes,
                                           const std::string& device) {
  TP_ASSIGN_OR_RETURN(std::vector<int> ports, attributes.Ports(device));
  for (int port : ports) {
    TP_ASSIGN_OR_RETURN(PortAttributes a, attributes.Port(device, port));
    if (!a.active) continue;
    PortChoice choice{port, a.link_layer, a.lid, -1, {}, a.active_mtu_bytes};
    TP_ASSIGN_OR_RETURN(std::vector<GidEntry> gids, attributes.Gids(device, port));
    if (a.link_layer == LinkLayer::kInfiniband) {
      if (!gids.empty()) {
        choice.gid_index = gids.front().index;
        choice.gid = gids.front().gid;
      }
      return choice;
    }
    // RoCE: v2 with an IPv4-mapped address (routable, what NCCL/perftest pick), then any
    // v2, then v1.
    const GidEntry* best = nullptr;
    auto rank = [](const GidEntry& e) {
      if (e.type == GidType::kRoceV2) return IsIpv4Mapped(e.gid) ? 3 : 2;
      return e.type == GidType::kRoceV1 ? 1 : 0;
    };
    for (const GidEntry& e : gids) {
      if (rank(e) > 0 && (best == nullptr || rank(e) > rank(*best))) best = &e;
    }
    if (best == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          device, " port ", port, ": Ethernet port without a RoCE GID (is the netdev up?)"));
    }
    choice.gid_index = best->index;
    choice.gid = best->gid;
    return choice;
  }
  return absl::FailedPreconditionError(absl::StrCat(device, ": no ACTIVE port"));
}

std::string EncodeQpInfo(const QpInfo& i) {
  return absl::StrFormat("TPQP1 %04x %06x %06x %08x %016x %08x %04x %s\n", i.lid, i.qpn, i.psn,
                         i.rkey, i.addr, i.size, i.mtu_bytes, GidHex(i.gid));
}

std::string EncodeLatencyOp(int iterations) { return absl::StrCat("L ", iterations, "\n"); }

absl::StatusOr<int> DecodeLatencyOp(absl::string_view line) {
  int iterations = 0;
  if (line.size() < 3 || line.substr(0, 2) != "L " ||
      !absl::SimpleAtoi(line.substr(2), &iterations) || iterations < 1 || iterations > 10000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "side channel: expected 'L <iterations 1..10000>', got '", line.substr(0, 40), "'"));
  }
  return iterations;
}

absl::StatusOr<QpInfo> DecodeQpInfo(absl::string_view text) {
  const std::vector<absl::string_view> f =
      absl::StrSplit(absl::StripAsciiWhitespace(text), ' ', absl::SkipEmpty());
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("QP info from the peer: ", why, " in '", text.substr(0, 120), "'"));
  };
  if (f.size() != 9 || f[0] != "TPQP1") return bad("expected 'TPQP1' and 8 fields");
  QpInfo i;
  uint32_t lid = 0, mtu = 0;
  uint64_t addr = 0;
  if (!absl::SimpleHexAtoi(f[1], &lid) || lid > 0xffff) return bad("bad LID");
  if (!absl::SimpleHexAtoi(f[2], &i.qpn) || i.qpn > 0xffffff || i.qpn == 0) return bad("bad QPN");
  if (!absl::SimpleHexAtoi(f[3], &i.psn) || i.psn > 0xffffff) return bad("bad PSN");
  if (!absl::SimpleHexAtoi(f[4], &i.rkey)) return bad("bad rkey");
  if (!absl::SimpleHexAtoi(f[5], &addr)) return bad("bad address");
  if (!absl::SimpleHexAtoi(f[6], &i.size) || i.size == 0) return bad("bad buffer size");
  if (!absl::SimpleHexAtoi(f[7], &mtu) || MtuEnum(static_cast<int>(mtu)) == 0)
    return bad("bad MTU");
  if (f[8].size() != 32) return bad("bad GID");
  for (int b = 0; b < 16; ++b) {
    uint32_t v = 0;
    if (!absl::SimpleHexAtoi(f[8].substr(2 * b, 2), &v)) return bad("bad GID");
    i.gid[b] = static_cast<uint8_t>(v);
  }
  i.lid = static_cast<uint16_t>(lid);
  i.addr = addr;
  i.mtu_bytes = static_cast<int>(mtu);
  return i;
}

RtrAttributes PlanRtr(const PortChoice& local, const QpInfo& remote) {
  RtrAttributes r;
  r.path_mtu_bytes = std::min(local.mtu_bytes, remote.mtu_bytes);
  r.dest_qpn = remote.qpn;
  r.rq_psn = remote.psn;
  r.dlid = remote.lid;
  // RoCE always needs the GRH; InfiniBand only across subnets (a zero LID means the peer
  // is only reachable by GID).
  r.is_global = local.link_layer == LinkLayer::kEthernet || remote.lid == 0;
  r.dgid = remote.gid;
  r.sgid_index = local.gid_index < 0 ? 0 : local.gid_index;
  r.hop_limit = local.link_layer == LinkLayer::kEthernet ? 64 : 1;
  return r;
}

RtsAttributes PlanRts(uint32_t local_psn) {
  RtsAttributes r;
  r.sq_psn = local_psn & 0xffffff;
  return r;
}

int MtuEnum(int bytes) {
  switch (bytes) {
    case 256:
      return 1;
    case 512:
      return 2;
    case 1024:
      return 3;
    case 2048:
      return 4;
    case 4096:
      return 5;
  }
  return 0;
}

}  // namespace topoplace::telemetry
