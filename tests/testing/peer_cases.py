"""Reads the peers' test cases (tests/fixtures/peers/README.md) and turns one into what
`topoplace place` takes: a fabric file, an occupied-GPU list and job specs."""

import dataclasses
import json


class CaseError(Exception):
    """A fixture line that does not follow the format; names the file and line."""


@dataclasses.dataclass
class Host:
    name: str
    path: list  # one domain value per level above the host, top-down
    slots: int


@dataclasses.dataclass
class Job:
    """One `job` line and what upstream expects of it."""
    line: int
    pods: int = 0
    required: str = ""
    preferred: str = ""
    expect: dict = None          # key -> pods
    expect_none: str = ""        # upstream's reason when the job gets no placement
    expect_placed: bool = False  # upstream checks only that every pod is placed
    expect_order: list = None    # hosts in the order upstream numbers the tasks
    segment: int = 0             # Slurm's --segment
    nodelist: list = None        # Slurm's -w: the only hosts the job may use

    @property
    def has_expectation(self):
        return self.expect is not None or self.expect_none or self.expect_placed


@dataclasses.dataclass
class Case:
    name: str
    source: str
    line: int
    levels: list = dataclasses.field(default_factory=list)
    hosts: list = dataclasses.field(default_factory=list)
    jobs: list = dataclasses.field(default_factory=list)  # in submission order
    inexpressible: str = ""  # why the transcriber could not state the case as jobs

    @property
    def host_is_level(self):
        return bool(self.levels) and self.levels[-1] == "host"

    @property
    def domain_levels(self):
        return self.levels[:-1] if self.host_is_level else list(self.levels)


def _fields(tokens, where):
    out = {}
    for t in tokens:
        if "=" not in t:
            raise CaseError(f"{where}: expected key=value, got '{t}'")
        k, v = t.split("=", 1)
        out[k] = v
    return out


def _int(value, what, where):
    try:
        n = int(value)
    except ValueError:
        raise CaseError(f"{where}: {what}: expected an integer, got '{value}'") from None
    if n < 0:
        raise CaseError(f"{where}: {what}: expected an integer >= 0, got '{value}'")
    return n


def _current_job(case, word, where):
    if not case.jobs:
        raise CaseError(f"{where}: '{word}' before any 'job' line")
    return case.jobs[-1]


def read_cases(path):
    """Returns the cases of one .cases file; CaseError names the line of a bad one."""
    cases, source, case = [], "", None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            where = f"{path}:{number}"
            line = raw.strip() if raw.lstrip().startswith("case ") \
                else raw.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            if word == "source":
                source = rest.strip()
            elif word == "case":
                if case is not None:
                    raise CaseError(f"{where}: 'case' before the 'end' of '{case.name}'")
                if not source:
                    raise CaseError(f"{where}: a case before any 'source' line")
                case = Case(name=rest.strip(), source=source, line=number)
            elif case is None:
                raise CaseError(f"{where}: '{word}' outside a case")
            elif word == "levels":
                case.levels = rest.split()
            elif word == "host":
                tokens = rest.split()
                if len(tokens) < 2 or not tokens[-1].startswith("slots="):
                    raise CaseError(f"{where}: expected 'host NAME VALUE... slots=N'")
                path_values = tokens[1:-1]
                if len(path_values) != len(case.domain_levels):
                    raise CaseError(f"{where}: host {tokens[0]}: {len(path_values)} level "
                                    f"values for levels {case.domain_levels}")
                case.hosts.append(Host(tokens[0], path_values,
                                       _int(tokens[-1][6:], "slots", where)))
            elif word == "job":
                if case.jobs and not case.jobs[-1].has_expectation:
                    raise CaseError(f"{where}: a job before the last one's expectation")
                f_ = _fields(rest.split(), where)
                job = Job(line=number, pods=_int(f_.pop("pods", ""), "pods", where),
                          required=f_.pop("required", ""), preferred=f_.pop("preferred", ""),
                          segment=_int(f_.pop("segment", "0"), "segment", where))
                if "nodelist" in f_:
                    job.nodelist = f_.pop("nodelist").split(",")
                    unknown = set(job.nodelist) - {h.name for h in case.hosts}
                    if unknown:
                        raise CaseError(f"{where}: nodelist names unknown hosts {sorted(unknown)}")
                for level in (job.required, job.preferred):
                    if level and level not in case.levels:
                        raise CaseError(f"{where}: level '{level}' is not one of {case.levels}")
                if f_:
                    raise CaseError(f"{where}: unknown job fields {sorted(f_)}")
                case.jobs.append(job)
            elif word == "expect":
                job = _current_job(case, word, where)
                job.expect = {k: _int(v, k, where)
                              for k, v in _fields(rest.split(), where).items()}
                if "total" in job.expect:  # upstream counts the binds only
                    if len(job.expect) != 1 or job.expect["total"] != job.pods:
                        raise CaseError(f"{where}: 'expect total=N' stands alone, N the pods")
                    job.expect, job.expect_placed = None, True
            elif word == "expect-allocated":
                _current_job(case, word, where).expect_placed = True
            elif word == "expect-none":
                _current_job(case, word, where).expect_none = rest.strip() or "pending"
            elif word == "expect-order":
                _current_job(case, word, where).expect_order = rest.split()
            elif word == "inexpressible":
                case.inexpressible = rest.strip()
            elif word == "end":
                if not case.inexpressible and (
                        not case.jobs or not all(j.has_expectation for j in case.jobs)):
                    raise CaseError(f"{where}: case '{case.name}' needs jobs with expect, "
                                    "expect-none or expect-allocated, or inexpressible")
                cases.append(case)
                case = None
            else:
                raise CaseError(f"{where}: unknown line '{word}'")
    if case is not None:
        raise CaseError(f"{path}: case '{case.name}' has no 'end'")
    return cases


# Our hierarchy: the lowest level above hosts is a block, the next a pod, the rest the
# cluster (README: "host" is a level of its own only in the case's answer keys).
OUR_TIERS = ["block", "pod"]


def pods_per_node(case):
    sizes = {h.slots for h in case.hosts if h.slots > 0}
    return max(sizes) if sizes else 1


def why_not_expressible(case):
    """'' if the case can run as jobs of equal nodes, else the reason."""
    if case.inexpressible:
        return case.inexpressible
    levels = case.domain_levels
    if any("-" in h.path for h in case.hosts):
        return "a node lacks a level's label"
    for top in range(len(levels) - len(OUR_TIERS)):
        if len({tuple(h.path[: top + 1]) for h in case.hosts}) > 1:
            return (f"{len(levels)} levels above hosts with several '{levels[top]}' "
                    f"domains; our model has {len(OUR_TIERS)} (block, pod)")
    sizes = {h.slots for h in case.hosts if h.slots > 0}
    if len(sizes) > 1:
        return f"nodes fit different numbers of pods ({sorted(sizes)}); our jobs are equal nodes"
    c = pods_per_node(case)
    for job in case.jobs:
        if job.required and job.preferred:
            return "a required and a preferred level together; our job spec has one max_tier"
        if job.pods % c:
            return f"{job.pods} pods do not fill nodes of {c}"
        if job.expect and any(n % c for n in job.expect.values()):
            return f"the expected answer splits a node of {c} pods"
        if case.host_is_level and job.required == "host" and job.pods > c:
            return "a required host level for a job of several nodes"
    return ""


def fabric_json(case):
    """A fabric whose hierarchy is the case's: a leaf switch per lowest domain (our block),
    a spine per next domain up (our pod) or one spine over all leaves, one core above the
    spines; one NIC per host."""
    c = pods_per_node(case)
    levels = case.domain_levels[-len(OUR_TIERS):] if case.domain_levels else []
    hosts, nics, gpus, switches, links, seen = [], [], [], [], [], set()

    def switch(name, tier):
        if name not in seen:
            seen.add(name)
            switches.append({"name": name, "tier": tier})
        return name

    def link(a, b):
        links.append({"a": a, "b": b, "speed_gbps": 400, "lanes": 4, "count": 1,
                      "state": "up"})

    path_of = lambda h: h.path[-len(levels):] if levels else []
    core = None
    if len(levels) == 2 and len({path_of(h)[0] for h in case.hosts}) > 1:
        core = switch("core", 3)
    # Hosts in the order upstream lists them (Slurm's node table); blocks and pods are
    # numbered in the order of their first host.
    for h in case.hosts:
        p = path_of(h)
        leaf = switch("leaf-" + ("-".join(p) if p else "all"), 1)
        if len(levels) == 1 and (leaf, "spine-all") not in seen:
            seen.add((leaf, "spine-all"))
            link(leaf, switch("spine-all", 2))
        if len(levels) == 2:
            spine = "spine-" + p[0]
            if spine not in seen:
                switch(spine, 2)
                if core:
                    link(spine, core)
            if (leaf, spine) not in seen:
                seen.add((leaf, spine))
                link(leaf, spine)
        hosts.append({"name": h.name})
        nics.append({"host": h.name, "name": "mlx5_0", "speed_gbps": 400})
        for g in range(c):
            gpus.append({"host": h.name, "index": g, "nic": "mlx5_0", "numa": 0})
        link(f"{h.name}/mlx5_0", leaf)
    return {"format": "topoplace.fabric/v1", "name": "peer-case", "version": 1,
            "hosts": hosts, "nics": nics, "gpus": gpus, "switches": switches,
            "links": links}


def occupied_text(case, busy=()):
    """Hosts with no room, and `busy` (hosts earlier jobs of the case hold)."""
    return "".join(f"{h.name}\n" for h in case.hosts if h.slots == 0 or h.name in busy)


def job_spec(case, job):
    c = pods_per_node(case)
    spec = f"tp=1,pp=1,dp={job.pods},gpus_per_node={c}"
    level, mode = (job.required, "hard") if job.required else (job.preferred, "soft")
    levels = case.domain_levels
    tier = "cluster"
    if level and level != "host":
        from_bottom = len(levels) - 1 - levels.index(level)
        tier = OUR_TIERS[from_bottom] if from_bottom < len(OUR_TIERS) else "cluster"
    # No level: Kueue's unconstrained request, which kueue-bestfit reads from mode=soft.
    spec += f",max_tier={tier},mode={mode}" if level else ",mode=soft"
    if job.segment:
        spec += f",segment={job.segment}"
    if job.nodelist:
        spec += ",hosts=" + ",".join(job.nodelist)
    return spec


def answer_key(case, host):
    return host.name if case.host_is_level else "/".join(host.path)


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
