#!/usr/bin/env python3
"""Fails when a source folder includes one of a higher (or the same) layer.

The house, bottom first: each folder may include only folders of a lower rank (and
itself). Siblings of one rank (e.g. policies, baselines, scorers) do not include each other.
A folder missing from the table is an error too, so a new one gets a place on purpose.
Only the backends and the places that pick one may include a storage backend (BACKENDS).

The layer order is written here only; docs/DESIGN.md's folder table and
scheduler/README.md's are checked against it (--docs): each names every folder of its part
of the house, in an order this table allows.

Usage: check_layers.py REPO_ROOT          (exit 0: clean; 1: violations, listed)
       check_layers.py --docs REPO_ROOT   (the docs' folder tables against LAYERS)
       check_layers.py --graph REPO_ROOT  (prints the folder graph: what each folder includes)
       check_layers.py --self-test        (checks that a planted upward include is caught)
"""
import os
import re
import sys
import tempfile

# The generated protos (api/proto, included as topoplace/... and etcdserverpb/...) include
# none of our folders, so every folder may include them; they need no row.
LAYERS = [
    ["base"],
    ["topology/model"],
    ["topology/generate"],
    ["topology/io"],
    ["topology/discovery", "topology/render"],
    ["scheduler/job"],
    ["scheduler/state"],
    ["scheduler/mapping"],
    ["scheduler/traffic"],
    ["scheduler/steptime"],
    ["scheduler/framework"],
    ["scheduler/policies", "scheduler/baselines", "scheduler/scorers"],
    ["scheduler/builtin"],
    ["scheduler/placement", "scheduler/ledger"],
    ["store/ports"],
    ["scheduler/report"],
    ["scheduler/load"],
    ["scheduler/reserve"],
    ["scheduler/sim"],
    ["telemetry/counters", "telemetry/probe"],
    ["telemetry/health"],
    ["telemetry/metrics"],
    ["telemetry/monitor"],
    ["store/sqlite", "store/etcd"],
    ["client"],
    ["plugins/common"],
    ["plugins/slurm", "plugins/k8s"],
    ["api/server/config", "api/agent"],
    ["api/server/guards", "api/server/adapters"],
    ["api/server/services"],
    ["api/server/console"],
    ["api/server/wiring"],
    ["api/cli"],
]
# The storage backends, and the folders that may name one: the backends themselves and the
# places that pick one (the daemon's adapters and wiring, the CLI's ledger file). Everything
# else stores through a port of store/ports.
BACKENDS = ("store/sqlite", "store/etcd")
OPEN_BACKENDS = BACKENDS + ("api/server/adapters", "api/server/wiring", "api/cli")
ROOTS = ("base", "topology", "scheduler", "telemetry", "store", "client", "plugins", "api")
# Folders whose sub-folders are layer units of their own (the daemon's rooms by job).
SPLIT = ("api/server",)
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    """The layer unit of a repository path ("scheduler/state/occupancy.h" -> "scheduler/state")."""
    parts = path.split("/")
    if parts[0] not in ROOTS:
        return None
    depth = 3 if "/".join(parts[:2]) in SPLIT else 2
    return "/".join(parts[:depth]) if len(parts) > depth else "/".join(parts[:depth - 1])


def source_files(root):
    """Every .h and .cc under the rooms, as a repository path, in a stable order."""
    for top in ROOTS:
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith((".h", ".cc")):
                    yield os.path.relpath(os.path.join(directory, name), root)


def ranks(layers):
    """Each folder's row in `layers`, bottom first."""
    return {folder: i for i, group in enumerate(layers) for folder in group}


def includes(root):
    """Every include of one of our folders from another: (path, line number, from, to, text)."""
    for path in source_files(root):
        src = folder_of(path)
        with open(os.path.join(root, path), errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                dst = folder_of(m.group(1)) if m else None
                if dst is not None and dst != src:
                    yield path, number, src, dst, m.group(1)


def check(root, layers=LAYERS):
    rank = ranks(layers)
    problems = [f"{path}: folder {folder_of(path)} has no layer (add it to {__file__})"
                for path in source_files(root) if folder_of(path) not in rank]
    for path, number, src, dst, text in includes(root):
        if src not in rank:
            continue
        if dst not in rank:
            problems.append(f"{path}:{number}: includes {text}, whose folder {dst} has no layer")
        elif rank[dst] >= rank[src]:
            problems.append(f"{path}:{number}: {src} includes {text} ({dst} is not below it)")
        elif dst in BACKENDS and src not in OPEN_BACKENDS:
            problems.append(f"{path}:{number}: {src} includes the backend {text} "
                            f"(store through a port of store/ports)")
    return problems


def graph(root, layers=LAYERS):
    """The folder graph, bottom first: each folder, its files and the folders it includes."""
    rank = ranks(layers)
    files, uses = {}, {}
    for path in source_files(root):
        folder = folder_of(path)
        files[folder] = files.get(folder, 0) + 1
    for _, _, src, dst, _ in includes(root):
        uses.setdefault(src, set()).add(dst)
    order = sorted(files, key=lambda d: (rank.get(d, len(rank)), d))
    return [f"{d} ({files[d]} files) -> " +
            (", ".join(sorted(uses.get(d, ()), key=lambda u: (rank.get(u, len(rank)), u)))
             or "(nothing of ours)") for d in order]


# The docs whose first folder table lists layers, bottom first: (file, the heading the table
# follows, the prefix its folder names leave out, the folders it must name).
DOCS = [
    ("docs/DESIGN.md", "## Folders and layers", "", None),
    ("scheduler/README.md", "# scheduler/", "scheduler/", "scheduler/"),
]
BACKTICKED = re.compile(r"`([a-z0-9_/]+?)/?`")


def doc_folders(text, heading, prefix):
    """The folders named in the second column of the first table after `heading`, in order."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    folders, in_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            in_table = True
            cells = line.split("|")
            column = cells[2] if prefix == "" and len(cells) > 2 else cells[1]
            folders += [prefix + m.group(1) for m in BACKTICKED.finditer(column)]
        elif in_table:
            break
    return folders


def check_docs(root, layers=LAYERS, docs=DOCS):
    rank = ranks(layers)
    problems = []
    for path, heading, prefix, scope in docs:
        with open(os.path.join(root, path)) as f:
            named = [d for d in doc_folders(f.read(), heading, prefix) if d in rank]
        for before, after in zip(named, named[1:]):
            if rank[after] < rank[before]:
                problems.append(f"{path}: {after} is listed after {before}, but it is below it "
                                f"in {os.path.basename(__file__)}'s LAYERS")
        wanted = [d for d in rank if scope is None or d.startswith(scope)]
        for missing in (d for d in wanted if d not in named):
            problems.append(f"{path}: the folder table does not name {missing}")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        write("scheduler/state/a.h", '#include "topology/model/fabric.h"\n')
        write("scheduler/placement/b.h", '#include "scheduler/state/a.h"\n')
        assert check(root) == [], check(root)
        write("scheduler/state/c.cc", '#include "scheduler/placement/b.h"\n')
        write("scheduler/scorers/d.cc", '#include "scheduler/baselines/e.h"\n')
        problems = check(root)
        assert len(problems) == 2 and any("scheduler/state/c.cc:1" in p for p in problems), problems
        write("api/server/services/s.cc", '#include "store/sqlite/t.h"\n')
        assert any("includes the backend" in p for p in check(root)), check(root)
        write("api/server/guards/g.h", '#include "api/server/wiring/h.h"\n')
        assert any("api/server/guards includes" in p for p in check(root)), check(root)
        write("scheduler/newfolder/f.cc", "\n")
        assert any("has no layer" in p for p in check(root)), check(root)
        layers = [["a/x"], ["a/y"]]
        docs = [("d.md", "# d", "a/", "a/")]
        write("d.md", "# d\n\n| folder | holds |\n|---|---|\n| `x/` | . |\n| `y/` | . |\n")
        assert check_docs(root, layers, docs) == [], check_docs(root, layers, docs)
        write("d.md", "# d\n\n| folder | holds |\n|---|---|\n| `y/` | . |\n| `x/` | . |\n")
        assert any("listed after" in p for p in check_docs(root, layers, docs))
        write("d.md", "# d\n\n| folder | holds |\n|---|---|\n| `x/` | . |\n")
        assert any("does not name a/y" in p for p in check_docs(root, layers, docs))
    print("check_layers self-test: upward (between the daemon's rooms too), sibling, unplaced "
          "and backend includes are caught, and docs out of order or missing a folder")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--graph":
        print("\n".join(graph(argv[2])))
        return 0
    if len(argv) == 3 and argv[1] == "--docs":
        problems = check_docs(argv[2])
        for p in problems:
            print(p)
        if problems:
            return 1
        print("layers: the docs' folder tables follow LAYERS")
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) break the layers (cmake/check_layers.py)")
        return 1
    print("layers: every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
