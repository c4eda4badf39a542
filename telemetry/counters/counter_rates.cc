#include "telemetry/counters/counter_rates.h"

namespace topoplace::telemetry {

CounterRate CounterRates::Update(const std::string& key, uint64_t value, absl::Time at,
                                 int width_bits) {
  CounterRate out;
  auto it = last_.find(key);
  if (it == last_.end()) {
    last_[key] = {value, at};
    return out;
  }
  Reading& last = it->second;
  const double seconds = absl::ToDoubleSeconds(at - last.at);
  if (seconds <= 0) {
    out.step = CounterStep::kSameTime;
    return out;
  }
  if (value >= last.value) {
    out.step = CounterStep::kRate;
    out.delta = value - last.value;
  } else if (width_bits > 0 && width_bits < 64) {
    const uint64_t modulus = uint64_t{1} << width_bits;
    const uint64_t wrapped = modulus - last.value + value;
    // A plausible wrap: the old value was in the top half and the delta under half the
    // range. Anything else is a reset.
    if (last.value < modulus && last.value >= modulus / 2 && wrapped < modulus / 2) {
      out.step = CounterStep::kWrapped;
      out.delta = wrapped;
    } else {
      out.step = CounterStep::kReset;
    }
  } else {
    out.step = CounterStep::kReset;
  }
  if (out.step != CounterStep::kReset) out.per_second = static_cast<double>(out.delta) / seconds;
  last = {value, at};
  return out;
}

}  // namespace topoplace::telemetry
