// Rates from cumulative hardware counters: each new reading is compared with the last
// one for the same key. A reading below the last one is a wrap (when the counter's width
// is known and the wrapped delta is plausible) or a reset (driver reload, port reset):
// a reset yields no rate for that interval and restarts from the new value, so a reset
// never shows up as a burst of errors.
//
//   CounterRates rates;
//   rates.Update("h0/mlx5_0:symbol_error", 17, t0);            // nullopt: first reading
//   std::optional<double> r = rates.Update("h0/mlx5_0:symbol_error", 27, t0 + 10s);  // 1/s
//
// Thread-compatible.
#ifndef TOPOPLACE_TELEMETRY_COUNTERS_COUNTER_RATES_H_
#define TOPOPLACE_TELEMETRY_COUNTERS_COUNTER_RATES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace topoplace::telemetry {

enum class CounterStep { kFirst, kRate, kWrapped, kReset, kSameTime };

struct CounterRate {
  CounterStep step = CounterStep::kFirst;
  std::optional<double> per_second;  // set for kRate and kWrapped
  uint64_t delta = 0;                // events counted in the interval (kRate, kWrapped)
};

class CounterRates {
 public:
  // `width_bits`: the counter's width if it wraps (e.g. 32), 0 for 64-bit or saturating
  // counters (InfiniBand PMA counters saturate: a decrease is always a reset).
  CounterRate Update(const std::string& key, uint64_t value, absl::Time at, int width_bits = 0);
  void Forget(const std::string& key) { last_.erase(key); }

 private:
  struct Reading {
    uint64_t value;
    absl::Time at;
  };
  absl::flat_hash_map<std::string, Reading> last_;
};

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_COUNTERS_COUNTER_RATES_H_
