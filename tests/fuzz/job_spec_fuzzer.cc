// libFuzzer target for the job spec (scheduler/job/job_spec.h), the text every adapter
// takes from users (--topoplace, pod annotations, the RPCs): any bytes must parse or give
// an error naming the field, and what parses must format and parse back to the same spec.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "scheduler/job/job_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<topoplace::sched::JobSpec> job = topoplace::sched::ParseJobSpec(text);
  if (!job.ok()) return 0;
  const std::string formatted = topoplace::sched::FormatJobSpec(*job);
  absl::StatusOr<topoplace::sched::JobSpec> again = topoplace::sched::ParseJobSpec(formatted);
  if (!again.ok() || topoplace::sched::FormatJobSpec(*again) != formatted) std::abort();
  return 0;
}
