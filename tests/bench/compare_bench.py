#!/usr/bin/env python3
"""Compares two `make bench` records (folders of Google Benchmark JSON files, or two such
files): for every benchmark in both, the medians' real time (and the p50/p99 counters where
a benchmark reports them), new / old, so a change shows what it costs.

  tests/bench/compare_bench.py bench-results/OLD bench-results/NEW
"""

import glob
import json
import os
import sys

COUNTERS = ("p50_us", "p99_us")  # compared, one column each
# Read too, for scripts built on medians() (placement_ratios.py).
READ_COUNTERS = COUNTERS + ("p50_cpu_us", "p99_cpu_us", "candidates")


def medians(path, counters=READ_COUNTERS):
    files = sorted(glob.glob(os.path.join(path, "*.json"))) if os.path.isdir(path) else [path]
    out = {}
    for f in files:
        with open(f, encoding="utf-8") as fh:
            data = json.load(fh)
        for b in data.get("benchmarks", []):
            if b.get("aggregate_name", "median") != "median":
                continue
            name = b.get("run_name", b["name"]).removesuffix("_median")
            values = {"time": b["real_time"], "unit": b.get("time_unit", "ns")}
            for c in counters:
                if c in b:
                    values[c] = b[c]
            out[name] = values
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = medians(sys.argv[1]), medians(sys.argv[2])
    common = [n for n in new if n in old]
    if not common:
        print("no benchmark in both records", file=sys.stderr)
        return 1
    width = max(len(n) for n in common)
    print(f"{'benchmark':{width}}  {'old':>12} {'new':>12} {'new/old':>8}"
          + "".join(f" {c + ' ratio':>14}" for c in COUNTERS))
    for n in common:
        o, w = old[n], new[n]
        line = (f"{n:{width}}  {o['time']:>10.1f}{o['unit']:>2} {w['time']:>10.1f}{w['unit']:>2}"
                f" {w['time'] / o['time']:>8.2f}")
        for c in COUNTERS:
            line += f" {w[c] / o[c]:>14.2f}" if c in o and c in w and o[c] else f" {'':>14}"
        print(line)
    for n in sorted(set(old) ^ set(new)):
        print(f"only in {'the old' if n in old else 'the new'} record: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
