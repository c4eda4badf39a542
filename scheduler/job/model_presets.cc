#include "scheduler/job/model_presets.h"

#include <array>

#include "absl/strings/ascii.h"

namespace topoplace::sched {
namespace {

// Shapes from the public model cards: Llama-2-7B and Llama-2-70B (h, layers), GPT-3 175B
// (Brown et al. 2020, Table 2.1), Llama-3.1-405B (h=16384, 126 layers, 8k context).
// Mixture of experts, routed expert parameters = MoE layers x experts x 3 x h x expert FFN:
// - DeepSeek-V3 (deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json: dim 7168,
//   61 layers of which n_dense_layers 3 are dense, 256 routed experts, 8 activated,
//   moe_inter_dim 2048; 671B parameters; 4K pre-training sequences, arXiv 2412.19437
//   sec. 4.2): 58 x 256 x 3 x 7168 x 2048 = 653.9e9 in routed experts.
// - Qwen3-235B-A22B (its config.json: hidden 4096, 94 layers all MoE, 128 experts, top-8,
//   moe_intermediate_size 1536; 235B parameters; 4,096-token pre-training stage, Qwen3
//   technical report arXiv 2505.09388 sec. 3.2): 94 x 128 x 3 x 4096 x 1536 = 227.1e9.
// - Mixtral 8x7B (its config.json: hidden 4096, 32 layers, 8 local experts, top-2,
//   intermediate 14336; 46.7B parameters; 32k context, arXiv 2401.04088):
//   32 x 8 x 3 x 4096 x 14336 = 45.1e9.
const std::array<ModelShape, 7>& Presets() {
  static const std::array<ModelShape, 7> kPresets = {{
      {"7b", 4096, 4096, 1, 32, 6.7e9, 8, "bf16", 2},
      {"70b", 8192, 4096, 1, 80, 70e9, 8, "bf16", 2},
      {"175b", 12288, 2048, 1, 96, 175e9, 8, "bf16", 2},
      {"405b", 16384, 8192, 1, 126, 405e9, 8, "bf16", 2},
      {"deepseek-v3", 7168, 4096, 1, 61, 671e9, 8, "bf16", 2, 58, 256, 8, 653.9e9},
      {"qwen3-235b", 4096, 4096, 1, 94, 235e9, 8, "bf16", 2, 94, 128, 8, 227.1e9},
      {"mixtral-8x7b", 4096, 32768, 1, 32, 46.7e9, 8, "bf16", 2, 32, 8, 2, 45.1e9},
  }};
  return kPresets;
}

}  // namespace

double ActiveParams(const ModelShape& m) {
  if (m.experts <= 0 || m.expert_params <= 0) return m.params;
  return m.params - m.expert_params + m.expert_params * m.top_k / m.experts;
}

const ModelShape* FindModelPreset(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (const ModelShape& shape : Presets()) {
    if (shape.name == lower) return &shape;
  }
  return nullptr;
}

std::vector<std::string> ModelPresetNames() {
  std::vector<std::string> names;
  for (const ModelShape& shape : Presets()) names.push_back(shape.name);
  return names;
}

}  // namespace topoplace::sched
