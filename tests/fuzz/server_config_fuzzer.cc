// libFuzzer target for topoplaced's config file (api/server/config/server_config.h): any bytes
// must apply or give an error naming the source and line, an error must leave the config
// as it was, and what applies must pass or fail ValidateConfig without harm.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "api/server/config/server_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  topoplace::server::ServerConfig config;
  const topoplace::server::ServerConfig defaults;
  const absl::Status applied = topoplace::server::ApplyConfigText("fuzz.conf", text, config);
  if (!applied.ok()) {
    if (!absl::StartsWith(applied.message(), "fuzz.conf:")) std::abort();
    // All or nothing: a few of the fields any line may set are as they were.
    if (config.listen != defaults.listen || config.db_path != defaults.db_path ||
        config.store != defaults.store || config.reservation_ttl != defaults.reservation_ttl) {
      std::abort();
    }
    return 0;
  }
  (void)topoplace::server::ValidateConfig(config);
  return 0;
}
