// The fault model: published rates drawn over the fabric's real elements, the fault trace
// (its round trip and its errors), and what a fault does to hosts, link capacity and the
// health a placement engine is built with.
#include "scheduler/sim/faults.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/sim/fault_state.h"
#include "scheduler/sim/fault_trace.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched::sim {
namespace {

using ::testing::HasSubstr;

FabricPtr Tiny() {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  EXPECT_TRUE(fabric.ok()) << fabric.status();
  return *fabric;
}

// The first link of `fabric` between a NIC and its leaf, and between a leaf and a spine.
LinkId FirstLink(const Fabric& fabric, bool nic_end) {
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    const bool has_nic = link.a.kind == Endpoint::Kind::kNic || link.b.kind == Endpoint::Kind::kNic;
    if (has_nic == nic_end) return l;
  }
  return -1;
}

TEST(FaultModel, PublishedRatesGiveTheExpectedCountOnALargeFabric) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("rail-28k");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const FaultRates rates = PublishedFaultRates();
  const double days = 200;
  absl::StatusOr<FaultSchedule> s = GenerateFaults(**fabric, rates, 0, days * 86400, 7);
  ASSERT_TRUE(s.ok()) << s.status();
  int hosts = 0, fails = 0, degrades = 0;
  for (const FaultEvent& e : s->events) {
    if (e.element.type == FaultElement::Type::kHost) ++hosts;
    (e.kind == FaultKind::kFail ? fails : degrades) += 1;
    EXPECT_GE(e.time_s, 0);
    EXPECT_LT(e.time_s, days * 86400);
    EXPECT_GT(e.duration_s, 0);
  }
  // Poisson counts: within 5 standard deviations of the mean.
  const double host_mean = rates.host_fail_per_day * (*fabric)->hosts().size() * days;
  EXPECT_NEAR(hosts, host_mean, 5 * std::sqrt(host_mean));
  const double degrade_mean = rates.link_degrade_per_day * (*fabric)->links().size() * days;
  EXPECT_NEAR(degrades, degrade_mean, 5 * std::sqrt(degrade_mean));
  EXPECT_TRUE(
      std::is_sorted(s->events.begin(), s->events.end(),
                     [](const FaultEvent& a, const FaultEvent& b) { return a.time_s < b.time_s; }));
}

TEST(FaultModel, ScaleMultipliesTheRatesAndZeroGivesNoFaults) {
  const FabricPtr fabric = Tiny();
  FaultRates rates = PublishedFaultRates();
  rates.scale = 0;
  absl::StatusOr<FaultSchedule> none = GenerateFaults(*fabric, rates, 0, 1e9, 1);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->events.empty());
  rates.scale = 1;
  absl::StatusOr<FaultSchedule> one = GenerateFaults(*fabric, rates, 0, 1e9, 1);
  rates.scale = 4;
  absl::StatusOr<FaultSchedule> four = GenerateFaults(*fabric, rates, 0, 1e9, 1);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_NEAR(static_cast<double>(four->events.size()) / one->events.size(), 4, 0.4);
}

TEST(FaultModel, SameSeedSameScheduleOtherSeedOther) {
  const FabricPtr fabric = Tiny();
  const FaultRates rates = PublishedFaultRates();
  absl::StatusOr<FaultSchedule> a = GenerateFaults(*fabric, rates, 0, 1e8, 3);
  absl::StatusOr<FaultSchedule> b = GenerateFaults(*fabric, rates, 0, 1e8, 3);
  absl::StatusOr<FaultSchedule> c = GenerateFaults(*fabric, rates, 0, 1e8, 4);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(FormatFaultTrace(*a, *fabric), FormatFaultTrace(*b, *fabric));
  EXPECT_NE(FormatFaultTrace(*a, *fabric), FormatFaultTrace(*c, *fabric));
}

TEST(FaultModel, BadRatesAreInvalidArgument) {
  const FabricPtr fabric = Tiny();
  FaultRates rates = PublishedFaultRates();
  rates.scale = -1;
  EXPECT_EQ(GenerateFaults(*fabric, rates, 0, 10, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  rates = PublishedFaultRates();
  rates.degrade_capacity = 1;
  EXPECT_EQ(GenerateFaults(*fabric, rates, 0, 10, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  rates = PublishedFaultRates();
  rates.link_repair_s = 0;
  EXPECT_EQ(GenerateFaults(*fabric, rates, 0, 10, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FaultTrace, FormatParsesBackToTheSameEvents) {
  const FabricPtr fabric = Tiny();
  FaultRates rates = PublishedFaultRates();
  rates.scale = 50;
  absl::StatusOr<FaultSchedule> s = GenerateFaults(*fabric, rates, 0, 1e8, 9);
  ASSERT_TRUE(s.ok());
  ASSERT_GT(s->events.size(), 10u);
  const std::string text = FormatFaultTrace(*s, *fabric);
  absl::StatusOr<FaultSchedule> back = ParseFaultTrace(text, "t", *fabric);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->events.size(), s->events.size());
  for (size_t i = 0; i < s->events.size(); ++i) {
    EXPECT_EQ(back->events[i].element, s->events[i].element) << i;
    EXPECT_EQ(back->events[i].kind, s->events[i].kind) << i;
    EXPECT_DOUBLE_EQ(back->events[i].time_s, s->events[i].time_s) << i;
    EXPECT_DOUBLE_EQ(back->events[i].duration_s, s->events[i].duration_s) << i;
    EXPECT_DOUBLE_EQ(back->events[i].capacity, s->events[i].capacity) << i;
  }
}

TEST(FaultTrace, ElementsAreNamedAsTheFabricNamesThemAndLinksFromEitherEnd) {
  const FabricPtr fabric = Tiny();
  const LinkId up = FirstLink(*fabric, /*nic_end=*/false);
  const Link& link = fabric->links()[up];
  const std::string a = fabric->EndpointName(link.a), b = fabric->EndpointName(link.b);
  for (const std::string& name : {"link:" + a + "--" + b, "link:" + b + "--" + a}) {
    absl::StatusOr<FaultElement> e = ParseFaultElement(*fabric, name);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(*e, (FaultElement{FaultElement::Type::kLink, up}));
  }
  const std::string host = fabric->hosts()[3].name;
  absl::StatusOr<FaultElement> h = ParseFaultElement(*fabric, "host:" + host);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(FaultElementName(*fabric, *h), "host:" + host);
  EXPECT_EQ(ParseFaultElement(*fabric, "host:nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ParseFaultElement(*fabric, "rack:r1").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Each malformed line is an error naming source:line and the field.
TEST(FaultTrace, MalformedLinesNameTheLineAndTheField) {
  const FabricPtr fabric = Tiny();
  const std::string host = fabric->hosts()[0].name;
  const std::string head = std::string(kFaultTraceHeader) + "\n# comment\n";
  const struct {
    std::string line, message;
  } cases[] = {
      {"10 host:" + host + " fail", "expected 4 or 5 whitespace-separated fields"},
      {"-1 host:" + host + " fail 10", "field 'time_s'"},
      {"10 host:nope fail 10", "field 'element': no host 'nope'"},
      {"10 host:" + host + " explode 10", "field 'kind': expected fail or degrade"},
      {"10 host:" + host + " fail 0", "field 'duration_s'"},
      {"10 host:" + host + " degrade 10 0.5", "only links degrade"},
      {"10 host:" + host + " fail 10 0.5", "expected no 5th field"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<FaultSchedule> s = ParseFaultTrace(head + c.line + "\n", "f.faults", *fabric);
    ASSERT_FALSE(s.ok()) << c.line;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.status().message(), HasSubstr("f.faults:3: ")) << c.line;
    EXPECT_THAT(s.status().message(), HasSubstr(c.message)) << c.line;
  }
  const LinkId nic = FirstLink(*fabric, /*nic_end=*/true);
  const std::string link = FaultElementName(*fabric, {FaultElement::Type::kLink, nic});
  for (const char* capacity : {"0", "1", "x"}) {
    absl::StatusOr<FaultSchedule> s = ParseFaultTrace(
        head + "10 " + link + " degrade 10 " + capacity + "\n", "f.faults", *fabric);
    EXPECT_THAT(s.status().message(), HasSubstr("f.faults:3: field 'capacity'")) << capacity;
  }
  EXPECT_THAT(ParseFaultTrace("10 host:x fail 10\n", "f.faults", *fabric).status().message(),
              HasSubstr("f.faults:1: expected the header"));
}

TEST(FaultState, AFailedNicCableTakesItsHostDownAndFlagsTheLinkOnlyForWatchers) {
  const FabricPtr fabric = Tiny();
  FaultState state(*fabric);
  const LinkId nic = FirstLink(*fabric, /*nic_end=*/true);
  const Link& link = fabric->links()[nic];
  const HostId host =
      fabric->nics()[link.a.kind == Endpoint::Kind::kNic ? link.a.id : link.b.id].host;
  const FaultEvent fail{.time_s = 0,
                        .element = {FaultElement::Type::kLink, nic},
                        .kind = FaultKind::kFail,
                        .duration_s = 10};
  EXPECT_TRUE(state.CutsOffHosts(fail));
  state.Begin(fail);
  EXPECT_TRUE(state.host_down(host));
  EXPECT_EQ(state.Health(false).unhealthy_hosts.size(), 1u);
  EXPECT_TRUE(state.Health(false).unhealthy_links.empty());
  EXPECT_TRUE(state.Health(true).unhealthy_links.contains(nic));
  state.End(fail);
  EXPECT_FALSE(state.host_down(host));
  EXPECT_TRUE(state.empty());
}

// Two spines: every leaf has two uplinks (one cable each). When one fails, the leaf's
// remaining uplink carries both shares: each keeps half its capacity in the fluid model;
// the other leaves lose the failed spine-side cable only if they use that spine.
TEST(FaultState, AFailedUplinkHalvesItsLeafsUplinksAndADegradationMultiplies) {
  ClosParams p = OneSpine("two-spines", 2, 2);
  p.spines_per_pod = 2;
  absl::StatusOr<FabricPtr> fabric = GenerateClos(p);
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Fabric& f = **fabric;
  FaultState state(f);
  const LinkId up = FirstLink(f, /*nic_end=*/false);
  const Link& link = f.links()[up];
  const SwitchId leaf = f.switches()[link.a.id].tier == 1 ? link.a.id : link.b.id;
  const FaultEvent fail{.time_s = 0,
                        .element = {FaultElement::Type::kLink, up},
                        .kind = FaultKind::kFail,
                        .duration_s = 10};
  EXPECT_FALSE(state.CutsOffHosts(fail));
  state.Begin(fail);
  for (LinkId l = 0; l < static_cast<LinkId>(f.links().size()); ++l) {
    const Link& other = f.links()[l];
    const bool of_leaf = (other.a.kind == Endpoint::Kind::kSwitch && other.a.id == leaf) ||
                         (other.b.kind == Endpoint::Kind::kSwitch && other.b.id == leaf);
    const bool uplink =
        other.a.kind == Endpoint::Kind::kSwitch && other.b.kind == Endpoint::Kind::kSwitch;
    if (of_leaf && uplink) {
      EXPECT_DOUBLE_EQ(state.capacity_share(l), 0.5) << l;
    } else if (!uplink) {
      EXPECT_DOUBLE_EQ(state.capacity_share(l), 1) << l;
    }
  }
  const FaultEvent degrade{.time_s = 0,
                           .element = {FaultElement::Type::kLink, up},
                           .kind = FaultKind::kDegrade,
                           .duration_s = 10,
                           .capacity = 0.5};
  state.Begin(degrade);
  EXPECT_DOUBLE_EQ(state.capacity_share(up), 0.25);
  EXPECT_THAT(state.changed_links(), ::testing::ElementsAre(up));
  state.End(degrade);
  state.End(fail);
  for (LinkId l = 0; l < static_cast<LinkId>(f.links().size()); ++l) {
    EXPECT_DOUBLE_EQ(state.capacity_share(l), 1) << l;
  }
}

TEST(FaultState, AFailedLeafCutsOffEveryHostCabledToIt) {
  const FabricPtr fabric = Tiny();
  FaultState state(*fabric);
  const SwitchId leaf = fabric->nics()[0].leaf;
  const FaultEvent fail{.time_s = 0,
                        .element = {FaultElement::Type::kSwitch, leaf},
                        .kind = FaultKind::kFail,
                        .duration_s = 10};
  EXPECT_TRUE(state.CutsOffHosts(fail));
  EXPECT_EQ(state.HostsCutOff(fail.element).size(), 4u);  // the 4 hosts of its block
  state.Begin(fail);
  EXPECT_EQ(state.Health(false).unhealthy_hosts.size(), 4u);
  EXPECT_TRUE(state.Health(true).unhealthy_switches.contains(leaf));
  EXPECT_FALSE(state.LinksDown(fail.element).empty());
}

}  // namespace
}  // namespace topoplace::sched::sim
