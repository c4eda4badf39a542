#!/usr/bin/env python3
"""Per-job evidence from `topoplace simulate --jobs-out FILE` (JSON Lines).

For each (load, policy): jobs, mean JCT, mean queue, mean slowdown and the GPU-hour
weighted slowdown (achieved; as the per-job model predicted it alone on its links; and, with
shared links, as its links gave it when it started, with the jobs then running: achieved
over "at start" is what later jobs cost it), per class of job (dense or MoE by the spec's ep, and GPU count), and
the jobs a policy slowed most. With --versus A,B it pairs the same job under two policies
and lists where their JCTs differ most, with each one's placement (NVLink domains, blocks,
bytes off NVLink) and slowdown: the per-job answer to "why does A beat B".

    jobs_by_class.py jobs.jsonl [--load 0.63] [--versus topoplace,random] [--top 10]
"""
import argparse
import collections
import json
import re
import sys


def load_jobs(path):
    jobs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                jobs.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: not JSON: {e}")
    return jobs


def job_class(job):
    ep = re.search(r"(?:^|,)ep=(\d+)", job.get("spec", ""))
    kind = "moe" if ep and int(ep.group(1)) > 1 else "dense"
    return f"{kind} {job['gpus']:>5}"


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def summarise(rows):
    done = [r for r in rows if r["outcome"] == "completed"]
    gpu_hours = [r["gpus"] * r["duration_s"] for r in done]
    weighted = sum(w * r["slowdown"] for w, r in zip(gpu_hours, done))
    def weigh(key):
        total = sum(w * r.get(key, float("nan")) for w, r in zip(gpu_hours, done))
        return total / sum(gpu_hours) if gpu_hours else float("nan")
    return {
        "jobs": len(rows),
        "jct_h": mean(r["jct_s"] / 3600 for r in done),
        "queue_h": mean(r["queue_s"] / 3600 for r in done),
        "slowdown": mean(r["slowdown"] for r in done),
        "gpuh_slowdown": weighted / sum(gpu_hours) if gpu_hours else float("nan"),
        "gpuh_predicted": weigh("predicted_slowdown"),
        "gpuh_at_start": weigh("slowdown_at_start"),
        "domains": mean(r["nvlink_domains"] for r in done),
    }


def print_classes(jobs, top):
    groups = collections.defaultdict(list)
    for j in jobs:
        groups[(j["load"], j["policy"], job_class(j))].append(j)
        groups[(j["load"], j["policy"], "all")].append(j)
    print("| load | policy | class | jobs | mean JCT h | mean queue h | mean slowdown "
          "| GPU-h slowdown | GPU-h predicted alone | GPU-h at start | NVLink domains |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (load, policy, cls), rows in sorted(groups.items(), key=lambda kv: (
            kv[0][0], kv[0][1], kv[0][2] != "all", kv[0][2])):
        s = summarise(rows)
        print(f"| {load:g} | {policy} | {cls} | {s['jobs']} | {s['jct_h']:.2f} | "
              f"{s['queue_h']:.2f} | {s['slowdown']:.3f} | {s['gpuh_slowdown']:.3f} | "
              f"{s['gpuh_predicted']:.3f} | {s['gpuh_at_start']:.3f} | {s['domains']:.2f} |")
    if top <= 0:
        return
    print()
    by_run = collections.defaultdict(list)
    for j in jobs:
        if j["outcome"] == "completed":
            by_run[(j["load"], j["policy"])].append(j)
    for (load, policy), rows in sorted(by_run.items()):
        worst = sorted(rows, key=lambda r: -r["slowdown"])[:top]
        print(f"load {load:g}, {policy}: most slowed: " + "; ".join(
            f"#{r['id']} {job_class(r).split()[0]} {r['gpus']} GPUs x{r['slowdown']:.2f} "
            f"(predicted x{r.get('predicted_slowdown', float('nan')):.2f}, "
            f"at start x{r.get('slowdown_at_start', float('nan')):.2f}, "
            f"{r['nvlink_domains']} domains)" for r in worst))


def print_versus(jobs, a, b, top):
    pairs = collections.defaultdict(dict)
    for j in jobs:
        if j["policy"] in (a, b) and j["outcome"] == "completed":
            pairs[(j["load"], j["seed"], j["id"])][j["policy"]] = j
    by_load = collections.defaultdict(list)
    for (load, _, _), p in pairs.items():
        if a in p and b in p:
            by_load[load].append(p)
    for load, ps in sorted(by_load.items()):
        gap = sum(p[a]["jct_s"] - p[b]["jct_s"] for p in ps) / len(ps) / 3600
        queue = sum(p[a]["queue_s"] - p[b]["queue_s"] for p in ps) / len(ps) / 3600
        run = sum((p[a]["jct_s"] - p[a]["queue_s"]) - (p[b]["jct_s"] - p[b]["queue_s"])
                  for p in ps) / len(ps) / 3600
        print(f"\nload {load:g}: {a} - {b} mean JCT {gap:+.2f} h per job "
              f"(queue {queue:+.2f} h, run {run:+.2f} h) over {len(ps)} jobs")
        ps.sort(key=lambda p: -(p[a]["jct_s"] - p[b]["jct_s"]))
        for p in ps[:top]:
            x, y = p[a], p[b]
            print(f"  #{x['id']} {job_class(x)} GPUs: JCT {x['jct_s'] / 3600:.1f} h vs "
                  f"{y['jct_s'] / 3600:.1f} h; queue {x['queue_s'] / 3600:.1f} vs "
                  f"{y['queue_s'] / 3600:.1f} h; slowdown {x['slowdown']:.2f} vs "
                  f"{y['slowdown']:.2f}; domains {x['nvlink_domains']} vs "
                  f"{y['nvlink_domains']}; off-NVLink bytes {x['off_nvlink_bytes']:.3g} vs "
                  f"{y['off_nvlink_bytes']:.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jobs_out")
    ap.add_argument("--load", type=float, help="only this offered load")
    ap.add_argument("--versus", help="A,B: pair each job under policies A and B")
    ap.add_argument("--top", type=int, default=5, help="jobs listed per run (0: none)")
    args = ap.parse_args()
    jobs = load_jobs(args.jobs_out)
    if args.load is not None:
        jobs = [j for j in jobs if abs(j["load"] - args.load) < 1e-9]
    if not jobs:
        sys.exit(f"{args.jobs_out}: no jobs (at that load)")
    print_classes(jobs, args.top)
    if args.versus:
        a, b = args.versus.split(",")
        print_versus(jobs, a, b, args.top)


if __name__ == "__main__":
    main()
