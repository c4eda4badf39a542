#include "topology/discovery/sysfs_env.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

namespace fs = std::filesystem;

class DiskSysfsEnv final : public SysfsEnv {
 public:
  explicit DiskSysfsEnv(const std::string& root) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(root.empty() ? "/" : root, ec);
    root_ = ec ? fs::path(root) : canonical;
  }

  absl::StatusOr<std::string> ReadFile(const std::string& path) const override {
    absl::StatusOr<std::string> text = ReadWholeFile((root_ / path).string());
    if (!text.ok()) return text.status();
    absl::StripTrailingAsciiWhitespace(&*text);
    return text;
  }

  std::vector<std::string> ListDir(const std::string& path) const override {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(root_ / path, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string RealPath(const std::string& path) const override {
    std::error_code ec;
    const fs::path real = fs::canonical(root_ / path, ec);
    if (ec) return "";
    const std::string root = root_.string();
    const std::string full = real.string();
    if (root == "/") return full.substr(1);
    if (!absl::StartsWith(full, root + "/")) return "";
    return full.substr(root.size() + 1);
  }

 private:
  fs::path root_;
};

}  // namespace

SysfsEnvPtr NewDiskSysfsEnv(const std::string& root) {
  return std::make_unique<DiskSysfsEnv>(root);
}

}  // namespace topoplace::discovery
