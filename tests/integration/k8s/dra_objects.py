#!/usr/bin/env python3
"""The DRA objects of k8s_dra_e2e_test.sh, and the check of what kube-scheduler allocated.

  dra_objects.py slices FABRIC_JSON        ResourceSlices, as the drivers would publish them
  dra_objects.py device-classes            the GPU DeviceClass, as NVIDIA's chart makes it
  dra_objects.py claim NAME PAIRS          a claim for PAIRS GPUs, each with a NIC on its root
  dra_objects.py check CLAIMS SLICES PLAN NODE=CLAIM...
                                           each node's claim against the plan (exit 1 if not)

Each object is printed as one JSON line (lists: one line per object).

The slices follow the attribute names of the recorded ones in
tests/fixtures/discovery/k8s-resource-slices (NVIDIA's GPU driver gpu.nvidia.com, DraNet's
dra.net; provenance in its README): per host of the fabric, 8 GPUs and 8 RDMA NICs under 4
PCIe roots, two of each per root, as on a DGX H100-like tray. The NICs are named in the
reverse of their PCI order (root 0 holds mlx5_6 and mlx5_7), so the fabric's convention
that GPU k talks through NIC k puts every GPU on a NIC of another root: only a fabric that
learnt the pairing from the slices keeps GPU and NIC on one root.
"""
import json
import sys

GPU_DRIVER = "gpu.nvidia.com"
NIC_DRIVER = "dra.net"
ROOT = "resource.kubernetes.io/pcieRoot"
ROOT_BUSES = [0x18, 0x40, 0x8C, 0xC0]  # one PCIe root complex per pair of GPUs
GPUS_PER_HOST = 8
GPU_CLASS = "gpu.nvidia.com"
NIC_CLASS = "rdma"  # deploy/k8s/examples/dra-indexed-job.yaml makes it


def root_of(k):
    return k // 2


def bus(k, offset):
    """PCI bus of GPU or NIC slot k under its root: GPUs at +1, +3; NICs at +2, +4."""
    return ROOT_BUSES[root_of(k)] + offset + 2 * (k % 2)


def nic_name(k):
    """The k-th NIC in PCI order; names run backwards over the roots."""
    r = root_of(k)
    return f"mlx5_{2 * (len(ROOT_BUSES) - 1 - r) + k % 2}"


def slices(fabric):
    out = []
    for host in fabric["hosts"]:
        node = host["name"]
        gpus, nics = [], []
        for k in range(GPUS_PER_HOST):
            root = {"string": f"pci0000:{ROOT_BUSES[root_of(k)]:02x}"}
            gpus.append({"name": f"gpu-{k}", "attributes": {
                "type": {"string": "gpu"},
                "productName": {"string": "NVIDIA H100 80GB HBM3"},
                "uuid": {"string": f"GPU-{node}-{k}"},
                "resource.kubernetes.io/pciBusID": {"string": f"0000:{bus(k, 1):02x}:00.0"},
                ROOT: root}})
            nics.append({"name": f"pci-0000-{bus(k, 2):02x}-00-0", "attributes": {
                "dra.net/rdma": {"bool": True},
                "dra.net/rdmaDevice": {"string": nic_name(k)},
                "dra.net/pciAddress": {"string": f"0000:{bus(k, 2):02x}:00.0"},
                ROOT: root}})
        for driver, devices in ((GPU_DRIVER, gpus), (NIC_DRIVER, nics)):
            out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                        "metadata": {"name": f"{node}-{driver}"},
                        "spec": {"driver": driver, "nodeName": node,
                                 "pool": {"name": node, "generation": 1,
                                          "resourceSliceCount": 1},
                                 "devices": devices}})
    return out


def device_classes():
    """NVIDIA/k8s-dra-driver-gpu commit 22407113785e78c7763b4637689a201eb39c6199,
    deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-gpu.yaml (its
    extendedResourceName left out: these pods ask through claims only)."""
    expression = (f"device.driver == '{GPU_DRIVER}' && "
                  f"device.attributes['{GPU_DRIVER}'].type == 'gpu'")
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": GPU_CLASS},
             "spec": {"selectors": [{"cel": {"expression": expression}}]}}]


def claim(name, pairs):
    requests, constraints = [], []
    for i in range(pairs):
        requests += [{"name": f"gpu-{i}", "exactly": {"deviceClassName": GPU_CLASS}},
                     {"name": f"nic-{i}", "exactly": {"deviceClassName": NIC_CLASS}}]
        constraints.append({"requests": [f"gpu-{i}", f"nic-{i}"], "matchAttribute": ROOT})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": requests, "constraints": constraints}}}


def attribute(device, name):
    value = device["attributes"][name]
    return next(iter(value.values()))


def check(claims, slices_list, plan, node_claims):
    """Problems (empty when the claims match the plan); node_claims: [(node, claim name)]."""
    device = {}  # (driver, pool, device name) -> (node, attributes, GPU index by PCI order)
    for s in slices_list["items"]:
        spec = s["spec"]
        ordered = sorted(spec["devices"], key=lambda d: attribute(
            d, "resource.kubernetes.io/pciBusID" if spec["driver"] == GPU_DRIVER
            else "dra.net/pciAddress"))
        for index, d in enumerate(ordered):
            device[(spec["driver"], spec["pool"]["name"], d["name"])] = (spec["nodeName"], d, index)
    by_name = {c["metadata"]["name"]: c for c in claims["items"]}
    problems = []
    for node, name in node_claims:
        allocation = by_name.get(name, {}).get("status", {}).get("allocation")
        if not allocation:
            problems.append(f"{name}: not allocated")
            continue
        got = {}
        for result in allocation["devices"]["results"]:
            where, dev, index = device[(result["driver"], result["pool"], result["device"])]
            if where != node:
                problems.append(f"{name}: {result['request']} is {result['device']} on {where}, "
                                f"the pod is on {node}")
            got[result["request"]] = (dev, index)
        gpu_indices = set()
        for request, (dev, index) in got.items():
            if not request.startswith("gpu-"):
                continue
            gpu_indices.add(index)
            nic = got[request.replace("gpu-", "nic-")][0]
            if attribute(dev, ROOT) != attribute(nic, ROOT):
                problems.append(f"{name}: {request} on {attribute(dev, ROOT)}, its NIC on "
                                f"{attribute(nic, ROOT)}")
        planned = {r["gpu"] for r in plan["ranks"] if r["host"] == node}
        if gpu_indices != planned:
            problems.append(f"{name}: GPUs {sorted(gpu_indices)} allocated, {sorted(planned)} "
                            f"planned on {node}")
        roots = {attribute(d, "dra.net/rdmaDevice"): attribute(d, ROOT)
                 for (drv, pool, _), (_, d, _) in device.items()
                 if drv == NIC_DRIVER and pool == node}
        gpu_roots = {i: attribute(d, ROOT) for (drv, pool, _), (_, d, i) in device.items()
                     if drv == GPU_DRIVER and pool == node}
        for r in plan["ranks"]:
            if r["host"] == node and roots.get(r["nic"]) != gpu_roots[r["gpu"]]:
                problems.append(f"plan rank {r['rank']} on {node}: GPU {r['gpu']} "
                                f"({gpu_roots[r['gpu']]}) talks through {r['nic']} "
                                f"({roots.get(r['nic'])})")
    return problems


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "slices":
        objects = slices(json.load(open(argv[2])))
    elif command == "device-classes":
        objects = device_classes()
    elif command == "claim":
        objects = [claim(argv[2], int(argv[3]))]
    elif command == "check":
        loaded = [json.load(open(p)) for p in argv[2:5]]
        problems = check(*loaded, [tuple(a.split("=", 1)) for a in argv[5:]])
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for o in objects:
        print(json.dumps(o))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
