#include "telemetry/probe/verbs_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "telemetry/probe/verbs_transport.h"

namespace topoplace::telemetry {
namespace {

using ::testing::HasSubstr;

// Recorded /sys/class/infiniband trees: a RoCE ConnectX port (GIDs v1/v2, link-local and
// IPv4-mapped), an InfiniBand HCA, a port that is down, a garbage GID, no RoCE GID.
std::string Root(const std::string& name) {
  return std::string(TOPOPLACE_TELEMETRY_TESTDATA) + "/verbs/" + name;
}

TEST(VerbsPlanTest, RocePrefersV2WithIpv4MappedGid) {
  auto attributes = NewSysfsDeviceAttributes(Root("roce"));
  absl::StatusOr<PortChoice> port = ChooseProbePort(*attributes, "mlx5_0");
  ASSERT_TRUE(port.ok()) << port.status();
  EXPECT_EQ(port->link_layer, LinkLayer::kEthernet);
  EXPECT_EQ(port->gid_index, 3);  // RoCE v2, ::ffff:10.77.0.1
  EXPECT_EQ(port->gid[15], 1);
  EXPECT_EQ(port->mtu_bytes, 1024);
}

TEST(VerbsPlanTest, InfinibandUsesLidAndFirstGid) {
  auto attributes = NewSysfsDeviceAttributes(Root("ib"));
  absl::StatusOr<PortChoice> port = ChooseProbePort(*attributes, "mlx5_1");
  ASSERT_TRUE(port.ok()) << port.status();
  EXPECT_EQ(port->link_layer, LinkLayer::kInfiniband);
  EXPECT_EQ(port->lid, 0x1a);
  EXPECT_EQ(port->gid_index, 0);
}

TEST(VerbsPlanTest, NoActivePortOrNoRoceGidIsFailedPrecondition) {
  auto down = NewSysfsDeviceAttributes(Root("down"));
  absl::StatusOr<PortChoice> p = ChooseProbePort(*down, "mlx5_2");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("no ACTIVE port"));
  auto nov2 = NewSysfsDeviceAttributes(Root("nov2"));
  p = ChooseProbePort(*nov2, "mlx5_4");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("RoCE GID"));
}

TEST(VerbsPlanTest, GarbageGidFileIsRejectedNamingIt) {
  auto attributes = NewSysfsDeviceAttributes(Root("garbage"));
  absl::StatusOr<PortChoice> p = ChooseProbePort(*attributes, "mlx5_3");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("ports/1/gids/0"));
}

TEST(VerbsPlanTest, SideChannelLatencyOpRoundTripsAndRefusesGarbage) {
  EXPECT_EQ(EncodeLatencyOp(50), "L 50\n");
  absl::StatusOr<int> decoded = DecodeLatencyOp("L 50");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, 50);
  for (const char* bad : {"", "L", "L ", "L x", "L 0", "L 10001", "B 5", "L -3", "L 5 5"}) {
    absl::StatusOr<int> op = DecodeLatencyOp(bad);
    EXPECT_EQ(op.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(op.status().message()), HasSubstr("expected 'L <iterations"));
  }
}

TEST(VerbsPlanTest, UnknownDeviceIsNotFound) {
  auto attributes = NewSysfsDeviceAttributes(Root("roce"));
  EXPECT_EQ(ChooseProbePort(*attributes, "mlx5_9").status().code(), absl::StatusCode::kNotFound);
}

TEST(VerbsPlanTest, QpInfoRoundTripsOverTheSideChannel) {
  QpInfo info;
  info.qpn = 0x1234;
  info.psn = 0xabcdef;
  info.lid = 0x1a;
  info.rkey = 0xdeadbeef;
  info.addr = 0x7f0012345000;
  info.size = 1 << 20;
  info.mtu_bytes = 4096;
  info.gid[0] = 0xfe;
  info.gid[15] = 0x42;
  const std::string wire = EncodeQpInfo(info);
  absl::StatusOr<QpInfo> back = DecodeQpInfo(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->qpn, info.qpn);
  EXPECT_EQ(back->psn, info.psn);
  EXPECT_EQ(back->lid, info.lid);
  EXPECT_EQ(back->rkey, info.rkey);
  EXPECT_EQ(back->addr, info.addr);
  EXPECT_EQ(back->size, info.size);
  EXPECT_EQ(back->gid, info.gid);
}

TEST(VerbsPlanTest, MalformedQpInfoIsRejected) {
  for (const char* bad : {"", "TPQP1 0 1 2",
                          "XXXX 0000 000001 000001 00000001 0000000000000000 "
                          "00100000 1000 00000000000000000000000000000000",
                          "TPQP1 0000 000000 000001 00000001 0000000000000000 00100000 1000 "
                          "00000000000000000000000000000000",  // QPN 0
                          "TPQP1 0000 000001 000001 00000001 0000000000000000 00100000 0300 "
                          "00000000000000000000000000000000",  // MTU 768
                          "TPQP1 0000 000001 1000000 00000001 0000000000000000 00100000 1000 "
                          "00000000000000000000000000000000"}) {  // PSN > 24 bits
    EXPECT_EQ(DecodeQpInfo(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(VerbsPlanTest, RtrOnRoceUsesTheGrhAndTheSmallerMtu) {
  auto attributes = NewSysfsDeviceAttributes(Root("roce"));
  PortChoice local = *ChooseProbePort(*attributes, "mlx5_0");
  QpInfo remote;
  remote.qpn = 77;
  remote.psn = 5;
  remote.mtu_bytes = 4096;
  remote.gid[15] = 2;
  RtrAttributes rtr = PlanRtr(local, remote);
  EXPECT_TRUE(rtr.is_global);
  EXPECT_EQ(rtr.sgid_index, 3);
  EXPECT_EQ(rtr.path_mtu_bytes, 1024);  // min(1024 local, 4096 remote)
  EXPECT_EQ(rtr.dest_qpn, 77u);
  EXPECT_EQ(rtr.rq_psn, 5u);
  EXPECT_EQ(rtr.hop_limit, 64);
  EXPECT_EQ(MtuEnum(rtr.path_mtu_bytes), 3);  // IBV_MTU_1024
}

TEST(VerbsPlanTest, RtrOnInfinibandRoutesByLid) {
  auto attributes = NewSysfsDeviceAttributes(Root("ib"));
  PortChoice local = *ChooseProbePort(*attributes, "mlx5_1");
  QpInfo remote;
  remote.lid = 0x2b;
  remote.mtu_bytes = 4096;
  RtrAttributes rtr = PlanRtr(local, remote);
  EXPECT_FALSE(rtr.is_global);
  EXPECT_EQ(rtr.dlid, 0x2b);
  EXPECT_EQ(PlanRts(0x1abcdef).sq_psn, 0xabcdefu);  // PSNs are 24 bits
}

TEST(VerbsTransportTest, NoDevicesHereMeansNotFoundOrUnimplemented) {
  // This machine has no RDMA subsystem: ibv_get_device_list returns NULL (ENOSYS).
  absl::StatusOr<ProbeTransportPtr> t = NewVerbsTransport("", "/");
  if (t.ok()) GTEST_SKIP() << "an RDMA device exists here";
  EXPECT_TRUE(t.status().code() == absl::StatusCode::kNotFound ||
              t.status().code() == absl::StatusCode::kUnimplemented)
      << t.status();
}

}  // namespace
}  // namespace topoplace::telemetry
