#!/usr/bin/env python3
"""Issue 36's placement targets from one placement_bench record: per fabric and job size,
topoplace's p99 (and with the load-aware scorer) over the slurm-tree baseline's, measured
in the same run. Targets: at most 1.1x, and 1.2x load-aware. Then issue 63's: the pairs
against first-fit on every fabric kind (BM_PairedFirstFit*, NVLink racks included), at most
1.1x.

The first table reads the paired benchmarks (BM_Paired*: both policies placed alternately
in one loop, so both meet the same state of a shared machine); the tables after it divide
the separate benchmarks' figures, which on a VM whose speed drifts between runs can be
taken minutes apart.

  build/tests/bench/placement_bench \\
      --benchmark_filter='(Place|Paired|PairedFirstFit)(Rail28k|Clos3_100k|Nvl72)(SlurmTree|LoadAware|Dense|Stages|Moe)?/(1024|8192)' \\
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

PAIRED = ("ratio_p99", "ratio_p99_cpu", "ratio_p50", "topoplace_p99_us", "baseline_p99_us",
          "topoplace_failed", "baseline_failed")


def paired_table(path):
    """Prints the paired ratios; returns False if the record has none."""
    runs = {name.split("/min_time")[0]: v for name, v in medians(path, PAIRED).items()}
    rows = [(f, g) for f in ("Rail28k", "Clos3_100k") for g in ("1024", "8192")
            if f"BM_Paired{f}/{g}" in runs and f"BM_Paired{f}LoadAware/{g}" in runs]
    if not rows:
        return False
    print(f"{'paired':12} {'GPUs':>5} {'p99 ratio':>9} {'(cpu)':>6} {'p50':>5}"
          f" {'load-aware p99':>15} {'(cpu)':>6} {'p50':>5}   target 1.1x / 1.2x")
    for fabric, gpus in rows:
        plain, aware = runs[f"BM_Paired{fabric}/{gpus}"], runs[f"BM_Paired{fabric}LoadAware/{gpus}"]
        print(f"{fabric:12} {gpus:>5} {plain['ratio_p99']:8.2f}x {plain['ratio_p99_cpu']:5.2f}x"
              f" {plain['ratio_p50']:4.2f}x {aware['ratio_p99']:14.2f}x"
              f" {aware['ratio_p99_cpu']:5.2f}x {aware['ratio_p50']:4.2f}x")
    print()
    return True


def first_fit_table(path):
    """Issue 63's pairs against first-fit (BM_PairedFirstFit*): every fabric kind, plain and
    load-aware, and NVLink racks with a dense and a MoE job. Target: p99 at most 1.1x, with
    neither policy refusing (a refusal times the cost of saying no)."""
    runs = {name.split("/min_time")[0]: v for name, v in medians(path, PAIRED).items()}
    cases = [(f"{f}{aware}", g) for f in ("Rail28k", "Clos3_100k") for aware in ("", "LoadAware")
             for g in ("1024", "8192")]
    cases += [(f"Nvl72{job}", "1024") for job in ("Dense", "Stages", "Moe")]
    rows = [(c, g, runs[f"BM_PairedFirstFit{c}/{g}"]) for c, g in cases
            if f"BM_PairedFirstFit{c}/{g}" in runs]
    if not rows:
        return False
    print(f"{'vs first-fit':22} {'GPUs':>5} {'p99 ratio':>9} {'(cpu)':>6} {'p50':>5}"
          f" {'topoplace p99':>14} {'first-fit p99':>14} {'refused':>9}   target 1.1x")
    for case, gpus, r in rows:
        refused = f"{r['topoplace_failed']:.0f}/{r['baseline_failed']:.0f}"
        print(f"{case:22} {gpus:>5} {r['ratio_p99']:8.2f}x {r['ratio_p99_cpu']:5.2f}x"
              f" {r['ratio_p50']:4.2f}x {r['topoplace_p99_us']:12.1f}us"
              f" {r['baseline_p99_us']:12.1f}us {refused:>9}")
    print()
    return True


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    if os.path.isdir(path):
        path = os.path.join(path, "placement_bench.json")
    paired_table(path)
    first_fit_table(path)
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
