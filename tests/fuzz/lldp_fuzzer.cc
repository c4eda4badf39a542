// libFuzzer target: any bytes through the lldpcli JSON parser and the merge/build path.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/lldp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<topoplace::discovery::LldpView> view =
      topoplace::discovery::ParseLldpNeighbors(text, "fuzz", "local");
  if (!view.ok()) return 0;
  std::vector<topoplace::discovery::FabricFacts> all;
  all.push_back(topoplace::discovery::LldpViewToFacts(*view));
  (void)topoplace::discovery::BuildFabricFromFacts(std::move(all), "fuzz");
  return 0;
}
