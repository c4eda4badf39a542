// libFuzzer target: any bytes through the fabric file reader; whatever it accepts must
// serialise and read back to the same canonical text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "topology/io/fabric_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<topoplace::FabricPtr> fabric = topoplace::ParseFabricJson(text, "fuzz");
  if (!fabric.ok()) return 0;
  const std::string canonical = topoplace::FabricToJson(**fabric);
  absl::StatusOr<topoplace::FabricPtr> again = topoplace::ParseFabricJson(canonical, "again");
  if (!again.ok() || topoplace::FabricToJson(**again) != canonical) std::abort();
  return 0;
}
