// libFuzzer target for the simulator's trace files (scheduler/sim/trace_native.h and
// trace_csv.h): any bytes must give a trace or an error naming the line, never a crash.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "scheduler/sim/trace_csv.h"
#include "scheduler/sim/trace_native.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  (void)topoplace::sched::sim::ParseNativeTrace(text, "fuzz");
  (void)topoplace::sched::sim::ParseCsvTrace(text, "fuzz");
  return 0;
}
