#include "base/port_file.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace topoplace {

absl::Status WritePortFile(const std::string& path, int port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << port << "\n";
    if (!out) return absl::UnavailableError(absl::StrCat("--port-file: cannot write '", tmp, "'"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat("--port-file: cannot rename to '", path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace topoplace
