// libFuzzer target for the node list `export --nodes` reads (plugins/common/node_list.h):
// any bytes must give names or an InvalidArgument, never a crash or a runaway expansion.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "plugins/common/node_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)topoplace::exporters::ParseNodeList(absl::string_view(text.data(), text.size()), "fuzz");
  return 0;
}
