// libFuzzer target for the simulator's fault traces (scheduler/sim/fault_trace.h): any
// bytes must give a schedule or an error naming the line, never a crash. The names are
// resolved against a small generated fabric (2 blocks x 4 hosts, one spine).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "scheduler/sim/fault_trace.h"
#include "topology/generate/reference_fabrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const topoplace::FabricPtr fabric = [] {
    topoplace::ClosParams p;
    p.name = "fuzz-2x4";
    p.blocks_per_pod = 2;
    p.nodes_per_block = 4;
    p.spines_per_pod = 1;
    return *topoplace::GenerateClos(p);
  }();
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  (void)topoplace::sched::sim::ParseFaultTrace(text, "fuzz", *fabric);
  return 0;
}
