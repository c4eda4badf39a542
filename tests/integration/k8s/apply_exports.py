#!/usr/bin/python3
"""Applies `topoplace export` YAML to a real kube-apiserver and reads every object back.

    apply_exports.py API TOKEN FILE.yaml...

Node objects (k8s-labels) are created bare, then their labels applied as a merge patch,
as `kubectl apply` does to existing nodes; other objects are created. Each object is read
back and its labels or spec compared with what was sent. A rejected object stops with the
apiserver's message (exit 1). Cluster-scoped kinds only (all our exports are).
"""
import http.client
import json
import ssl
import sys
import urllib.parse

import yaml

PLURALS = {"Node": "nodes", "Topology": "topologies", "HyperNode": "hypernodes"}


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


def main():
    api = Api(sys.argv[1], sys.argv[2])
    counts = {}
    for path in sys.argv[3:]:
        with open(path) as f:
            objects = [o for o in yaml.safe_load_all(f) if o]
        for obj in objects:
            name = obj["metadata"]["name"]
            base = collection(obj)
            what = "%s %s from %s" % (obj["kind"], name, path)
            if obj["kind"] == "Node":
                status, reply = api.call("POST", base, {"apiVersion": "v1", "kind": "Node",
                                                        "metadata": {"name": name}})
                if status != 409:  # already there from another export: patch it
                    check(status, reply, what)
                status, reply = api.call("PATCH", base + "/" + name,
                                         {"metadata": {"labels": obj["metadata"]["labels"]}},
                                         "application/merge-patch+json")
                check(status, reply, what)
                status, back = api.call("GET", base + "/" + name)
                check(status, back, what)
                for key, value in obj["metadata"]["labels"].items():
                    if back["metadata"]["labels"].get(key) != value:
                        sys.exit("FAIL: %s: label %s reads back as %r" %
                                 (what, key, back["metadata"]["labels"].get(key)))
            else:
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
