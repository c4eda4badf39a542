#!/usr/bin/env python3
"""Fails when a source file opens a namespace its folder does not own.

Each layer folder of cmake/check_layers.py has its namespace here (and, for a few, a
namespace nested in it for one module's internals). A production .h or .cc may open only
those, anonymous namespaces, and namespaces of other projects. A block that only declares
classes ahead (`namespace topoplace::telemetry { class TelemetryStore; }`) is not an
opening of that namespace. A folder missing from the table is an error too.

Usage: check_namespaces.py REPO_ROOT     (exit 0: clean; 1: files listed)
       check_namespaces.py --self-test   (a planted stray namespace is caught)
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import LAYERS, folder_of, source_files  # noqa: E402

NAMESPACES = {
    "base": ("topoplace",),
    "topology/model": ("topoplace", "topoplace::hierarchy"),  # inference's phases
    "topology/generate": ("topoplace",),
    "topology/io": ("topoplace",),
    "topology/discovery": ("topoplace::discovery",),
    "topology/render": ("topoplace::render",),
    "scheduler/ledger": ("topoplace::ledger",),
    "scheduler/sim": ("topoplace::sched::sim",),
    "telemetry/probe": ("topoplace::telemetry", "topoplace::telemetry::net"),  # sockets
    "store/ports": ("topoplace::store",),
    "store/sqlite": ("topoplace::store",),
    "store/etcd": ("topoplace::store",),
    "client": ("topoplace::client",),
    "plugins/common": ("topoplace::plugins",),
    "plugins/slurm": ("topoplace::slurm",),
    "plugins/k8s": ("topoplace::k8s",),
    "api/agent": ("topoplace::agent",),
    "api/cli": ("topoplace::cli",),
}
# Rooms whose every folder shares one namespace, unless named above.
ROOM_NAMESPACES = {"scheduler": "topoplace::sched", "telemetry": "topoplace::telemetry",
                   "api/server": "topoplace::server"}
OPEN = re.compile(r"^namespace (topoplace[\w:]*) \{", re.M)
AHEAD = re.compile(r"^\s*((class|struct) \w+;|//.*)?\s*$")


def allowed(folder):
    if folder in NAMESPACES:
        return NAMESPACES[folder]
    for room, namespace in ROOM_NAMESPACES.items():
        if folder.startswith(room + "/"):
            return (namespace,)
    return None


def declares_ahead_only(text, start):
    """Whether the block opened at `start` holds forward declarations and comments only."""
    end = text.find("\n}", start)
    body = text[text.find("{", start) + 1:end if end >= 0 else len(text)]
    return all(AHEAD.match(line) for line in body.split("\n"))


def check(root, layers=LAYERS):
    problems = []
    for folder in sorted(f for group in layers for f in group):
        if allowed(folder) is None:
            problems.append(f"{folder}: no namespace in cmake/check_namespaces.py's table")
    for path in source_files(root):
        folder = folder_of(path)
        own = allowed(folder) if folder else None
        if own is None:
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        for m in OPEN.finditer(text):
            if m.group(1) in own or declares_ahead_only(text, m.start()):
                continue
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{path}:{line}: namespace {m.group(1)} in {folder}/, "
                            f"whose namespace is {' or '.join(own)}")
    return problems


def self_test():
    layers = [["base"], ["store/ports"]]
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        write("base/a.h", "namespace topoplace {\nint A();\n}  // namespace topoplace\n")
        write("store/ports/b.h", "namespace topoplace::sched {\nclass Occupancy;\n}\n"
                           "namespace topoplace::store {\nint B();\n}\n")
        assert check(root, layers) == [], check(root, layers)
        write("store/ports/c.cc", "namespace topoplace::etcd {\nint C() { return 1; }\n}\n")
        problems = check(root, layers)
        assert problems == ["store/ports/c.cc:1: namespace topoplace::etcd in store/ports/, whose namespace "
                            "is topoplace::store"], problems
        assert any("no namespace" in p for p in check(root, layers + [["x/y"]]))
    print("check_namespaces self-test: a stray namespace and a folder without one are caught")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        return 1
    print("namespaces: every file opens only its folder's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
