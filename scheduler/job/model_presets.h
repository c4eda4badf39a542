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
};

// Returns the preset called `name` ("7b", "70b", "175b", "405b"; case-insensitive), or
// nullptr. Presets are Llama-2/GPT-3/Llama-3-class shapes with b=1 and m=8.
const ModelShape* FindModelPreset(absl::string_view name);

// Preset names in a stable order, for error messages and help.
std::vector<std::string> ModelPresetNames();

// The preset a spec without any model or byte fields uses, so that a bare
// `tp=8,pp=4,dp=16` still yields meaningful volumes.
inline constexpr absl::string_view kDefaultModelPreset = "70b";

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_JOB_MODEL_PRESETS_H_
