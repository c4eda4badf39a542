// libFuzzer target: any bytes through the port-counter sources a site already runs
// (node_exporter's /metrics text, a UFM Telemetry message, and the GUID map beside it).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "telemetry/counters/node_exporter_counters.h"
#include "telemetry/counters/ufm_counters.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  (void)topoplace::telemetry::ParseNodeExporterInfiniband(text, "fuzz");
  (void)topoplace::telemetry::ParseUfmTelemetry(text, "fuzz");
  (void)topoplace::telemetry::ParseGuidMap(text, "fuzz");
  return 0;
}
