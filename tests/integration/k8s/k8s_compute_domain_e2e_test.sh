#!/usr/bin/env bash
# Multi-node NVLink gangs end to end: a real kube-apiserver, kube-scheduler and
# kube-controller-manager v1.36 (versions printed; the Job and garbage collector
# controllers) with NVIDIA's ComputeDomain CRD (tests/fixtures/crds, provenance in its
# README), etcd, topoplaced and topoplace-k8s-extender (mTLS, and --kube-api for the
# ComputeDomains) on loopback. Eight trays of 4 GPUs, two NVLink cliques of four named by
# the nvidia.com/gpu.clique labels GPU feature discovery puts on nodes.
#  1. topoplace's fabric takes its NVLink domains from the clique labels the apiserver
#     lists (fabric import --k8s-nodes): two domains of 4 trays.
#  2. Group cd1 (label topoplace.io/compute-domain: auto, 3 trays): the extender creates
#     ComputeDomain cd1 (numNodes 3, channel template cd1-channel) and the pods bind to 3
#     whole trays of one clique, by plan.
#  3. Group cd2 names the workload's own ComputeDomain (my-cd): it is adopted, nothing is
#     created, and the group binds to 3 trays of the other clique.
#  4. Group cd3 (2 trays) fits no clique (one tray is free in each): it stays Pending, the
#     scheduler's message naming the NVLink domain, while a group without the label (g4, 2
#     trays) binds across the two cliques.
#  5. deploy/k8s/examples/compute-domain-job.yaml, applied as it is: before any of the Job's
#     pods can be scheduled (their channel claims wait for the template NVIDIA's controller
#     makes), the extender creates ComputeDomain moe-train, owned by the Job, naming the
#     template the pods name; deleting the Job deletes it (garbage collector).
# What this machine cannot run: NVIDIA's ComputeDomain controller and kubelet plugin (they
# make the channel template and the IMEX channel devices), so the pods of 2-4 carry no
# channel claim and those of 5 are never scheduled.
#
# Usage: k8s_compute_domain_e2e_test.sh TOPOPLACE TOPOPLACED TOPOPLACE_K8S_EXTENDER
# Exit 77 (skipped) when etcd, jq, curl, openssl, python3, python3-yaml or unzip are
# missing. Every process it starts is stopped and its temp dir removed on exit.
set -euo pipefail
shopt -s inherit_errexit
topoplace=$(realpath "$1")
topoplaced=$(realpath "$2")
extender=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
crd=$here/../../fixtures/crds/resource.nvidia.com_computedomains.yaml

skip() { echo "SKIP: $*"; exit 77; }
for tool in etcd jq curl openssl python3 unzip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"

source "$here/kube_apiserver_lib.sh"
source "$here/extender_lib.sh"
kube_bin=$(kube_binaries)
echo "running against $(kube_versions "$kube_bin" with-controller-manager)"

begin_test topoplace-k8s-cd
start_etcd
start_kube_apiserver "$kube_bin"
start_kube_controller_manager "$kube_bin" job-controller,garbage-collector-controller
cds=$api/apis/resource.nvidia.com/v1beta1/namespaces/default/computedomains

/usr/bin/python3 -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' \
  "$crd" >"$D/crd.json"
reply=$(kc -X POST "$api/apis/apiextensions.k8s.io/v1/customresourcedefinitions" -d @"$D/crd.json")
[[ $(jq -r '.kind' <<<"$reply") == CustomResourceDefinition ]] || fail "CRD rejected: $reply"
wait_for "ComputeDomains are not served" 300 \
  bash -c "curl -sfk -H 'Authorization: Bearer $token' $cds"

# --- 1. trays and cliques ---------------------------------------------------------------
"$topoplace" fabric generate --name k8s-cd --blocks-per-pod 2 --nodes-per-block 4 \
  --gpus-per-node 4 --rails 4 --spines-per-pod 4 --out "$D/spec.json" >/dev/null
clique=4f3a1c2e-7d55-4c8e-9a0b-2e6f1d3c5b7a
node_labels() {  # block b00 is clique 1, b01 clique 2, as GPU feature discovery labels them
  echo "\"nvidia.com/gpu.clique\": \"$clique.$((10#${1:1:2} + 1))\""
}
create_nodes "$D/spec.json" 4
kc "$api/api/v1/nodes" >"$D/nodes.json"
"$topoplace" fabric import --spec "$D/spec.json" --k8s-nodes "$D/nodes.json" --name k8s-cd \
  --out "$D/fabric.json" >"$D/log/import.log" 2>&1 || fail "fabric import: $(cat "$D/log/import.log")"
domains=$(jq -r '[.hosts[] | .nvlink_domain] | group_by(.) | map("\(.[0])=\(length)") | join(" ")' \
  "$D/fabric.json")
[[ $domains == "$clique.1=4 $clique.2=4" ]] || fail "NVLink domains of the imported fabric: $domains"
echo "ok: the fabric's NVLink domains are the cliques: $domains"
clique_of() { kc "$api/api/v1/nodes/$1" | jq -r '.metadata.labels["nvidia.com/gpu.clique"]'; }
one_clique() {  # NODES...: prints the clique when all share one, fails otherwise
  local seen
  seen=$(for n in "$@"; do clique_of "$n"; done | sort -u)
  [[ $(wc -l <<<"$seen") == 1 ]] || fail "nodes [$*] span cliques: $(xargs <<<"$seen")"
  echo "$seen"
}

# --- topoplaced, the extender with the API, kube-scheduler --------------------------------
start_topoplaced "$topoplaced" "$D/fabric.json"
make_pki
echo "$token" >"$D/extender-token"
start_extender "$extender" --kube-api "$api" --kube-token-file "$D/extender-token" \
  --kube-ca-file "$D/apiserver-certs/apiserver.crt"
start_scheduler true
pod_gpus=4
tray_spec() { echo "tp=4,pp=1,dp=$1,gpus_per_node=4"; }

# --- 2. auto: the extender makes the group's ComputeDomain --------------------------------
pod_labels='"topoplace.io/compute-domain": "auto"'
# shellcheck disable=SC2086  # the nodes, one argument each
cd1_clique=$(one_clique $(check_group cd1 "$(tray_spec 3)" 3))
wait_for "ComputeDomain cd1 was not created" 100 curl -sfk -H "Authorization: Bearer $token" "$cds/cd1"
cd1=$(kc "$cds/cd1")
[[ $(jq -c '[.spec.numNodes, .spec.channel.resourceClaimTemplate.name,
             .metadata.labels["app.kubernetes.io/managed-by"]]' <<<"$cd1") == \
   '[3,"cd1-channel","topoplace-k8s-extender"]' ]] || fail "ComputeDomain cd1 is not the group's: $cd1"
grep -q "created ComputeDomain default/cd1" "$D/log/extender.log" || fail "the extender did not log it"
echo "ok: cd1 runs on 3 trays of clique $cd1_clique; its ComputeDomain: numNodes 3, cd1-channel"

# --- 3. a named ComputeDomain is adopted ---------------------------------------------------
kc -X POST "$cds" -d @- >/dev/null <<'EOF'
{"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain", "metadata": {"name": "my-cd"},
 "spec": {"channel": {"resourceClaimTemplate": {"name": "my-cd-channel"}}}}
EOF
pod_labels='"topoplace.io/compute-domain": "my-cd"'
# shellcheck disable=SC2086
cd2_clique=$(one_clique $(check_group cd2 "$(tray_spec 3)" 3))
[[ $cd2_clique != "$cd1_clique" ]] || fail "cd2 shares clique $cd1_clique with cd1"
names=$(kc "$cds" | jq -r '[.items[].metadata.name] | sort | join(" ")')
[[ $names == "cd1 my-cd" ]] || fail "ComputeDomains: $names (cd2 adopts my-cd)"
echo "ok: cd2 adopted my-cd and runs in the other clique ($cd2_clique)"

# --- 4. one clique or nothing ---------------------------------------------------------------
pod_labels='"topoplace.io/compute-domain": "auto"'
create_group cd3 "$(tray_spec 2)" 2
message=""
for _ in $(seq 300); do
  message=$(kc "$api/api/v1/namespaces/default/pods/cd3-0" |
    jq -r '.status.conditions[]? | select(.type == "PodScheduled") | .message')
  [[ $message == *"max_tier=nvlink"* ]] && break
  sleep 0.1
done
[[ $message == *"max_tier=nvlink"* ]] || fail "cd3-0 is not held for an NVLink domain: '$message'"
[[ -z $(node_of cd3-0) && -z $(node_of cd3-1) ]] || fail "cd3 was bound across cliques"
wait_for "cd3's ComputeDomain was not made while its pods wait" 100 \
  curl -sfk -H "Authorization: Bearer $token" "$cds/cd3"
echo "ok: cd3 waits for one NVLink domain (its ComputeDomain made already): ${message:0:160}..."
pod_labels=""
# shellcheck disable=SC2086
g4=$(check_group g4 "$(tray_spec 2)" 2)
[[ $(for n in $g4; do clique_of "$n"; done | sort -u | wc -l) == 2 ]] ||
  fail "g4 was expected across the two cliques: $g4"
[[ -z $(node_of cd3-0) ]] || fail "cd3 was bound"
echo "ok: g4 (no ComputeDomain) spans the two cliques; cd3 still waits"

# --- 5. the example Job, as an operator applies it -----------------------------------------
/usr/bin/python3 "$here/dry_run_manifests.py" --apply "$api" "$token" default \
  "$here/../../../deploy/k8s/examples/compute-domain-job.yaml" >&2
job_uid=$(kc "$api/apis/batch/v1/namespaces/default/jobs/moe-train" | jq -r '.metadata.uid')
wait_for "ComputeDomain moe-train was not created" 300 \
  curl -sfk -H "Authorization: Bearer $token" "$cds/moe-train"
moe=$(kc "$cds/moe-train")
[[ $(jq -c '[.spec.numNodes, .spec.channel.resourceClaimTemplate.name, .metadata.ownerReferences[0].kind,
             .metadata.ownerReferences[0].uid]' <<<"$moe") == "[4,\"moe-train-channel\",\"Job\",\"$job_uid\"]" ]] ||
  fail "ComputeDomain moe-train is not the Job's: $moe"
pod=$(kc "$api/api/v1/namespaces/default/pods?labelSelector=job-name%3Dmoe-train" | jq '.items[0]')
[[ $(jq -r '.spec.resourceClaims[0].resourceClaimTemplateName' <<<"$pod") == \
   "$(jq -r '.spec.channel.resourceClaimTemplate.name' <<<"$moe")" ]] ||
  fail "the Job's pods do not name the ComputeDomain's channel template"
[[ $(jq -r '.spec.nodeName // ""' <<<"$pod") == "" ]] || fail "a moe-train pod was scheduled"
echo "ok: moe-train's ComputeDomain was made before its pods could be scheduled, owned by the Job, naming the pods' channel template"
kc -X DELETE "$api/apis/batch/v1/namespaces/default/jobs/moe-train" \
  -d '{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}' >/dev/null
wait_for "deleting the Job left its ComputeDomain" 300 \
  bash -c "[[ \$(curl -sk -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $token' $cds/moe-train) == 404 ]]"
echo "ok: deleting the Job deleted its ComputeDomain"
echo "PASS"
