#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {

Pattern PatternOf(Dim dim) {
  switch (dim) {
    case Dim::kEp:
      return Pattern::kAllToAll;
    case Dim::kPp:
      return Pattern::kChain;
    default:
      return Pattern::kRing;
  }
}

namespace {

// Converts "bytes one rank sends in dimension d" to "bytes to one peer" for d's pattern.
double PairFromPerRank(Dim d, int size, double per_rank) {
  if (size <= 1) return 0;
  switch (PatternOf(d)) {
    case Pattern::kRing:
      return per_rank;  // everything goes to the ring successor
    case Pattern::kAllToAll:
      return per_rank / (size - 1);
    case Pattern::kChain:
      // On average a rank has 2(p-1)/p neighbouring stages (the ends have one).
      return per_rank * size / (2.0 * (size - 1));
  }
  return 0;
}

}  // namespace

TrafficModel BuildTrafficModel(const JobSpec& job) {
  const ModelShape& m = job.model;
  const double e = m.dtype_bytes;
  const double t = job.tp, p = job.pp, d = job.dp, c = job.cp, x = job.ep;
  const double b = static_cast<double>(m.micro_batch);
  const double s = static_cast<double>(m.seq) / c;  // tokens per CP rank
  const double h = static_cast<double>(m.hidden);
  const double mb = static_cast<double>(m.micro_batches);
  const double layers_per_stage = static_cast<double>(m.layers) / p;
  const double bsh = b * s * h;

  std::array<double, kNumDims> per_rank{};
  // TP (SC'21 sec. 3.3): 2 all-reduces forward + 2 backward per layer per micro-batch, each
  // over b*s*h elements; a ring all-reduce sends 2(t-1)/t of it per device, so
  // 8*b*s*h*(t-1)/t elements per layer per micro-batch.
  per_rank[static_cast<int>(Dim::kTp)] = mb * layers_per_stage * 8 * bsh * (t - 1) / t * e;
  // CP (ring attention, not in SC'21): each of the c-1 ring steps passes the K and V shard
  // (2*b*(s/c)*h/t elements) forward; backward passes K, V and their gradients (about twice
  // that), hence 3*(c-1)*2*b*(s/c)*h/t per layer per micro-batch. Assumes no GQA.
  per_rank[static_cast<int>(Dim::kCp)] = mb * layers_per_stage * 3 * (c - 1) * 2 * bsh / t * e;
  // EP (MoE, not in SC'21): dispatch and combine all-to-alls forward and backward (4 per
  // MoE layer per micro-batch); each of the rank's b*(s/c)*h/t token vectors goes to top_k
  // experts, of which (x-1)/x sit on other ranks (uniform routing). Dense presets count an
  // MoE block in every layer with top-1 routing.
  const double moe_layers_per_stage =
      static_cast<double>(m.moe_layers > 0 ? m.moe_layers : m.layers) / p;
  per_rank[static_cast<int>(Dim::kEp)] =
      mb * moe_layers_per_stage * 4 * bsh / t * m.top_k * (x - 1) / x * e;
  // Gradients (SC'21 sec. 3.2/3.5: a ring all-reduce of n ranks sends 2(n-1)/n of the
  // buffer per rank, once per iteration). A device holds P/(t*p) parameters, of which the
  // routed experts are sharded over EP (1/x of them). Every rank of a CP group holds the
  // same parameters, and so does every rank of an EP group but for its experts: Megatron
  // Core reduces dense gradients over DP x CP x EP and expert gradients over DP x CP
  // (megatron/core/parallel_state.py, its data-parallel and expert-data-parallel groups).
  // Counted hierarchically, as a locality-aware all-reduce runs it: a reduce-scatter and
  // all-gather inside CP (ring), then of the dense shard inside EP (ring, beside EP's own
  // all-to-all: ring_pair_bytes), then an all-reduce of what is left, 1/(x*c) of all the
  // parameters, over DP.
  const double dense = (m.params - m.expert_params) / (t * p);
  const double held = dense + m.expert_params / x / (t * p);
  per_rank[static_cast<int>(Dim::kCp)] += 2 * (c - 1) / c * held * e;
  const double ep_reduce = 2 * (x - 1) / x * dense / c * e;
  per_rank[static_cast<int>(Dim::kDp)] = 2 * (d - 1) / d * m.params / (x * c * t * p) * e;
  // PP (SC'21 sec. 4.1 scatter/gather): per micro-batch b*s*h/t elements per direction
  // between a rank and its counterpart in the adjacent stage (b*s*h without the
  // optimisation); an average rank has 2(p-1)/p such (stage, direction) pairs.
  per_rank[static_cast<int>(Dim::kPp)] = mb * bsh / t * e * 2 * (p - 1) / p;

  const std::array<std::optional<double>, kNumDims> given = {
      job.bytes.tp, job.bytes.cp, job.bytes.ep, job.bytes.dp, job.bytes.pp};
  RankLayout layout(job);
  TrafficModel model;
  for (Dim dim : kAllDims) {
    const int i = static_cast<int>(dim);
    const int size = layout.size(dim);
    const double v = size <= 1 ? 0 : given[i].value_or(per_rank[i]);
    model.per_rank_bytes[i] = v;
    model.pair_bytes[i] = PairFromPerRank(dim, size, v);
  }
  // The dense gradients' reduction inside EP belongs to the gradient synchronisation: a
  // job that gives its DP or EP bytes explicitly has said what that costs.
  const int ep = static_cast<int>(Dim::kEp);
  if (layout.size(Dim::kEp) > 1 && !job.bytes.dp && !job.bytes.ep) {
    model.ring_pair_bytes[ep] = ep_reduce;
    model.per_rank_bytes[ep] += ep_reduce;
  }
  for (double v : model.per_rank_bytes) model.total_bytes += v * layout.world_size();
  return model;
}

}  // namespace topoplace::sched
