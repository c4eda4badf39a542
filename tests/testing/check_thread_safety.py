#!/usr/bin/env python3
"""Clang's thread-safety analysis over our code that takes locks: every source file that
names a mutex or a lock annotation (ABSL_GUARDED_BY, ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...),
or whose header does, compiled with clang++ -fsyntax-only -Wthread-safety as errors, using
the flags of the build's compile_commands.json. g++ ignores the annotations; this is the
check that reads them.

  check_thread_safety.py BUILD_DIR SOURCE_DIR
"""

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

FOLDERS = ("api", "client", "plugins", "scheduler", "store", "telemetry", "topology")
LOCKING = re.compile(r"Mutex|GUARDED_BY|LOCKS_REQUIRED|LOCKS_EXCLUDED|LOCK_RETURNED")


def locking_sources(src):
    chosen = set()
    for folder in FOLDERS:
        for root, _, files in os.walk(os.path.join(src, folder)):
            for name in files:
                path = os.path.join(root, name)
                if not name.endswith((".cc", ".h")):
                    continue
                with open(path, encoding="utf-8") as f:
                    if not LOCKING.search(f.read()):
                        continue
                cc = path[:-2] + ".cc" if name.endswith(".h") else path
                if os.path.exists(cc):
                    chosen.add(os.path.realpath(cc))
    return chosen


def clang_command(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out, skip = ["clang++"], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            out.append(a)
    return out + ["-fsyntax-only", "-Wno-everything", "-Wthread-safety",
                  "-Werror=thread-safety"]


def main():
    build, src = sys.argv[1], sys.argv[2]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = {os.path.realpath(e["file"]): e for e in json.load(f)}
    wanted = locking_sources(src)
    missing = sorted(w for w in wanted if w not in entries)
    jobs = [entries[w] for w in sorted(wanted) if w in entries]

    def run(entry):
        r = subprocess.run(clang_command(entry), cwd=entry["directory"], capture_output=True,
                           text=True, check=False)
        return entry["file"], r.returncode, r.stderr

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for path, code, err in pool.map(run, jobs):
            if code != 0:
                failed += 1
                print(f"FAIL {path}\n{err}")
    print(f"{len(jobs)} files that take locks checked with -Wthread-safety; {failed} failed")
    for m in missing:
        print(f"not in compile_commands.json (not built?): {m}")
    return 1 if failed or not jobs else 0


if __name__ == "__main__":
    sys.exit(main())
