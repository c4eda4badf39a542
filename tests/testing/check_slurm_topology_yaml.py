#!/usr/bin/env python3
"""Checks topology.yaml files against Slurm's rules (topology.yaml(5) of SchedMD/slurm@284c3b95
and what slurmctld refuses in its test_150_9 suite), then checks that the rules hold:
every malformed file of test_150_9 (tests/fixtures/peers/slurm/test_150_9_topology_yaml.txt)
is rejected at the path slurmctld names, and every topology.yaml our export writes for the
presets is accepted.

  check_slurm_topology_yaml.py --cli build/api/cli/topoplace FIXTURE
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import yaml

PLUGINS = ("block", "tree", "flat", "ring", "torus3d")
MAX_RING_NODES = 16      # topology.yaml(5), Ring definitions
MAX_SWITCH_NAME = 64     # topology.yaml(5), Tree definitions
MAX_BLOCK_LEVEL = 15     # block sizes are base x 2^k with k at most 15 (block_record.c)


def expand_hostlist(text):
    """Slurm's host list syntax, e.g. 'node[1-4,7],x1' -> names."""
    names = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", text):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", part)
        if not m:
            names.append(part)
            continue
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            width = len(lo) if lo.startswith("0") else 0
            for i in range(int(lo), int(hi or lo) + 1):
                names.append(f"{prefix}{i:0{width}d}{suffix}")
    return names


class Checker:
    """Collects (path, message) for every rule a document breaks."""

    def __init__(self, nodes=None):
        self.nodes = nodes  # the cluster's node names, when known
        self.errors = []

    def fail(self, path, message):
        self.errors.append((path, message))

    def want(self, value, kind, path):
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            self.fail(path, f"expected a {kind.__name__}, got {type(value).__name__}")
        return ok

    def check_nodes(self, text, path):
        if not self.want(text, str, path):
            return []
        names = expand_hostlist(text)
        if self.nodes is not None:
            unknown = [n for n in names if n not in self.nodes]
            if unknown:
                self.fail(path, f"unknown nodes {unknown[:3]}")
        return names

    def document(self, doc):
        if isinstance(doc, dict):
            doc = [doc]
        if not self.want(doc, list, "#/"):
            return
        names = set()
        for item in doc:
            if not self.want(item, dict, "#/"):
                continue
            name = item.get("topology")
            if not isinstance(name, str) or next(iter(item)) != "topology":
                self.fail("#/", "'topology' (a name) must be the first attribute")
            elif name in names:
                self.fail("#/", f"topology '{name}' defined twice")
            names.add(name)
            if "cluster_default" in item and not isinstance(item["cluster_default"], bool):
                self.fail("#/cluster_default/", "expected a boolean")
            plugins = [p for p in PLUGINS if p in item]
            for extra in plugins[1:]:
                self.fail(f"#/{extra}/", f"{extra} is mutually exclusive with {plugins[0]}")
            if not plugins:
                self.fail("#/", "no topology type (block, tree, flat, ring, torus3d)")
            for p in plugins:
                getattr(self, p)(item[p], f"#/{p}/")

    def block(self, body, path):
        if not self.want(body, dict, path):
            return
        blocks = body.get("blocks")
        if not self.want(blocks, list, path + "blocks/"):
            return
        seen, first_size, counts = set(), None, []
        for b in blocks:
            if not self.want(b, dict, path + "blocks/"):
                continue
            if not isinstance(b.get("block"), str) or b["block"] in seen:
                self.fail(path + "blocks/block/", "each block needs a unique name")
            seen.add(b.get("block"))
            nodes = self.check_nodes(b.get("nodes", ""), path + "blocks/nodes/")
            # A block without nodes holds its place (block_record.c gives it an empty
            # bitmap); the base comes from the first block with nodes.
            if nodes:
                counts.append((b.get("block"), len(nodes)))
                if first_size is None:
                    first_size = len(nodes)
        sizes = body.get("block_sizes")
        if sizes is None:
            return
        if not self.want(sizes, list, path + "block_sizes/"):
            return
        base = sizes[0] if sizes else first_size
        # topology.yaml(5) / topology.conf(5): "Each block must have at least the planning
        # base block size count of nodes."
        for name, count in counts:
            if isinstance(base, int) and count < base:
                self.fail(path + "blocks/nodes/", f"block {name} has {count} nodes < base {base}")
        for s in sizes:
            if not self.want(s, int, path + "block_sizes/"):
                return
            ratio = s // base if base and s % base == 0 else 0
            if ratio < 1 or ratio & (ratio - 1) or ratio.bit_length() - 1 > MAX_BLOCK_LEVEL:
                self.fail(path + "block_sizes/", f"{s} is not {base} x a power of two")
        if sizes != sorted(set(sizes)):
            self.fail(path + "block_sizes/", "sizes must increase")

    def tree(self, body, path):
        if not self.want(body, dict, path):
            return
        switches = body.get("switches")
        if not self.want(switches, list, path + "switches/"):
            return
        names = set()
        for s in switches:
            if self.want(s, dict, path + "switches/"):
                name = s.get("switch")
                if not isinstance(name, str) or len(name) > MAX_SWITCH_NAME or name in names:
                    self.fail(path + "switches/switch/", f"bad or repeated switch name {name!r}")
                names.add(name)
        for s in switches:
            if not isinstance(s, dict):
                continue
            if "nodes" in s:
                self.check_nodes(s["nodes"], path + "switches/nodes/")
            for child in expand_hostlist(s.get("children", "")) if "children" in s else []:
                if child not in names:
                    self.fail(path + "switches/children/",
                              f"switch {s.get('switch')} has an unknown child {child}")

    def flat(self, body, path):
        if body is not True and not isinstance(body, dict):
            self.fail(path, "flat is true or a dictionary")

    def ring(self, body, path):
        if not self.want(body, dict, path):
            return
        rings = body.get("rings")
        if not self.want(rings, list, path + "rings/"):
            return
        for r in rings:
            if self.want(r, dict, path + "rings/"):
                if len(self.check_nodes(r.get("nodes", ""), path + "rings/nodes/")) > MAX_RING_NODES:
                    self.fail(path + "rings/nodes/", f"ring {r.get('ring')} is bigger than 16")

    def torus3d(self, body, path):
        if not self.want(body, dict, path):
            return
        toruses = body.get("toruses")
        if not self.want(toruses, list, path + "toruses/"):
            return
        for t in toruses:
            if not self.want(t, dict, path + "toruses/"):
                continue
            dims = t.get("dims")
            cells = 0
            if self.want(dims, dict, path + "toruses/dims/"):
                cells = 1
                for axis in "xyz":
                    v = dims.get(axis)
                    if not isinstance(v, int) or v < 1:
                        self.fail(path + "toruses/dims/", f"{axis} must be a positive integer")
                    else:
                        cells *= v
            if ("nodes" in t) == ("regions" in t):
                self.fail(path + "toruses/", "exactly one of nodes and regions")
            if "nodes" in t and cells:
                count = len(self.check_nodes(t["nodes"], path + "toruses/nodes/"))
                if count != cells:
                    self.fail(path + "toruses/nodes/", f"{count} nodes for {cells} cells")
            for key in ("regions", "placements"):
                if key in t:
                    self.want(t[key], list, f"{path}toruses/{key}/")


def read_fixture(path):
    cases, case = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            word, _, rest = line.partition(" ")
            if word == "case":
                case = {"name": rest, "line": number, "yaml": [], "errors": []}
            elif case is None or not line or line.startswith("#") or word in ("source", "file"):
                continue
            elif word == "yaml":
                case["yaml"].append(rest)
            elif word == "expect-error":
                case["errors"].append(rest)
            elif word == "end":
                cases.append(case)
                case = None
            else:
                raise SystemExit(f"{path}:{number}: unknown line '{word}'")
    return cases


def export_yaml(cli, *extra):
    out = subprocess.run([cli, "export", "slurm-yaml", "--fabric", "preset:gb200-nvl72", *extra],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None, f"export slurm-yaml {' '.join(extra)}: exit {out.returncode}: {out.stderr}"
    doc = yaml.safe_load(out.stdout)
    return next(t["block"] for t in doc if "block" in t), None


def check_block_base(cli):
    """With --block-base 16, 5 trays out of 2 racks change neither block_sizes nor the
    blocks' names and order, and the file still follows Slurm's rules."""
    failures = []
    whole, err = export_yaml(cli, "--block-base", "16")
    if err:
        return [err]
    out_of_service = {"b00-n020", "b00-n021", "b01-n018", "b01-n019", "b01-n030"}
    hosts = [f"b{b:02d}-n{n:03d}" for b in range(8) for n in range(36)]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(h for h in hosts if h not in out_of_service) + "\n")
    try:
        part, err = export_yaml(cli, "--block-base", "16", "--nodes", f.name)
    finally:
        os.unlink(f.name)
    if err:
        return [err]
    if part["block_sizes"] != whole["block_sizes"]:
        failures.append(f"--block-base 16: block_sizes moved: {whole['block_sizes']} -> "
                        f"{part['block_sizes']}")
    if [b["block"] for b in part["blocks"]] != [b["block"] for b in whole["blocks"]]:
        failures.append("--block-base 16: the blocks' positions moved with trays out")
    checker = Checker()
    checker.document([{"topology": "block", "block": part}])
    failures += [f"--block-base 16 with trays out: {p}: {m}" for p, m in checker.errors]
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("fixture")
    args = ap.parse_args()
    failures = []
    cluster = set(expand_hostlist("node[1-16]"))
    cases = read_fixture(args.fixture)
    for case in cases:
        checker = Checker(cluster)
        checker.document(yaml.safe_load("\n".join(case["yaml"])))
        paths = [m.group(1) for e in case["errors"] for m in [re.search(r"source: (#/\S*),", e)] if m]
        if not checker.errors:
            failures.append(f"{case['name']}: accepted, but slurmctld refuses it: {case['errors']}")
        elif paths and paths[0] not in {p for p, _ in checker.errors}:
            failures.append(f"{case['name']}: rejected at {checker.errors}, slurmctld at {paths[0]}")
    presets = ["rail-512", "superpod-4su", "rail-28k", "clos3-100k", "gb200-nvl72", "gh200-nvl256"]
    for preset in presets:
        out = subprocess.run([args.cli, "export", "slurm-yaml", "--fabric", f"preset:{preset}"],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            failures.append(f"export slurm-yaml {preset}: exit {out.returncode}: {out.stderr}")
            continue
        checker = Checker()
        checker.document(yaml.safe_load(out.stdout))
        for path, message in checker.errors:
            failures.append(f"our topology.yaml for {preset}: {path}: {message}")
    failures += check_block_base(args.cli)
    print(f"{len(cases)} malformed topology.yaml files of Slurm's test_150_9, "
          f"{len(presets)} of our exports, and gb200-nvl72 with --block-base 16 and trays out")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
