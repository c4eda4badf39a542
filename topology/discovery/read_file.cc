#include "topology/discovery/read_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace topoplace::discovery {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open for reading"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return std::move(bytes).str();
}

}  // namespace topoplace::discovery
