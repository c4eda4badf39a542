#!/usr/bin/env bash
# Dumps 1,872 placement plans (`topoplace place --json`) into one file: 3 presets x 8
# policies x 3 background loads x 13 job shapes x PXN on/off. Run it with the binary
# before and after a refactor and `cmp` the two files: a refactor that changes nothing
# leaves them byte-identical. About 40 s on two cores.
#
# Usage: dump_plans.sh TOPOPLACE OUT
set -u
tp=$1
out=$2
: >"$out"
jobs=(tp=8,pp=1,dp=1 tp=8,pp=2,dp=4 tp=8,pp=4,dp=16,model=70b tp=4,pp=4,dp=8 tp=2,pp=8,dp=4
      tp=8,pp=8,dp=8,model=70b,max_tier=block tp=8,pp=2,dp=64,max_tier=pod,mode=soft
      tp=1,pp=1,dp=1,gpus_per_node=1 tp=4,pp=1,dp=1,gpus_per_node=4 tp=8,pp=16,dp=32,model=405b
      tp=8,pp=1,dp=128,order=tp-cp-ep-pp-dp tp=8,cp=2,pp=2,dp=8 tp=8,ep=4,pp=2,dp=4)
for fabric in rail-512 superpod-4su rail-28k; do
  for policy in topoplace first-fit random slurm-tree slurm-block kueue-bestfit volcano kai; do
    for load in 0 0.3 0.6; do
      for job in "${jobs[@]}"; do
        for rail_local in --rail-local --no-rail-local; do
          echo "== $fabric $policy $load $job $rail_local" >>"$out"
          "$tp" place --fabric "preset:$fabric" --policy "$policy" --load "$load" --seed 7 \
            --job "$job" "$rail_local" --json >>"$out" 2>&1
          echo "rc=$?" >>"$out"
        done
      done
    done
  done
done
