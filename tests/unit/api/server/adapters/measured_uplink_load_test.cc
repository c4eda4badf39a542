#include "api/server/adapters/measured_uplink_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace {

using ::topoplace::Endpoint;
using ::topoplace::Fabric;
using ::topoplace::Link;
using ::topoplace::SwitchId;
using ::topoplace::server::MeasuredUplinkLoad;

// The first leaf-to-spine link of `fabric`.
const Link& FirstUplink(const Fabric& fabric) {
  for (const Link& link : fabric.links()) {
    if (link.a.kind == Endpoint::Kind::kSwitch && link.b.kind == Endpoint::Kind::kSwitch &&
        fabric.switches()[link.a.id].tier < fabric.switches()[link.b.id].tier) {
      return link;
    }
  }
  ADD_FAILURE() << "no uplink";
  return fabric.links().front();
}

topoplace::v1::ReportPortCountersRequest Reading(const std::string& sw, const std::string& peer,
                                                 uint64_t tx_bytes, absl::Time at) {
  topoplace::v1::ReportPortCountersRequest request;
  request.set_reporter("collector");
  topoplace::v1::PortCounters* c = request.add_counters();
  c->set_endpoint(sw);
  c->set_port(7);
  c->set_peer(peer);
  c->set_tx_bytes(tx_bytes);
  c->set_measured_unix_ms(absl::ToUnixMillis(at));
  return request;
}

TEST(MeasuredUplinkLoad, ShareIsTheUplinksRateOverTheSwitchsUplinkCapacity) {
  std::shared_ptr<const Fabric> fabric =
      *topoplace::GenerateClos(topoplace::testing::TinyClos(/*blocks=*/2, /*nodes=*/2));
  const Link& up = FirstUplink(*fabric);
  const SwitchId leaf = up.a.id;
  double capacity = 0;  // every uplink of the leaf, bytes per second
  for (const Link& l : fabric->links()) {
    if (l.a.kind == Endpoint::Kind::kSwitch && l.a.id == leaf &&
        l.b.kind == Endpoint::Kind::kSwitch) {
      capacity += l.bandwidth_gbps() * 1e9 / 8;
    }
  }
  ASSERT_GT(capacity, 0);
  MeasuredUplinkLoad load(*fabric, absl::Seconds(60));
  const std::string leaf_name = fabric->switches()[leaf].name;
  const std::string spine = fabric->switches()[up.b.id].name;
  const absl::Time t0 = absl::FromUnixSeconds(1'000'000);
  load.Observe(Reading(leaf_name, spine, 1000, t0), t0);
  EXPECT_EQ(load.Current(t0)[leaf], 0);  // one reading is no rate
  // A quarter of the leaf's uplink capacity for 10 s.
  load.Observe(Reading(leaf_name, spine, 1000 + static_cast<uint64_t>(capacity / 4 * 10),
                       t0 + absl::Seconds(10)),
               t0 + absl::Seconds(10));
  EXPECT_NEAR(load.Current(t0 + absl::Seconds(10))[leaf], 0.25, 1e-9);
  EXPECT_NEAR(load.Current(t0 + absl::Seconds(70))[leaf], 0.25, 1e-9);  // max age, inclusive
  EXPECT_EQ(load.Current(t0 + absl::Seconds(71))[leaf], 0);             // older: unknown
  // The same port seen from the spine is a down port: it carries no uplink share.
  MeasuredUplinkLoad down(*fabric, absl::Seconds(60));
  down.Observe(Reading(spine, leaf_name, 0, t0), t0);
  down.Observe(Reading(spine, leaf_name, 1'000'000'000, t0 + absl::Seconds(1)), t0);
  for (double share : down.Current(t0 + absl::Seconds(1))) EXPECT_EQ(share, 0);
}

TEST(MeasuredUplinkLoad, UnknownPeerIsRefusedNamingTheEntry) {
  std::shared_ptr<const Fabric> fabric =
      *topoplace::GenerateClos(topoplace::testing::TinyClos(/*blocks=*/2, /*nodes=*/2));
  MeasuredUplinkLoad load(*fabric, absl::Seconds(60));
  const absl::Status status = load.Check(Reading("x", "nope", 0, absl::Now()));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("counters[0].peer"));
  EXPECT_TRUE(load.Check(Reading("x", "", 0, absl::Now())).ok());  // peer unknown to the collector
}

}  // namespace
