#include "api/server/adapters/uplink_load_source.h"

#include <sys/stat.h>

#include <iostream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "scheduler/state/uplink_load.h"

namespace topoplace::server {
namespace {

constexpr size_t kMaxLogChars = 512;

}  // namespace

UplinkLoadSource::UplinkLoadSource(const Fabric& fabric, std::string path)
    : fabric_(fabric), path_(std::move(path)) {}

std::vector<double> UplinkLoadSource::Current() {
  struct stat st {};
  const std::string version =
      stat(path_.c_str(), &st) == 0
          ? absl::StrCat(st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec, "/", st.st_size)
          : "missing";
  absl::MutexLock lock(&mu_);
  if (version == version_) return shares_;
  version_ = version;
  absl::StatusOr<std::vector<double>> shares = sched::LoadUplinkLoadFile(fabric_, path_);
  if (!shares.ok()) {
    // The message may quote the file: one line, escaped, bounded.
    std::cerr << "topoplaced: warning: uplink load not used: "
              << absl::CHexEscape(shares.status().message().substr(0, kMaxLogChars)) << std::endl;
    shares_.clear();
  } else {
    shares_ = *std::move(shares);
  }
  return shares_;
}

}  // namespace topoplace::server
