#!/usr/bin/python3
"""Server-side dry run of Kubernetes manifests against a real kube-apiserver, or their
creation.

    dry_run_manifests.py [--apply] API TOKEN NAMESPACE FILE.yaml...

Every object of every file (multi-document YAML) is created with dryRun=All and
fieldValidation=Strict, so the apiserver runs its validation and admission and refuses
unknown or duplicate fields, and nothing is stored; with --apply the objects are created
for real (as kubectl create -f would), with the same strict validation. Namespaced objects without a namespace
go to NAMESPACE. A refused object stops with the apiserver's message (exit 1); at the end
the count per kind is printed.
"""
import collections
import http.client
import json
import ssl
import sys
import urllib.parse

import yaml

# kind -> (plural, namespaced), for the kinds our manifests use.
KINDS = {
    "ConfigMap": ("configmaps", True), "Secret": ("secrets", True),
    "ServiceAccount": ("serviceaccounts", True), "Service": ("services", True),
    "Deployment": ("deployments", True), "StatefulSet": ("statefulsets", True),
    "DaemonSet": ("daemonsets", True), "Job": ("jobs", True),
    "RoleBinding": ("rolebindings", True), "Role": ("roles", True),
    "ClusterRoleBinding": ("clusterrolebindings", False), "ClusterRole": ("clusterroles", False),
    "Namespace": ("namespaces", False),
    "DeviceClass": ("deviceclasses", False),
    "ResourceClaimTemplate": ("resourceclaimtemplates", True),
    "ComputeDomain": ("computedomains", True),
    "CustomResourceDefinition": ("customresourcedefinitions", False),
    "Node": ("nodes", False),
    "Topology": ("topologies", False), "ResourceFlavor": ("resourceflavors", False),
    "ClusterQueue": ("clusterqueues", False), "LocalQueue": ("localqueues", True),
    "Workload": ("workloads", True),
}


def main():
    args = sys.argv[1:]
    apply = args[:1] == ["--apply"]
    if apply:
        args = args[1:]
    api, token, namespace, files = args[0], args[1], args[2], args[3:]
    dry_run = "" if apply else "dryRun=All&"
    parsed = urllib.parse.urlparse(api)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test apiserver's self-signed certificate
    conn = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context)
    counts = collections.Counter()
    for path in files:
        with open(path) as f:
            objects = [o for o in yaml.safe_load_all(f) if o]
        for obj in objects:
            kind = obj.get("kind")
            if kind not in KINDS:
                sys.exit(f"FAIL: {path}: kind {kind!r} is not one this test knows")
            plural, namespaced = KINDS[kind]
            group_version = obj["apiVersion"]
            prefix = "/api/" if "/" not in group_version else "/apis/"
            url = prefix + group_version
            if namespaced:
                url += "/namespaces/" + obj["metadata"].get("namespace", namespace)
            url += f"/{plural}?{dry_run}fieldValidation=Strict"
            conn.request("POST", url, body=json.dumps(obj),
                         headers={"Authorization": "Bearer " + token,
                                  "Content-Type": "application/json"})
            response = conn.getresponse()
            reply = json.loads(response.read() or b"{}")
            if response.status >= 300:
                sys.exit(f"FAIL: {path}: {kind} {obj['metadata'].get('name')} refused "
                         f"({response.status}): {reply.get('message', reply)}")
            counts[kind] += 1
    print(("created: " if apply else "dry run accepted: ") +
          ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
