#!/usr/bin/env bash
# clang-tidy (the checks of .clang-tidy) over every production source in the build's
# compile_commands.json: api/, client/, plugins/, scheduler/, store/, telemetry/,
# topology/. Any finding fails. About 15 minutes on 2 cores, so it is `make tidy`, not part of `make test`;
# run it before a change that touches many files lands.
#
#   tests/testing/run_clang_tidy.sh [BUILD_DIR]   # default: build
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-$root/build}")
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[[ -n $tidy ]] || { echo "run_clang_tidy: clang-tidy is not installed" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] ||
  { echo "run_clang_tidy: no compile_commands.json in $build (configure first)" >&2; exit 2; }
cd "$root"
mapfile -t sources < <(python3 - "$build" <<'PY'
import json, os, sys
db = json.load(open(os.path.join(sys.argv[1], "compile_commands.json")))
folders = ("api/", "client/", "plugins/", "scheduler/", "store/", "telemetry/", "topology/")
files = {os.path.relpath(e["file"]) for e in db}
print("\n".join(sorted(f for f in files if f.startswith(folders) and f.endswith(".cc"))))
PY
)
echo "run_clang_tidy: ${#sources[@]} sources" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${sources[@]}" |
  xargs -P "$(nproc)" -n 1 "$tidy" -p "$build" --quiet >"$log" 2>/dev/null || status=$?
if grep -q "error:" "$log"; then
  grep -A3 "error:" "$log" >&2
  echo "run_clang_tidy: $(grep -c 'error:' "$log") findings" >&2
  exit 1
fi
((status == 0)) || { cat "$log" >&2; exit "$status"; }
echo "run_clang_tidy: clean" >&2
