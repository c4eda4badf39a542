#include "topology/discovery/read_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/input_file.h"

namespace topoplace::discovery {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  // Discovery dumps of the largest fabrics are tens of MB; 1 GiB is no dump.
  return ReadInputFile(path, size_t{1} << 30, "file", InputKind::kFileOrPipe);
}

}  // namespace topoplace::discovery
