// libFuzzer target for the node list `export --nodes` reads (plugins/common/node_list.h):
// any bytes must give names or an InvalidArgument, never a crash or a runaway expansion.
// Peak memory is a property too: the names of an accepted list take at most
// kMaxNodeListBytes, and the run's -rss_limit_mb (run_fuzzers.sh) catches an expansion
// that grows memory before the list is refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plugins/common/node_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<std::string>> names =
      topoplace::plugins::ParseNodeList(absl::string_view(text.data(), text.size()), "fuzz");
  if (names.ok()) {
    size_t bytes = 0;
    for (const std::string& name : *names) bytes += name.size();
    if (bytes > topoplace::plugins::kMaxNodeListBytes) std::abort();
  }
  return 0;
}
