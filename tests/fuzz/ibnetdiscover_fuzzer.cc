// libFuzzer target: any bytes through the ibnetdiscover parser and the merge/build path.
// It must return an error or facts, never crash or hang.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/ibnetdiscover.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<topoplace::discovery::FabricFacts> facts =
      topoplace::discovery::ParseIbnetdiscover(text, "fuzz");
  if (!facts.ok()) return 0;
  std::vector<topoplace::discovery::FabricFacts> all;
  all.push_back(*std::move(facts));
  (void)topoplace::discovery::BuildFabricFromFacts(std::move(all), "fuzz");
  return 0;
}
