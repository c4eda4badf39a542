#!/usr/bin/env python3
"""Issue 36's placement targets from one placement_bench record: per fabric and job size,
topoplace's p99 (and with the load-aware scorer) over the slurm-tree baseline's, measured
in the same run. Targets: at most 1.1x, and 1.2x load-aware.

  build/tests/bench/placement_bench \\
      --benchmark_filter='(Rail28k|Clos3_100k)(SlurmTree|LoadAware)?/(1024|8192)' \\
      --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \\
      --benchmark_report_aggregates_only=true --benchmark_out=p.json --benchmark_out_format=json
  tests/bench/placement_ratios.py p.json          # or a `make bench` record folder

With repetitions (make bench), the medians of the p50/p99 counters are used. A second
table gives the same ratios on p50 and on this thread's CPU time (p99_cpu_us): on a shared
VM the wall-clock tail also measures the neighbours.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_bench import medians  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    if os.path.isdir(path):
        path = os.path.join(path, "placement_bench.json")
    runs = {name.split("/min_time")[0]: v for name, v in medians(path).items()}
    missing = False
    for counter in ("p99_us", "p99_cpu_us", "p50_us"):
        print(f"{'fabric':12} {'GPUs':>5} {'slurm-tree ' + counter:>22} {'topoplace':>10}"
              f" {'ratio':>6} {'load-aware':>11} {'ratio':>6}")
        for fabric in ("Rail28k", "Clos3_100k"):
            for gpus in ("1024", "8192"):
                try:
                    base = runs[f"BM_Place{fabric}SlurmTree/{gpus}"][counter]
                    ours = runs[f"BM_Place{fabric}/{gpus}"][counter]
                    aware = runs[f"BM_Place{fabric}LoadAware/{gpus}"][counter]
                except KeyError as e:
                    print(f"{fabric} {gpus}: not in the record ({e})", file=sys.stderr)
                    missing = True
                    continue
                print(f"{fabric:12} {gpus:>5} {base:20.1f}us {ours:8.1f}us {ours / base:5.2f}x"
                      f" {aware:9.1f}us {aware / base:5.2f}x")
        print()
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
