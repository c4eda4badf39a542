#!/usr/bin/env python3
"""Compares two `topoplace simulate --json` outputs (or metrics.json files) key by key,
measured times aside (wall seconds, Place call microseconds): what a refactor of the
simulator must leave equal. Prints each difference; exit 1 if there is one. With --new-keys-ok, keys only the
second has (metrics added since) are not differences.

    tests/testing/same_sim_outcomes.py [--new-keys-ok] before.json after.json
"""
import json
import math
import sys

# Wall-clock measurements: they differ between any two runs.
TIMES = {"wall_seconds", "place_mean_us", "place_p95_us", "place_us"}


def differences(a, b, path="$", new_keys_ok=False):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in TIMES:
                continue
            if key not in a and new_keys_ok:
                continue
            if key not in a or key not in b:
                yield f"{path}.{key}: only in {'after' if key in b else 'before'}"
            else:
                yield from differences(a[key], b[key], f"{path}.{key}", new_keys_ok)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} items before, {len(b)} after"
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{i}]", new_keys_ok)
    elif isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and (a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=0))):
            yield f"{path}: {a!r} before, {b!r} after"
    elif a != b:
        yield f"{path}: {a!r} before, {b!r} after"


def main():
    args = sys.argv[1:]
    new_keys_ok = "--new-keys-ok" in args
    files = [a for a in args if a != "--new-keys-ok"]
    if len(files) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(files[0]) as f:
        before = json.load(f)
    with open(files[1]) as f:
        after = json.load(f)
    found = list(differences(before, after, new_keys_ok=new_keys_ok))
    for line in found:
        print(line)
    print(f"{len(found)} differences" if found else "same outcomes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
