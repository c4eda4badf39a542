#!/usr/bin/env python3
"""The goodput issue's checks, from `topoplace simulate ... --policy all --json` outputs.

Each input is one simulate run (any fabric, trace, seed, with one or more offered loads).
Runs are grouped by fabric and trace; per offered load, each seed's ratios of one policy
(topoplace by default) to the best *other* policy are computed and then averaged over
the seeds, as docs/report/FINDINGS.md states them:

- mean JCT / the lowest other mean JCT (done when <= 1);
- p95 JCT / the lowest other p95 JCT (done when <= 1.05);
- GPU-hour-weighted slowdown / the lowest other one (done when < 1, the lowest);
- makespan / the shortest other makespan, for loads above 1 (overload; done when <= 1);
- the policies better on both mean JCT and bytes (off NVLink on fabrics whose NVLink
  domains span hosts, named *nvl*; spine bytes elsewhere), per seed.

    goodput_table.py run-s1.json run-s2.json ... [--policy topoplace]

Prints one Markdown table per check; exit 0 whatever the figures (it reports, it does
not judge).
"""
import argparse
import collections
import json
import sys


def load_runs(paths):
    runs = []
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            sys.exit(f"{path}: not a simulate --json output: {e}")
        if "runs" not in doc:
            sys.exit(f"{path}: no 'runs' (expected `topoplace simulate --json`)")
        runs.extend(doc["runs"])
    return runs


def bytes_key(fabric):
    return "total_off_nvlink_bytes" if "nvl" in fabric else "total_spine_bytes"


def ratios(run, policy):
    """One run's ratios of `policy` to the best other, or None if it is missing."""
    by_name = {p["policy"]: p for p in run["policies"]}
    mine = by_name.get(policy)
    others = [p for name, p in by_name.items() if name != policy]
    if mine is None or not others:
        return None

    def ratio(key):
        best = min(p[key] for p in others)
        return mine[key] / best if best > 0 else float("nan")

    def best_other(key):
        return min(others, key=lambda p: p[key])["policy"]

    key = bytes_key(run["fabric"])
    dominated_by = sorted(p["policy"] for p in others
                          if p["mean_jct_s"] < mine["mean_jct_s"] and p[key] < mine[key])
    return {
        "jct": ratio("mean_jct_s"),
        "p95": ratio("p95_jct_s"),
        "slowdown": ratio("gpu_hour_weighted_slowdown"),
        "makespan": ratio("makespan_s"),
        "dominated_by": dominated_by,
        "best": {key: best_other(key) for key in
                 ("mean_jct_s", "p95_jct_s", "gpu_hour_weighted_slowdown", "makespan_s")},
    }


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--policy", default="topoplace")
    args = parser.parse_args()

    cells = collections.defaultdict(list)  # (scenario, load) -> [(seed, ratios)]
    loads = set()
    for run in load_runs(args.files):
        r = ratios(run, args.policy)
        if r is None:
            continue
        trace = run["trace"].rsplit("/", 1)[-1]  # a trace file by its name
        scenario = f"{run['fabric']}, {trace}"
        load = round(run["offered_load"], 3)  # the same load of every seed
        loads.add(load)
        cells[(scenario, load)].append((run["seed"], r))
    scenarios = sorted({s for s, _ in cells})
    loads = sorted(loads)
    stable = [x for x in loads if x <= 1]
    overload = [x for x in loads if x > 1]

    def table(title, key, columns, fmt):
        print(f"### {title}\n")
        print("| scenario (seeds) | " + " | ".join(f"{x:g}" for x in columns) + " |")
        print("|---|" + "---:|" * len(columns))
        for s in scenarios:
            row = []
            seeds = set()
            for x in columns:
                got = cells.get((s, x), [])
                seeds.update(seed for seed, _ in got)
                row.append(fmt([r for _, r in got], key) if got else "")
            label = f"{s} ({','.join(str(v) for v in sorted(seeds))})"
            print(f"| {label} | " + " | ".join(row) + " |")
        print()

    def dominated(rs, _):
        names = sorted({n for r in rs for n in r["dominated_by"]})
        return ", ".join(names) if names else "none"

    def bounded(bound, field):
        # The mean of the per-seed ratios, "!" where it is past the bound, and the
        # other policy that was best on the most seeds.
        def fmt(rs, key):
            m = mean(r[key] for r in rs)
            best = collections.Counter(r["best"][field] for r in rs).most_common(1)[0][0]
            return f"{m:.4f}{'!' if m > bound else ''} {best}"
        return fmt

    table(f"{args.policy}'s mean JCT / the best other's (mean over seeds; ! above 1)", "jct",
          stable, bounded(1.0, "mean_jct_s"))
    table(f"{args.policy}'s p95 JCT / the best other's (! above 1.05)", "p95", stable,
          bounded(1.05, "p95_jct_s"))
    table(f"{args.policy}'s GPU-hour-weighted slowdown / the lowest other (! above 1)",
          "slowdown", stable, bounded(1.0, "gpu_hour_weighted_slowdown"))
    table("policies better on both mean JCT and bytes (any seed)", None, stable, dominated)
    if overload:
        table(f"overload: {args.policy}'s makespan / the shortest other (! above 1)",
              "makespan", overload, bounded(1.0, "makespan_s"))


if __name__ == "__main__":
    main()
