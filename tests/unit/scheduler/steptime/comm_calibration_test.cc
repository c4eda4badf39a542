// The step-time model against published measurements: for each figure, the model's own
// chain (a fabric, MapRanks, EvaluateTraffic, CommModel::CommSeconds) predicts what the
// benchmark measured, within 15%. Each figure names its source; what a test sets by hand
// (a GPU the table lacks) says so.
//
// Bus bandwidth (NCCL's busbw) of a ring all-reduce is the bytes a rank sends, 2(n-1)/n of
// the buffer, over the time: the per-rank bytes of the dimension over its seconds. DeepEP
// reports an all-to-all's bandwidth per GPU and per link kind (NVLink, RDMA): the rank's
// bytes of that kind over the time.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/steptime/comm_model.h"
#include "scheduler/steptime/reference_step.h"
#include "scheduler/traffic/tier_index.h"
#include "scheduler/traffic/traffic_model.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

constexpr double kTolerance = 0.15;

// Hopper's constants with H800's NVLink: 400 GB/s both ways (not in the table).
CommModelOptions H800() {
  CommModelOptions o;
  o.nvlink_gbps = 200 * 8;
  return o;
}

// One block of `hosts` hosts under one leaf per rail (every network byte at the leaf tier).
FabricPtr OneLeafFabric(int hosts, int gpus, int hosts_per_nvlink_domain,
                        const std::string& gpu_model) {
  ClosParams p;
  p.name = "calibration";
  p.blocks_per_pod = 1;
  p.nodes_per_block = hosts;
  p.gpus_per_node = gpus;
  p.rails = gpus;
  p.spines_per_pod = 1;
  p.nodes_per_nvlink_domain = hosts_per_nvlink_domain;
  p.gpu_model = gpu_model;
  absl::StatusOr<FabricPtr> fabric = GenerateClos(p);
  EXPECT_TRUE(fabric.ok()) << fabric.status();
  return fabric.ok() ? *fabric : nullptr;
}

// Where a job's bytes go and how long each dimension takes, on all of `fabric`'s hosts.
struct Prediction {
  TrafficModel traffic;
  TrafficReport report;
  DimSeconds seconds{};

  double PerRankBytes(Dim d) const { return traffic.per_rank_bytes[static_cast<int>(d)]; }
  double Seconds(Dim d) const { return seconds[static_cast<int>(d)]; }
  // Share of dimension d's bytes that cross the network.
  double NetworkShare(Dim d) const {
    const auto& tiers = report.dim_tier_bytes[static_cast<int>(d)];
    double all = 0;
    for (double b : tiers) all += b;
    return all > 0 ? (all - tiers[static_cast<int>(Tier::kNvlink)]) / all : 0;
  }
};

// The job on the fabric's hosts in order (all of them for these tests' jobs): the
// simulator's compact placement (scheduler/steptime/reference_step.h).
Prediction Predict(const Fabric& fabric, const std::string& spec,
                   const CommModelOptions& options = {}) {
  Prediction p;
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  EXPECT_TRUE(job.ok()) << job.status();
  if (!job.ok()) return p;
  const TierIndex index(fabric);
  const CommModel comm = CommModel::ForFabric(fabric, options);
  const std::optional<TrafficReport> report =
      ReferenceSteps(index, comm, /*rail_local=*/true).CompactTraffic(*job);
  EXPECT_TRUE(report.has_value()) << spec << ": the fabric cannot hold it";
  if (!report.has_value()) return p;
  p.traffic = BuildTrafficModel(*job);
  p.report = *report;
  p.seconds = comm.CommSeconds(*job, p.report);
  return p;
}

// Bytes per second of dimension d: all its bytes, or only those that cross the network.
double BusBandwidth(const Prediction& p, Dim d) { return p.PerRankBytes(d) / p.Seconds(d); }
double RdmaBandwidth(const Prediction& p, Dim d) {
  return p.PerRankBytes(d) * p.NetworkShare(d) / p.Seconds(d);
}

void ExpectWithin(double predicted, double measured, const char* what) {
  EXPECT_LE(std::abs(predicted / measured - 1), kTolerance)
      << what << ": predicted " << predicted / 1e9 << " GB/s, measured " << measured / 1e9
      << " GB/s";
}

// NCCL all_reduce_perf on one 8x H100 SXM node: ~370 GB/s bus bandwidth at large sizes
// (NVIDIA/nccl-tests issue #212, comment of 2024-05-06 by an NCCL maintainer; again in
// NVIDIA/nccl issue #1442). The H100 entry's NVLink efficiency is taken from this
// figure, so the test checks the chain from ring bytes to seconds, not the constant.
TEST(CommCalibration, EightH100RingAllReduceOverNvlink) {
  const FabricPtr fabric = OneLeafFabric(1, 8, 1, "H100");
  ASSERT_NE(fabric, nullptr);
  const Prediction p = Predict(*fabric, "tp=8,pp=1,dp=1,model=70b");
  ASSERT_EQ(p.NetworkShare(Dim::kTp), 0);
  ExpectWithin(BusBandwidth(p, Dim::kTp), 370e9, "8x H100 all-reduce");
}

// all_reduce_perf over one GB200 NVL72 rack, 72 GPUs, 8 GiB: 834.57 GB/s out-of-place and
// 846.82 GB/s in-place bus bandwidth (coreweave/nccl-tests README, commit cb86553328f8).
// The model gives GB200 Hopper's ring efficiency (no GB200 figure feeds the table), so
// this one checks a constant too: 900 GB/s x 370/450 = 740 GB/s, 11% under.
TEST(CommCalibration, SeventyTwoGpuGb200RackAllReduce) {
  const FabricPtr fabric = OneLeafFabric(18, 4, 18, "GB200");
  ASSERT_NE(fabric, nullptr);
  const Prediction p = Predict(*fabric, "tp=1,pp=1,dp=72,gpus_per_node=4,dp_bytes=1e10");
  ASSERT_EQ(p.NetworkShare(Dim::kDp), 0) << "one NVLink domain: no byte on the network";
  ExpectWithin(BusBandwidth(p, Dim::kDp), 834.57e9, "72-GPU GB200 all-reduce");
}

// all_reduce_perf on 2 nodes of 8 H100 with 8 ConnectX-7 400G NICs each, NCCL_ALGO=RING:
// ~396 GB/s bus bandwidth, about 48 GB/s per NIC (NVIDIA/nccl-tests issue #319, comment of
// 2025-06-11 by an NCCL maintainer). One ring of 16 ranks crosses the network twice; NCCL
// runs one channel per NIC, so each NIC carries 1/8 of the crossings while NVLink carries
// the rest at the same time. Before the NVLink and network parts were taken as concurrent
// the model predicted 201 GB/s (49% under).
TEST(CommCalibration, TwoNodeRingAllReduceOver400GNics) {
  const FabricPtr fabric = OneLeafFabric(2, 8, 1, "H100");
  ASSERT_NE(fabric, nullptr);
  const Prediction p = Predict(*fabric, "tp=1,pp=1,dp=16,dp_bytes=1e10");
  ASSERT_GT(p.NetworkShare(Dim::kDp), 0);
  ExpectWithin(BusBandwidth(p, Dim::kDp), 396e9, "2x8 H100 all-reduce over 400G");
}

// DeepEP's normal kernels (deepseek-ai/DeepEP docs/legacy.md at dd758caf): intranode on 8
// H800 over NVLink, EP8: dispatch 153 GB/s, combine 158 GB/s per GPU. H800's NVLink is
// 400 GB/s both ways (not in the table: the test sets 200 GB/s per direction and keeps
// Hopper's efficiency). Explicit ep_bytes: no dense-gradient ring beside the all-to-all.
TEST(CommCalibration, DeepEpAllToAllInsideAnH800Node) {
  const FabricPtr fabric = OneLeafFabric(1, 8, 1, "H100");
  ASSERT_NE(fabric, nullptr);
  const Prediction p = Predict(*fabric, "tp=1,pp=1,dp=1,ep=8,model=70b,ep_bytes=1e10", H800());
  ASSERT_EQ(p.NetworkShare(Dim::kEp), 0);
  ExpectWithin(BusBandwidth(p, Dim::kEp), 153e9, "DeepEP EP8 dispatch");
  ExpectWithin(BusBandwidth(p, Dim::kEp), 158e9, "DeepEP EP8 combine");
}

// Same source, internode on H800 nodes with one CX7 400G NIC per GPU: EP16 (2 nodes)
// dispatch 43 / combine 43 GB/s RDMA bandwidth, EP64 (8 nodes) 51 / 50 GB/s. The model
// moves a rank's NVLink and RDMA bytes at once, so its RDMA bandwidth is the NIC's
// calibrated rate (48 GB/s) wherever the network part is the longer one.
TEST(CommCalibration, DeepEpAllToAllAcrossNodes) {
  struct Case {
    int nodes;
    double dispatch, combine;
    const char* what;
  };
  for (const Case& c :
       {Case{2, 43e9, 43e9, "DeepEP EP16 RDMA"}, Case{8, 51e9, 50e9, "DeepEP EP64 RDMA"}}) {
    const FabricPtr fabric = OneLeafFabric(c.nodes, 8, 1, "H100");
    ASSERT_NE(fabric, nullptr);
    const int ep = 8 * c.nodes;
    const Prediction p = Predict(
        *fabric, "tp=1,pp=1,dp=1,ep=" + std::to_string(ep) + ",model=70b,ep_bytes=1e10", H800());
    EXPECT_NEAR(p.NetworkShare(Dim::kEp), 8.0 * (c.nodes - 1) / (ep - 1), 1e-9) << c.what;
    ExpectWithin(RdmaBandwidth(p, Dim::kEp), c.dispatch, c.what);
    ExpectWithin(RdmaBandwidth(p, Dim::kEp), c.combine, c.what);
  }
}

}  // namespace
}  // namespace topoplace::sched
