#!/usr/bin/python3
"""Applies `topoplace export` YAML to a real kube-apiserver and reads every object back.

    apply_exports.py API TOKEN FILE.yaml...

Node objects (k8s-labels) are created with their labels over a few connections at once (a
100k-GPU fabric has 12,800 nodes; the apiserver validates labels alike on create and on
update), except the first PATCHED_NODES of each file: those are created bare and labelled
with a merge patch, as `kubectl apply` does to existing nodes. One list reads every node
back. Other objects are created and read back one by one. Labels or spec are compared
with what was sent. A rejected object stops with the apiserver's message (exit 1).
Cluster-scoped kinds only (all our exports are).
"""
import concurrent.futures
import http.client
import json
import ssl
import sys
import threading
import urllib.parse

import yaml

PLURALS = {"Node": "nodes", "Topology": "topologies", "HyperNode": "hypernodes"}
# libyaml's safe loader where python3-yaml has it (Debian's does): the pure-Python one
# takes 19 s for the 12,800 nodes of clos3-100k's labels, libyaml's 3.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Api:
    def __init__(self, url, token):
        parsed = urllib.parse.urlparse(url)
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # the apiserver's self-signed test certificate
        self.conn = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context)
        self.token = token

    def call(self, method, path, body=None, content_type="application/json"):
        headers = {"Authorization": "Bearer " + self.token, "Content-Type": content_type}
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else {}


def collection(obj):
    group_version = obj["apiVersion"]
    prefix = "/api/" if "/" not in group_version else "/apis/"
    return prefix + group_version + "/" + PLURALS[obj["kind"]]


def check(status, reply, what):
    if status >= 300:
        sys.exit("FAIL: %s rejected (%d): %s" % (what, status, reply.get("message", reply)))


# Connections writing nodes at once: the apiserver and etcd share the machine's cores.
NODE_WRITERS = 4
# Nodes of each file labelled by a merge patch on the existing node (the rest are created
# with their labels: one request instead of two, which halves the largest fabrics' time).
PATCHED_NODES = 64


def apply_node(api_of, obj, base, what, patch):
    """Creates the node with its labels, or (`patch`) bare and then merge-patches them."""
    api = api_of()
    name = obj["metadata"]["name"]
    labels = obj["metadata"]["labels"]
    metadata = {"name": name} if patch else {"name": name, "labels": labels}
    status, reply = api.call("POST", base, {"apiVersion": "v1", "kind": "Node",
                                            "metadata": metadata})
    if status == 409:  # already there from another export: patch it
        patch = True
    else:
        check(status, reply, what)
    if patch:
        status, reply = api.call("PATCH", base + "/" + name, {"metadata": {"labels": labels}},
                                 "application/merge-patch+json")
        check(status, reply, what)


def main():
    url, token = sys.argv[1], sys.argv[2]
    api = Api(url, token)
    local = threading.local()

    def api_of():
        if not hasattr(local, "api"):
            local.api = Api(url, token)
        return local.api

    counts = {}
    for path in sys.argv[3:]:
        with open(path) as f:
            objects = [o for o in yaml.load_all(f, Loader=SAFE_LOADER) if o]
        nodes = [o for o in objects if o["kind"] == "Node"]
        with concurrent.futures.ThreadPoolExecutor(NODE_WRITERS) as pool:
            futures = [pool.submit(apply_node, api_of, o, collection(o),
                                   "Node %s from %s" % (o["metadata"]["name"], path),
                                   i < PATCHED_NODES)
                       for i, o in enumerate(nodes)]
            try:
                for future in futures:
                    future.result()  # a rejection (SystemExit) stops here, with its message
            except BaseException:
                pool.shutdown(cancel_futures=True)  # not the thousands of nodes queued
                raise
        if nodes:
            # A fresh connection: the main one sat idle while the writers worked.
            status, listed = Api(url, token).call("GET", collection(nodes[0]))
            check(status, listed, "the node list")
            labels_of = {n["metadata"]["name"]: n["metadata"].get("labels", {})
                         for n in listed["items"]}
            for obj in nodes:
                what = "Node %s from %s" % (obj["metadata"]["name"], path)
                back = labels_of.get(obj["metadata"]["name"])
                if back is None:
                    sys.exit("FAIL: %s: not in the node list" % what)
                for key, value in obj["metadata"]["labels"].items():
                    if back.get(key) != value:
                        sys.exit("FAIL: %s: label %s reads back as %r" % (what, key, back.get(key)))
            counts["Node"] = counts.get("Node", 0) + len(nodes)
        for obj in objects:
            if obj["kind"] == "Node":
                continue
            name = obj["metadata"]["name"]
            base = collection(obj)
            what = "%s %s from %s" % (obj["kind"], name, path)
            status, reply = api.call("POST", base, obj)
            check(status, reply, what)
            status, back = api.call("GET", base + "/" + name)
            check(status, back, what)
            if back.get("spec") != obj["spec"]:
                sys.exit("FAIL: %s: spec reads back as %s, sent %s" %
                         (what, json.dumps(back.get("spec")), json.dumps(obj["spec"])))
            counts[obj["kind"]] = counts.get(obj["kind"], 0) + 1
    print(" ".join("%s=%d" % kv for kv in sorted(counts.items())))


if __name__ == "__main__":
    main()
