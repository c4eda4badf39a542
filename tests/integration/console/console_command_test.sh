#!/usr/bin/env bash
# The command `make demo` names at its end serves the console on the demo's database:
# runs deploy/demo.sh into a fresh directory, then deploy/console.sh (what `make console`
# runs) on a free port, and reads the console's page and the demo's allocations from it.
# Stops what it started, also when a step fails.
set -euo pipefail
source_dir=$1 build_dir=$2
work=$(mktemp -d)
console_pid=""
cleanup() {
  if [[ -n "$console_pid" ]] && kill -0 "$console_pid" 2>/dev/null; then
    kill -TERM "$console_pid"; wait "$console_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

BUILD=$build_dir DEMO_DIR=$work bash "$source_dir/deploy/demo.sh" > "$work/demo.out"
named=$(grep -o "run 'make console[^']*'" "$work/demo.out") || {
  echo "FAIL: the demo does not name the console command"; tail -5 "$work/demo.out"; exit 1; }
echo "demo names: $named"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BUILD=$build_dir DEMO_DIR=$work CONSOLE_LISTEN=127.0.0.1:$port \
  bash "$source_dir/deploy/console.sh" > "$work/console.out" 2>&1 &
console_pid=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/api/v1/allocations" > "$work/allocations.json" && break
  kill -0 "$console_pid" 2>/dev/null || { echo "FAIL: console exited"; cat "$work/console.out"; exit 1; }
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/" | grep -q "<title>topoplace console</title>" || {
  echo "FAIL: no console page at http://127.0.0.1:$port/"; exit 1; }
# The demo leaves two committed jobs (slurm:1001 and slurm:1002).
ids=$(python3 -c 'import json,sys; print(" ".join(sorted(a["external_id"] for a in json.load(open(sys.argv[1]))["allocations"])))' "$work/allocations.json")
if [[ "$ids" != "slurm:1001 slurm:1002" ]]; then
  echo "FAIL: the console shows allocations '$ids', expected the demo's 'slurm:1001 slurm:1002'"
  exit 1
fi
echo "PASS: $named serves the demo's database ($ids)"
