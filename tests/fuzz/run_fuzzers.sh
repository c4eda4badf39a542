#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in their own build directory and runs each
# for N seconds, seeded with the recorded fixtures.
#
#   tests/fuzz/run_fuzzers.sh [SECONDS (default 20)] [BUILD_DIR (default build-fuzz)]
#
# Needs: clang, libclang-rt-14-dev (deploy/install-deps.sh installs both).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-20}
build=${2:-$src/build-fuzz}
shared=$src/../shared/fixtures
ours=$src/tests/fixtures/discovery

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTOPOPLACE_FUZZ=ON -DTOPOPLACE_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" >/dev/null
targets=(ibnetdiscover lldp agent_report k8s_nodes fabric_file k8s_extender_wire uplink_load node_list
         allocation_record job_spec trace fault_trace spank_input server_config counter_sources)
ninja -C "$build" "${targets[@]/%/_fuzzer}"

seed() {  # CORPUS_DIR FILES...
  local dir=$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do [[ -f $f ]] && cp "$f" "$dir/"; done
  return 0
}
seed "$build/corpus/ibnetdiscover" "$shared"/ibnetdiscover/* "$ours"/ibnetdiscover/*
seed "$build/corpus/lldp" "$shared"/lldp/* "$ours"/fuzz-regressions/lldp-*
seed "$build/corpus/agent_report" "$ours"/agent-reports/*
seed "$build/corpus/k8s_nodes" "$ours"/k8s-nodes/*.json "$ours"/k8s-resource-slices/*.json
seed "$build/corpus/fabric_file" "$src"/tests/fixtures/fabric/*
seed "$build/corpus/uplink_load" "$src"/tests/fixtures/uplink-load/*
seed "$build/corpus/node_list" "$src"/tests/fixtures/node-lists/*
seed "$build/corpus/allocation_record" "$src"/tests/fixtures/etcd-records/*
seed "$build/corpus/job_spec" "$src"/tests/fixtures/job-specs/*
seed "$build/corpus/trace" "$src"/tests/fixtures/traces/*
seed "$build/corpus/fault_trace" "$src"/tests/fixtures/faults/*
seed "$build/corpus/server_config" "$src"/deploy/topoplaced.conf.example
seed "$build/corpus/counter_sources" "$src"/tests/fixtures/counters/node_exporter/*.prom \
  "$src"/tests/fixtures/counters/ufm/*.json
seed "$build/corpus/spank_input" "$src"/tests/fixtures/job-specs/* "$src"/tests/fixtures/node-lists/*
# One kube-scheduler request body per file, from the recorded requests.
mkdir -p "$build/corpus/k8s_extender_wire"
jq -c '.body' "$src"/tests/unit/plugins/k8s/extender/testdata/kube-scheduler-1.20-requests.jsonl |
  split -l 1 - "$build/corpus/k8s_extender_wire/recorded-"

status=0
for target in "${targets[@]}"; do
  echo "== ${target}_fuzzer for ${seconds}s"
  "$build/tests/fuzz/${target}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$build/${target}-" "$build/corpus/$target" || status=1
done
exit $status
