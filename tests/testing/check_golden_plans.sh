#!/usr/bin/env bash
# The golden plans: every plan dump_plans.sh makes (1,872 cases: 3 presets x 8 policies x
# 3 loads x 13 job shapes x PXN on/off) must hash as recorded in
# tests/fixtures/golden-plans.sha256, so a change that moves any placement, by any policy,
# is seen in `make test` and the file is updated on purpose in the same commit:
#
#   tests/testing/check_golden_plans.sh build/api/cli/topoplace --update
#
# Usage: check_golden_plans.sh TOPOPLACE [--update]
# Exit: 0 every plan as recorded (or the file updated), 1 a plan moved (the cases named).
set -euo pipefail
tp=$1
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../fixtures/golden-plans.sha256
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/dump_plans.sh" "$tp" "$work/plans.txt"
# One line per case: its sha256, then the case ("fabric policy load job pxn").
python3 - "$work/plans.txt" >"$work/hashes.txt" <<'PY'
import hashlib, sys
case, body = None, []
def flush():
    if case is not None:
        print(hashlib.sha256("".join(body).encode()).hexdigest(), case)
for line in open(sys.argv[1]):
    if line.startswith("== "):
        flush()
        case, body = line[3:].rstrip("\n"), []
    else:
        body.append(line)
flush()
PY
if [[ ${2:-} == --update ]]; then
  cp "$work/hashes.txt" "$golden"
  echo "updated $golden ($(wc -l <"$golden") plans)"
  exit 0
fi
if ! diff -q "$golden" "$work/hashes.txt" >/dev/null; then
  echo "FAIL: plans moved from tests/fixtures/golden-plans.sha256 in these cases:"
  diff "$golden" "$work/hashes.txt" | grep '^>' | cut -d' ' -f3- | head -20
  echo "(if intended: $0 TOPOPLACE --update, and commit the file with the change)"
  exit 1
fi
echo "PASS: $(wc -l <"$golden") plans as recorded"
