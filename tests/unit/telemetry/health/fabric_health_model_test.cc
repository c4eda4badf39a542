#include "telemetry/health/fabric_health_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/fabrics.h"

namespace topoplace::telemetry {
namespace {

using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

class FabricHealthModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 2 blocks x 2 hosts, 2 rails: b00-n000/mlx5_0 and b00-n001/mlx5_0 share leaf-b00-r0.
    absl::StatusOr<FabricPtr> f = GenerateClos(testing::TinyClos(2, 2));
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
    model_ = std::make_unique<FabricHealthModel>(fabric_, HealthModelOptions{});
  }
  LinkId Access(const std::string& nic) { return *FindLink(*fabric_, nic); }
  static ProbeSample Ok(std::string a, std::string b, double bw = 10) {
    return {std::move(a), std::move(b), 50, bw, true, "tcp"};
  }
  // Feeds one round: every pair below, in one batch each (as agents do), then one
  // evaluation tick.
  std::vector<HealthChange> Round(const std::vector<ProbeSample>& samples, absl::Time at) {
    for (const ProbeSample& s : samples) {
      absl::Status st = model_->ObserveProbes({s}, at);
      EXPECT_TRUE(st.ok()) << st;
    }
    return model_->Evaluate(at);
  }
  FabricPtr fabric_;
  std::unique_ptr<FabricHealthModel> model_;
};

TEST_F(FabricHealthModelTest, UnreachablePeerGoesDownAfterTwoRoundsOnlyOnItsLink) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0",
                    d = "b01-n001/mlx5_0";
  // Healthy round teaches the expectations.
  EXPECT_TRUE(Round({Ok(a, b), Ok(b, a), Ok(a, c), Ok(b, d), Ok(c, d), Ok(d, c)}, kT0).empty());
  // a's cable dies: every probe touching a fails; b is exonerated by b -> d.
  auto dead = [&](std::string x, std::string y) { return ProbeSample{x, y, 0, 0, false, "tcp"}; };
  const std::vector<ProbeSample> round = {dead(a, b), dead(b, a), dead(a, c),
                                          Ok(b, d),   Ok(c, d),   Ok(d, c)};
  EXPECT_TRUE(Round(round, kT0 + absl::Seconds(1)).empty()) << "one bad round must not flap";
  std::vector<HealthChange> changes = Round(round, kT0 + absl::Seconds(2));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].link, Access(a));
  EXPECT_EQ(changes[0].to, LinkVerdict::kDown);
  EXPECT_THAT(changes[0].reason, HasSubstr("unreachable"));
  EXPECT_EQ(model_->state(Access(b)), LinkVerdict::kHealthy);
  sched::FabricHealth health = model_->ToFabricHealth();
  EXPECT_TRUE(health.unhealthy_links.contains(Access(a)));
  EXPECT_EQ(health.unhealthy_links.size(), 1u);
  // Recovery needs three good rounds.
  const std::vector<ProbeSample> good = {Ok(a, b), Ok(a, c)};
  EXPECT_TRUE(Round(good, kT0 + absl::Seconds(3)).empty());
  EXPECT_TRUE(Round(good, kT0 + absl::Seconds(4)).empty());
  changes = Round(good, kT0 + absl::Seconds(5));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].to, LinkVerdict::kHealthy);
}

TEST_F(FabricHealthModelTest, LowBandwidthAgainstTheLearnedExpectationIsDegraded) {
  const std::string a = "b00-n000/mlx5_1", b = "b00-n001/mlx5_1";
  Round({Ok(a, b, 20), Ok(b, a, 20)}, kT0);
  // 0.1 Gb/s < 0.25 x 20 Gb/s.
  Round({Ok(a, b, 0.1), Ok(b, a, 0.1)}, kT0 + absl::Seconds(1));
  std::vector<HealthChange> changes = Round({Ok(a, b, 0.1), Ok(b, a, 0.1)}, kT0 + absl::Seconds(2));
  ASSERT_EQ(changes.size(), 2u);  // nothing exonerates either end
  EXPECT_EQ(changes[0].to, LinkVerdict::kDegraded);
  EXPECT_THAT(changes[0].reason, HasSubstr("bandwidth"));
  EXPECT_TRUE(model_->ToFabricHealth().degraded_links.contains(Access(a)));
}

// CI, stop 68: a spine pair the probe plan had not yet sampled was first probed after the
// cable went slow; it learned the slow rate as its expectation and exonerated the cable.
TEST_F(FabricHealthModelTest, APairFirstProbedAfterItsCableWentSlowIsHeldToItsTiersPeers) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0",
                    d = "b01-n001/mlx5_0";
  Round({Ok(a, b), Ok(b, a), Ok(a, c), Ok(c, a), Ok(d, c)}, kT0);
  // b's cable drops to 0.01 Gb/s. d -> b and b -> d were never probed before; c -> d is new
  // too, and healthy at 8 Gb/s against its tier's median of 10.
  const std::vector<ProbeSample> slow = {Ok(a, b, 0.01), Ok(b, a, 0.01), Ok(d, b, 0.01),
                                         Ok(b, d, 0.01), Ok(c, d, 8)};
  Round(slow, kT0 + absl::Seconds(1));
  Round(slow, kT0 + absl::Seconds(2));
  EXPECT_EQ(model_->state(Access(b)), LinkVerdict::kDegraded);
  EXPECT_THAT(model_->reason(Access(b)), HasSubstr("bandwidth"));
  EXPECT_EQ(model_->state(Access(d)), LinkVerdict::kHealthy);
  EXPECT_EQ(model_->state(Access(c)), LinkVerdict::kHealthy);
}

TEST_F(FabricHealthModelTest, ANewPairsFirstHealthyResultIsJudgedAgainstItsTierNotAnother) {
  // Only leaf pairs have history; a spine pair's first result has no peers to be held to,
  // so it teaches its own expectation (and a later drop against it is degraded).
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0";
  Round({Ok(a, b, 40), Ok(b, a, 40)}, kT0);
  Round({Ok(c, a, 5)}, kT0 + absl::Seconds(1));
  Round({Ok(c, a, 5)}, kT0 + absl::Seconds(2));
  EXPECT_EQ(model_->state(Access(c)), LinkVerdict::kHealthy);
  Round({Ok(c, a, 0.5)}, kT0 + absl::Seconds(3));
  Round({Ok(c, a, 0.5)}, kT0 + absl::Seconds(4));
  EXPECT_EQ(model_->state(Access(c)), LinkVerdict::kDegraded);
}

TEST_F(FabricHealthModelTest, ReasonNamesTheEvidenceBehindTheVerdict) {
  // b's cable is slow; its neighbour a is dead. b's best evidence is the slow probe, so b
  // is degraded "because of bandwidth", not "because a is unreachable".
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", d = "b01-n001/mlx5_0";
  Round({Ok(b, d, 20)}, kT0);
  const ProbeSample dead{a, b, 0, 0, false, "tcp"};
  for (int i = 1; i <= 2; ++i) Round({Ok(b, d, 0.1), dead}, kT0 + absl::Seconds(i));
  EXPECT_EQ(model_->state(Access(b)), LinkVerdict::kDegraded);
  EXPECT_THAT(model_->reason(Access(b)), HasSubstr("bandwidth"));
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kDown);
  EXPECT_THAT(model_->reason(Access(a)), HasSubstr("unreachable"));
}

TEST_F(FabricHealthModelTest, RdmaBandwidthIsJudgedAgainstLinkSpeed) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0";
  ProbeSample slow{a, b, 3, 50, true, "rdma"};  // 50 Gb/s on 400 Gb/s NICs
  Round({slow}, kT0);
  Round({slow}, kT0 + absl::Seconds(1));
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kDegraded);
}

TEST_F(FabricHealthModelTest, StaleProbesNoLongerExonerate) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0",
                    d = "b01-n001/mlx5_0";
  Round({Ok(b, d)}, kT0);
  const ProbeSample dead_from_a{a, b, 0, 0, false, "tcp"};
  const ProbeSample dead_from_c{c, b, 0, 0, false, "tcp"};
  const absl::Time later = kT0 + absl::Minutes(5);
  Round({dead_from_a, dead_from_c}, later);
  Round({dead_from_a, dead_from_c}, later + absl::Seconds(1));
  EXPECT_EQ(model_->state(Access(b)), LinkVerdict::kDown) << "b -> d is too old to count";
}

// Hardening finding 3: a per-host credential reported "unreachable" from its own NICs to
// three other hosts, and took their links down. One host's word now condemns only its own
// link; another host's link needs a second accuser, or its own host's probes.
TEST_F(FabricHealthModelTest, OneHostCannotTakeAnotherHostsLinksDownAlone) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0",
                    d = "b01-n001/mlx5_0";
  auto dead = [&](std::string x, std::string y) { return ProbeSample{x, y, 0, 0, false, "tcp"}; };
  for (int i = 0; i < 5; ++i) {
    Round({dead(a, b), dead(a, c), dead(a, d)}, kT0 + absl::Seconds(i));
  }
  EXPECT_EQ(model_->state(Access(b)), LinkVerdict::kHealthy);
  EXPECT_EQ(model_->state(Access(c)), LinkVerdict::kHealthy);
  EXPECT_EQ(model_->state(Access(d)), LinkVerdict::kHealthy);
  // The accuser's own link is the one its evidence condemns: nothing it probed answered.
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kDown);
}

TEST_F(FabricHealthModelTest, ASilentHostsLinkGoesDownWhenTwoOtherHostsFindItDead) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0",
                    d = "b01-n001/mlx5_0";
  auto dead = [&](std::string x, std::string y) { return ProbeSample{x, y, 0, 0, false, "tcp"}; };
  // b's host no longer reports at all; a and c, which reach each other, find b dead.
  for (int i = 0; i < 3; ++i) {
    Round({dead(a, b), Ok(a, c), dead(c, b), Ok(c, d)}, kT0 + absl::Seconds(i));
  }
  EXPECT_EQ(model_->state(Access(b)), LinkVerdict::kDown);
  EXPECT_THAT(model_->reason(Access(b)), HasSubstr("unreachable"));
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kHealthy);
  EXPECT_EQ(model_->state(Access(c)), LinkVerdict::kHealthy);
}

TEST_F(FabricHealthModelTest, ProbesBetweenAHostsOwnNicsCountAgainstEither) {
  // The host's rail-1 NIC cannot reach its rail-0 NIC; no other host needs to agree, but
  // only the host's own links are judged.
  const std::string own0 = "b00-n001/mlx5_0", own1 = "b00-n001/mlx5_1";
  const ProbeSample dead{own1, own0, 0, 0, false, "tcp"};
  for (int i = 0; i < 3; ++i) Round({dead}, kT0 + absl::Seconds(i));
  EXPECT_EQ(model_->state(Access(own0)), LinkVerdict::kDown);
  EXPECT_EQ(model_->state(Access(own1)), LinkVerdict::kDown);
}

TEST_F(FabricHealthModelTest, BadInputIsRejectedWholeAndChangesNothing) {
  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0";
  const ProbeSample dead{a, b, 0, 0, false, "tcp"};
  struct Case {
    ProbeSample bad;
    std::string message;
  } cases[] = {
      {{"nohost/mlx5_0", b, 1, 1, true, "tcp"}, "results[1].source: no NIC 'nohost/mlx5_0'"},
      {{a, "leaf-b00-r0", 1, 1, true, "tcp"}, "results[1].target: no NIC"},
      {{a, b, -1, 1, true, "tcp"}, "latency_us"},
      {{a, b, 1e12, 1, true, "tcp"}, "latency_us"},
      {{a, b, 1, 1e9, true, "tcp"}, "bandwidth_gbps"},
      {{a, b, std::nan(""), 1, true, "tcp"}, "latency_us"},
      {{a, a, 1, 1, true, "tcp"}, "same NIC"},
      {{a, b, 0, 0, true, "tcp"}, "must carry"},
      {{a, b, 1, 1, true, "carrier-pigeon"}, "transport"},
  };
  for (const Case& c : cases) {
    for (int i = 0; i < 3; ++i) {
      absl::Status r = model_->ObserveProbes({dead, c.bad}, kT0 + absl::Seconds(i));
      ASSERT_FALSE(r.ok()) << c.message;
      EXPECT_THAT(std::string(r.message()), HasSubstr(c.message));
      EXPECT_TRUE(model_->Evaluate(kT0 + absl::Seconds(i)).empty());
    }
  }
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kHealthy) << "a rejected batch judges nothing";
}

TEST_F(FabricHealthModelTest, CounterErrorRateDegradesAndResetDoesNot) {
  const std::string a = "b00-n000/mlx5_0";
  auto feed = [&](uint64_t errors, int second) {
    absl::Status st = model_->ObserveCounters({{a, errors, 0, 0}}, kT0 + absl::Seconds(second));
    EXPECT_TRUE(st.ok()) << st;
    model_->Evaluate(kT0 + absl::Seconds(second));
  };
  feed(1'000'000, 0);
  feed(10, 10);  // reset (driver reload): no rate, not a burst
  feed(20, 20);  // 1/s: not above the threshold
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kHealthy);
  feed(1020, 30);  // 100/s
  feed(2020, 40);
  EXPECT_EQ(model_->state(Access(a)), LinkVerdict::kDegraded);
  EXPECT_THAT(model_->reason(Access(a)), HasSubstr("receive errors/s"));
}

TEST_F(FabricHealthModelTest, CountersForUnknownEndpointAreRejected) {
  absl::Status c = model_->ObserveCounters({{"b09-n000/mlx5_0", 1, 0, 0}}, kT0);
  EXPECT_EQ(c.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(c.message()), HasSubstr("counters[0].endpoint"));
}

TEST_F(FabricHealthModelTest, LldpNeighborLossTakesTheLinkDown) {
  LinkId uplink = -1;
  for (LinkId l = 0; l < static_cast<LinkId>(fabric_->links().size()); ++l) {
    if (fabric_->links()[l].a.kind == Endpoint::Kind::kSwitch &&
        fabric_->links()[l].b.kind == Endpoint::Kind::kSwitch) {
      uplink = l;
    }
  }
  ASSERT_GE(uplink, 0);
  ASSERT_TRUE(model_->ObserveNeighbor(uplink, true, kT0).ok());
  model_->Evaluate(kT0);
  ASSERT_TRUE(model_->ObserveNeighbor(uplink, true, kT0 + absl::Seconds(1)).ok());
  model_->Evaluate(kT0 + absl::Seconds(1));
  EXPECT_EQ(model_->state(uplink), LinkVerdict::kDown);
  EXPECT_THAT(model_->reason(uplink), HasSubstr("LLDP"));
}

TEST(FindLinkTest, ByNicOrBothEndsInEitherOrder) {
  FabricPtr fabric = *GenerateClos(testing::TinyClos(1, 2));
  absl::StatusOr<LinkId> by_nic =
      FindLink(*fabric, fabric->EndpointName({Endpoint::Kind::kNic, 0}));
  ASSERT_TRUE(by_nic.ok()) << by_nic.status();
  const std::string name = LinkName(*fabric, *by_nic);
  EXPECT_EQ(*FindLink(*fabric, name), *by_nic);
  const size_t sep = name.find("--");
  EXPECT_EQ(*FindLink(*fabric, name.substr(sep + 2) + "--" + name.substr(0, sep)), *by_nic);
  EXPECT_EQ(FindLink(*fabric, "x--y").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace topoplace::telemetry
