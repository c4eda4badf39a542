#!/usr/bin/python3
"""The Kueue objects of k8s_kueue_e2e_test.sh, and the reading of what Kueue admitted.

  kueue_objects.py nodes LABELS.yaml          Node objects of topoplace's
                                              k8s-labels export: its topology labels, 8
                                              nvidia.com/gpu allocatable, Ready, and
                                              nvidia.com/gpu.present=true
  kueue_objects.py queues TOPOLOGY            ResourceFlavor, ClusterQueue, LocalQueue: one
                                              TAS flavor over TOPOLOGY
  kueue_objects.py workload NAME PODS REQUEST [SLICE_LEVEL SLICE_SIZE]
                                              a kueue.x-k8s.io/v1beta2 Workload of PODS pods
                                              of 8 GPUs; REQUEST is required:LEVEL or
                                              preferred:LEVEL (a node label key)
  kueue_objects.py hosts WORKLOAD.json        the admitted hosts, "host=pods" sorted by host
                                              (exit 1 if not admitted with a topology)

Objects are printed as multi-document YAML, for dry_run_manifests.py --apply.

Workload and queue fields follow kueue.x-k8s.io/v1beta2 as sigs.k8s.io/kueue v0.19.2
defines them (apis/kueue/v1beta2: PodSetTopologyRequest, TopologyAssignment with slices).
"""
import json
import sys

import yaml

QUEUE = "tas"
GPUS_PER_POD = "8"
HOSTNAME = "kubernetes.io/hostname"
GPU_PRESENT = "nvidia.com/gpu.present"  # GPU feature discovery's label: the flavor's nodes


def nodes(labels_yaml):
    out = []
    for node in yaml.safe_load_all(open(labels_yaml)):
        if not node:
            continue
        name = node["metadata"]["name"]
        labels = {k: v for k, v in node["metadata"]["labels"].items()
                  if k in ("topoplace.io/pod", "topoplace.io/block")}
        labels[HOSTNAME] = name
        labels[GPU_PRESENT] = "true"
        resources = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"}
        out.append({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": name, "labels": labels},
                    "status": {"capacity": resources, "allocatable": resources,
                               "conditions": [{"type": "Ready", "status": "True",
                                               "reason": "KubeletReady",
                                               "message": "no kubelet in this test"}]}})
    return out


def queues(topology):
    api = "kueue.x-k8s.io/v1beta2"
    return [
        {"apiVersion": api, "kind": "ResourceFlavor", "metadata": {"name": QUEUE},
         "spec": {"nodeLabels": {GPU_PRESENT: "true"}, "topologyName": topology}},
        {"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": QUEUE},
         "spec": {"namespaceSelector": {},
                  "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                                      "flavors": [{"name": QUEUE, "resources": [
                                          {"name": "nvidia.com/gpu",
                                           "nominalQuota": "10000"}]}]}]}},
        {"apiVersion": api, "kind": "LocalQueue",
         "metadata": {"name": QUEUE, "namespace": "default"},
         "spec": {"clusterQueue": QUEUE}},
    ]


def workload(name, pods, request, slice_level=None, slice_size=None):
    kind, level = request.split(":", 1)
    topology = {kind: level}
    if slice_level:
        topology["podSetSliceRequiredTopology"] = slice_level
        topology["podSetSliceSize"] = int(slice_size)
    container = {"name": "c", "image": "busybox",
                 "resources": {"requests": {"nvidia.com/gpu": GPUS_PER_POD},
                               "limits": {"nvidia.com/gpu": GPUS_PER_POD}}}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"queueName": QUEUE,
                     "podSets": [{"name": "main", "count": int(pods),
                                  "topologyRequest": topology,
                                  "template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [container]}}}]}}


def slice_values(level_values, count):
    if "universal" in level_values:
        return [level_values["universal"]] * count
    ind = level_values["individual"]
    return [ind.get("prefix", "") + root + ind.get("suffix", "") for root in ind["roots"]]


def hosts(wl):
    assignments = (wl.get("status", {}).get("admission", {}) or {}).get("podSetAssignments", [])
    if not assignments or "topologyAssignment" not in assignments[0]:
        return None
    ta = assignments[0]["topologyAssignment"]
    level = ta["levels"].index(HOSTNAME)
    pods = {}
    for s in ta["slices"]:
        count = s["domainCount"]
        names = slice_values(s["valuesPerLevel"][level], count)
        counts = s["podCounts"].get("individual") or [s["podCounts"]["universal"]] * count
        for host, n in zip(names, counts):
            pods[host] = pods.get(host, 0) + n
    return " ".join(f"{h}={n}" for h, n in sorted(pods.items()))


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "nodes":
        objects = nodes(argv[2])
    elif command == "queues":
        objects = queues(argv[2])
    elif command == "workload":
        objects = [workload(*argv[2:])]
    elif command == "hosts":
        got = hosts(json.load(open(argv[2])))
        if got is None:
            return 1
        print(got)
        return 0
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(yaml.safe_dump_all(objects, sort_keys=False), end="")  # for dry_run_manifests.py
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
