#!/usr/bin/env python3
"""Runs the peers' own test cases (tests/fixtures/peers/*/ *.cases) through
`topoplace place --policy BASELINE` and fails on any answer that differs from upstream's
and is not listed, with its reason, in the suite's mismatches.txt. A listed case that now
matches fails too, so the list stays true. With --own-policy it also checks that
topoplace's policy never spans more top-level domains than upstream's answer.

  check_peer_cases.py --cli build/api/cli/topoplace --policy kueue-bestfit \
      tests/fixtures/peers/kueue
"""

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import peer_cases as pc

NO_PLACEMENT_EXIT = 3  # topoplace place: the job does not fit under its constraints
BAD_INPUT_EXIT = 2     # topoplace place: the job spec is refused


def run_place(cli, case, job, policy, workdir, busy=()):
    """Places `job` with `policy`: (pods per answer key, hosts in rank order), or
    (None, why) when it does not fit."""
    fabric = os.path.join(workdir, "fabric.json")
    occupied = os.path.join(workdir, "occupied.txt")
    pc.write_json(fabric, pc.fabric_json(case))
    with open(occupied, "w", encoding="utf-8") as f:
        f.write(pc.occupied_text(case, busy))
    cmd = [cli, "place", "--fabric", fabric, "--job", pc.job_spec(case, job), "--policy",
           policy, "--occupied", occupied, "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode == NO_PLACEMENT_EXIT:
        return None, out.stderr.strip()
    if out.returncode == BAD_INPUT_EXIT and job.expect_none.startswith("refused"):
        return None, out.stderr.strip()  # upstream refuses the job at submission too
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()}")
    plan = json.loads(out.stdout)
    by_host = {h.name: h for h in case.hosts}
    counts, order = collections.Counter(), []
    for rank in sorted(plan["ranks"], key=lambda r: r["rank"]):
        counts[pc.answer_key(case, by_host[rank["host"]])] += 1
        if rank["host"] not in order:
            order.append(rank["host"])
    return dict(counts), order


def matches(job, got, order):
    """Whether a placement (None: none) is what upstream expects of `job`."""
    if job.expect_none:
        return got is None
    if got is None:
        return False
    if job.expect_placed:
        ok = sum(got.values()) == job.pods
    else:
        ok = got == job.expect
    return ok and (job.expect_order is None or order == job.expect_order)


def top_domains(case, answer):
    """How many top-level domains an answer (key -> pods) spans."""
    if not case.domain_levels:
        return len(answer)
    top = {h.name: h.path[0] for h in case.hosts}
    return len({top[k] if case.host_is_level else k.split("/")[0] for k in answer})


def read_mismatches(path):
    listed = {}
    if not os.path.exists(path):
        return listed
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3 or not parts[2]:
                raise pc.CaseError(f"{path}:{number}: expected 'POLICY | CASE | REASON'")
            listed[(parts[0], parts[1])] = parts[2]
    return listed


def describe_got(got, order, why):
    if got is None:
        return f"none ({why})"
    return " ".join(f"{k}={v}" for k, v in sorted(got.items())) + f" [order {' '.join(order)}]"


def describe_want(job):
    if job.expect_none:
        return f"none ({job.expect_none})"
    want = f"all {job.pods} placed" if job.expect_placed else \
        " ".join(f"{k}={v}" for k, v in sorted(job.expect.items()))
    return want + (f" [order {' '.join(job.expect_order)}]" if job.expect_order else "")


def check_case(args, case, workdir):
    """Runs a case's jobs in order (each keeps its hosts for the next); returns
    (matched, failure lines of the own-policy check, mismatch description or '')."""
    busy, mismatch, own_failures = set(), "", []
    for job in case.jobs:
        got, order = run_place(args.cli, case, job, args.policy, workdir, busy)
        if not matches(job, got, order) and not mismatch:
            mismatch = (f"job of line {job.line}: {args.policy} places "
                        f"{describe_got(got, order, order)}, upstream {describe_want(job)}")
        if got is not None:
            busy.update(order)
        if (args.own_policy and len(case.jobs) == 1 and job.expect is not None):
            own, _ = run_place(args.cli, case, job, args.own_policy, workdir)
            if own is None or top_domains(case, own) > top_domains(case, job.expect):
                own_failures.append(
                    f"{case.name}: {args.own_policy} places "
                    f"{describe_got(own, [], 'no placement')}, spanning more top-level "
                    f"domains than upstream's {describe_want(job)}")
    return not mismatch, own_failures, mismatch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--policy", required=True, help="the baseline imitating this peer")
    ap.add_argument("--own-policy", default="topoplace")
    ap.add_argument("suite", help="a folder of .cases files and its mismatches.txt")
    args = ap.parse_args()

    files = sorted(glob.glob(os.path.join(args.suite, "*.cases")))
    if not files:
        print(f"{args.suite}: no .cases files", file=sys.stderr)
        return 2
    listed = read_mismatches(os.path.join(args.suite, "mismatches.txt"))
    failures, not_expressed, matched, listed_seen = [], collections.Counter(), 0, set()
    total = 0
    with tempfile.TemporaryDirectory() as workdir:
        for path in files:
            for case in pc.read_cases(path):
                total += 1
                why = pc.why_not_expressible(case)
                if why:
                    not_expressed[re.split(r" \(|;|:", why, maxsplit=1)[0]] += 1
                    continue
                ok, own_failures, mismatch = check_case(args, case, workdir)
                failures += own_failures
                key = (args.policy, case.name)
                matched += ok
                if key in listed:
                    listed_seen.add(key)
                    if ok:
                        failures.append(f"{case.name}: now matches; remove it from "
                                        "mismatches.txt")
                elif not ok:
                    failures.append(f"{os.path.basename(path)}:{case.line} {case.name}: "
                                    f"{mismatch}")
    for key in sorted(set(listed) - listed_seen):
        failures.append(f"mismatches.txt lists '{key[1]}' for {key[0]}, which is no case run")
    print(f"{args.suite}: {total} cases, {total - sum(not_expressed.values())} run with "
          f"{args.policy}, {matched} match upstream, {len(listed_seen)} listed mismatches")
    for why, n in not_expressed.most_common():
        print(f"  not expressible ({n}): {why}")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except pc.CaseError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
