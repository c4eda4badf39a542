#!/usr/bin/env bash
# Regenerates the fault evaluation (docs/report/faults/): every placement policy on the
# same trace, seed and fault schedule, with links, switches and hosts failing and
# degrading at 0, 1 and 4 times the published rates (scheduler/sim/faults.cc names each
# source), at 50% and 85% of the fabric's GPU-hours offered (stable loads), running jobs
# sharing the fabric's links. Each
# scenario gets a report.md and metrics.json; README.md collects the goodput tables.
#
#   deploy/make-fault-report.sh [path/to/topoplace]
#
# Environment: TOPOPLACE, PHILLY_TRACE, OUT (default docs/report/faults), LOADS (offered
# loads, default 0.5,0.85), SCALES (default 0,1,4), ECMP (default hash), as deploy/make-report.sh; SEEDS
# (default 5): fault draws for the large mixes' repeat of topoplace against its blind
# control run (seeds.md), since one draw's difference is mostly chance; SCENARIOS
# (deploy/report-scenarios.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/deploy/report-scenarios.sh"
bin=${1:-${TOPOPLACE:-$root/build/api/cli/topoplace}}
trace=$(realpath -m "${PHILLY_TRACE:-$root/../shared/traces/philly_trace.csv}")
out=${OUT:-$root/docs/report/faults}
loads=${LOADS:-0.5,0.85}
scales=${SCALES:-0,1,4}
ecmp=${ECMP:-hash}
seeds=${SEEDS:-5}

if [[ ! -x "$bin" ]]; then
  echo "make-fault-report: no topoplace binary at $bin (build it, or pass its path)" >&2
  exit 2
fi
if [[ ! -r "$trace" ]]; then
  echo "make-fault-report: cannot read the Philly trace at $trace (set PHILLY_TRACE)" >&2
  exit 2
fi

# scenario NAME ARGS...: one comparison of every policy at every load and fault scale.
scenario() {
  local name=$1 load
  shift
  wanted "$name" || return 0
  echo "== $name" >&2
  for load in ${loads//,/ }; do
    mkdir -p "$out/$name/load-${load}x"
    "$bin" simulate "$@" --policy all --network shared --ecmp "$ecmp" --offered-load "$load" \
      --fault-sweep "$scales" --report "$out/$name/load-${load}x" >/dev/null
  done
}

# The same scenarios as deploy/make-report.sh.
scenario rail-28k-philly --fabric preset:rail-28k --trace "$trace"
scenario superpod-4su-philly --fabric preset:superpod-4su --trace "$trace"
scenario rail-28k-large-mix --fabric preset:rail-28k --trace synthetic:large-mix --jobs 1000
scenario superpod-4su-large-mix --fabric preset:superpod-4su --trace synthetic:large-mix \
  --jobs 1000
scenario gb200-nvl72-philly --fabric preset:gb200-nvl72 --trace "$trace"
scenario gb200-nvl72-large-mix --fabric preset:gb200-nvl72 --trace synthetic:large-mix \
  --jobs 1000
scenario gb200-nvl72-moe-mix --fabric preset:gb200-nvl72 --trace synthetic:moe-mix --jobs 1000

# repeat NAME ARGS...: topoplace and its blind control run over $seeds fault draws at the
# first of $loads and the published and 4x rates; seeds.md gets one row per draw and the mean.
repeat() {
  local name=$1 seed
  shift
  wanted "$name" || return 0
  echo "== $name, $seeds fault draws" >&2
  mkdir -p "$out/$name"
  for seed in $(seq 1 "$seeds"); do
    "$bin" simulate "$@" --policy topoplace --network shared --ecmp "$ecmp" --fault-sweep 1,4 \
      --offered-load "${loads%%,*}" \
      --fault-seed "$seed" --json >"$out/$name/seed-$seed.json"
  done
  python3 - "$out/$name" "$seeds" >"$out/$name/seeds.md" <<'PY'
import json, statistics, sys
folder, n = sys.argv[1], int(sys.argv[2])
rows = {}
for seed in range(1, n + 1):
    with open(f"{folder}/seed-{seed}.json") as f:
        for run in json.load(f)["runs"]:
            p = {x["policy"]: x for x in run["simulation"]["policies"]}
            gain = 100 * (p["topoplace"]["faults"]["goodput"] - p["topoplace-blind"]["faults"]["goodput"])
            lost = p["topoplace-blind"]["faults"]["lost_gpu_hours"] - p["topoplace"]["faults"]["lost_gpu_hours"]
            rows.setdefault(run["fault_scale"], []).append((seed, gain, lost))
print(f"# What watching link health is worth, over {n} fault draws\n")
print("Goodput of topoplace minus its control run blind to link faults (percentage points),")
print("and GPU-hours lost to interruptions that watching saved, per fault draw (--fault-seed).\n")
print("| fault scale | " + " | ".join(f"draw {s}" for s in range(1, n + 1)) + " | mean | GPU-h saved, mean |")
print("|---|" + "---|" * (n + 2))
for scale, r in sorted(rows.items()):
    gains = " | ".join(f"{g:+.2f}" for _, g, _ in r)
    print(f"| {scale:g}x | {gains} | {statistics.mean(g for _, g, _ in r):+.2f} | "
          f"{statistics.mean(l for _, _, l in r):+.0f} |")
PY
  rm -f "$out/$name"/seed-*.json
}
repeat rail-28k-large-mix --fabric preset:rail-28k --trace synthetic:large-mix --jobs 1000
repeat superpod-4su-large-mix --fabric preset:superpod-4su --trace synthetic:large-mix \
  --jobs 1000
repeat gb200-nvl72-large-mix --fabric preset:gb200-nvl72 --trace synthetic:large-mix --jobs 1000

# The index: the model once, then every scenario's goodput table.
{
  echo "# Faults: goodput per policy when links, switches and hosts fail"
  echo
  echo "Generated by \`deploy/make-fault-report.sh\` (\`topoplace simulate --fault-sweep\`):"
  echo "fault scales $scales of the published rates, offered loads ${loads//,/, } of the fabric's"
  echo "GPU-hours, ECMP $ecmp."
  echo "Goodput is useful GPU-hours (each completed job's GPUs x its trace duration) over the"
  echo "GPU-hours jobs held; it falls with slow placements as well as with faults, so compare"
  echo "a policy's goodput across fault scales, and policies at one scale."
  echo "FINDINGS.md (one folder up) says what the figures show."
  echo
  first=$(ls -d "$out"/*/load-*x | head -1)
  sed -n '/^Fault model/p' "$first/report.md"
  echo
  for seeds_md in "$out"/*/seeds.md; do
    echo "## ${seeds_md#"$out"/}"
    sed -n '3,$p' "$seeds_md"
    echo
  done
  for dir in "$out"/*/load-*x/; do
    rel=${dir#"$out"/}
    rel=${rel%/}
    echo "## [$rel]($rel/report.md)"
    echo
    sed -n '/^| fault scale | topoplace/,/^$/p' "$dir/report.md"
  done
} >"$out/README.md"
echo "make-fault-report: wrote $out" >&2
