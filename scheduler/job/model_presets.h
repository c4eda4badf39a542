// Named model shapes for job specs (`model=70b`), so that users get realistic traffic
// volumes without typing hidden size, sequence length and layer counts.
//
//   const ModelShape* shape = FindModelPreset("70b");  // nullptr if unknown
#ifndef TOPOPLACE_SCHEDULER_JOB_MODEL_PRESETS_H_
#define TOPOPLACE_SCHEDULER_JOB_MODEL_PRESETS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace topoplace::sched {

// The transformer shape the PTD-P traffic model needs (Narayanan et al., SC'21, Table 1
// notation): h hidden size, s sequence length, b micro-batch size, l layers, P parameters,
// m micro-batches per iteration, and the element size on the wire.
struct ModelShape {
  std::string name;           // preset name or "custom"
  int64_t hidden = 0;         // h
  int64_t seq = 0;            // s
  int64_t micro_batch = 1;    // b
  int64_t layers = 0;         // l
  double params = 0;          // P
  int64_t micro_batches = 8;  // m, per iteration per pipeline
  std::string dtype = "bf16";
  int dtype_bytes = 2;
  // Mixture of experts (zero for dense models): layers with an MoE block (0: every layer,
  // when ep > 1), routed experts per MoE layer, experts each token is sent to (top-k), and
  // the parameters that live in routed experts (sharded over EP, not replicated over DP).
  int64_t moe_layers = 0;
  int experts = 0;
  int top_k = 1;
  double expert_params = 0;
};

// Parameters one token passes through: all of a dense model's; for mixture of experts the
// shared ones plus top_k / experts of the routed ones (DeepSeek-V3: 17.1e9 + 653.9e9 x
// 8 / 256 = 37.5e9, against the 37B its report gives).
double ActiveParams(const ModelShape& m);

// Returns the preset called `name` (case-insensitive), or nullptr: dense Llama-2/GPT-3/
// Llama-3-class shapes "7b", "70b", "175b", "405b", and mixture-of-experts shapes
// "deepseek-v3", "qwen3-235b", "mixtral-8x7b"; all with b=1 and m=8.
const ModelShape* FindModelPreset(absl::string_view name);

// Preset names in a stable order, for error messages and help.
std::vector<std::string> ModelPresetNames();

// The preset a spec without any model or byte fields uses, so that a bare
// `tp=8,pp=4,dp=16` still yields meaningful volumes.
inline constexpr absl::string_view kDefaultModelPreset = "70b";

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_JOB_MODEL_PRESETS_H_
