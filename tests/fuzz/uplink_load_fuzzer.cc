// libFuzzer target for the uplink load file (scheduler/state/uplink_load.h): any bytes
// must give shares or an InvalidArgument, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scheduler/state/uplink_load.h"
#include "topology/generate/reference_fabrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const topoplace::FabricPtr fabric = *topoplace::GeneratePreset("rail-512");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)topoplace::sched::ParseUplinkLoad(*fabric, absl::string_view(text.data(), text.size()),
                                          "fuzz");
  return 0;
}
