#include "scheduler/job/model_presets.h"

#include <array>

#include "absl/strings/ascii.h"

namespace topoplace::sched {
namespace {

// Shapes from the public model cards: Llama-2-7B and Llama-2-70B (h, layers), GPT-3 175B
// (Brown et al. 2020, Table 2.1), Llama-3.1-405B (h=16384, 126 layers, 8k context).
const std::array<ModelShape, 4>& Presets() {
  static const std::array<ModelShape, 4> kPresets = {{
      {"7b", 4096, 4096, 1, 32, 6.7e9, 8, "bf16", 2},
      {"70b", 8192, 4096, 1, 80, 70e9, 8, "bf16", 2},
      {"175b", 12288, 2048, 1, 96, 175e9, 8, "bf16", 2},
      {"405b", 16384, 8192, 1, 126, 405e9, 8, "bf16", 2},
  }};
  return kPresets;
}

}  // namespace

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
