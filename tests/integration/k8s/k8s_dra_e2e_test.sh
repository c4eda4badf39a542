#!/usr/bin/env bash
# Dynamic Resource Allocation end to end: a real kube-apiserver, kube-scheduler and
# kube-controller-manager v1.36 (resource.k8s.io/v1; built by build_kube.sh, versions
# printed; the controller manager runs the Job, ResourceClaim and garbage collector
# controllers), etcd from Debian, topoplaced and topoplace-k8s-extender (mTLS) on loopback.
# The cluster's GPUs and RDMA NICs are DRA devices only: no node has nvidia.com/gpu. No
# kubelet and no driver: the test publishes the ResourceSlices through the API as NVIDIA's
# GPU driver and DraNet would (dra_objects.py: 8 GPUs and 8 NICs per node, two of each per
# PCIe root, NICs named so that the "GPU k uses NIC k" convention would cross roots), and
# the GPU DeviceClass as NVIDIA's chart has it.
#  1. topoplace's fabric learns which NIC shares each GPU's PCIe root from the slices the
#     apiserver lists (fabric import --k8s-resource-slices over a spec without pairings).
#  2. kube-scheduler runs the extender without managedResources (a DRA pod asks for no
#     extended resource) and allocates the claims itself.
#  3. deploy/k8s/examples/dra-indexed-job.yaml, applied as it is: the Job controller makes
#     the pods, the ResourceClaim controller each pod's claim of 8 (GPU, NIC) pairs on one
#     PCIe root each; every pod binds to its planned node in index order, its claim is
#     allocated on that node, every GPU shares a root with its NIC, the allocated GPUs are
#     the ones the plan's rank map names there, and the plan's NIC for each GPU is on the
#     GPU's root.
#  4. A second group whose pods name claims made beforehand (no template) is placed around
#     the first, with the same checks.
#
# Usage: k8s_dra_e2e_test.sh TOPOPLACE TOPOPLACED TOPOPLACE_K8S_EXTENDER
# Exit 77 (skipped) when etcd, jq, curl, openssl, python3, python3-yaml or unzip are
# missing. Every process it starts is stopped and its temp dir removed on exit.
set -euo pipefail
shopt -s inherit_errexit
topoplace=$(realpath "$1")
topoplaced=$(realpath "$2")
extender=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
dra() { python3 "$here/dra_objects.py" "$@"; }

skip() { echo "SKIP: $*"; exit 77; }
for tool in etcd jq curl openssl python3 unzip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"

source "$here/kube_apiserver_lib.sh"
source "$here/extender_lib.sh"
kube_bin=$(kube_binaries)
echo "running against $(kube_versions "$kube_bin" with-controller-manager)"

begin_test topoplace-k8s-dra
start_etcd
start_kube_apiserver "$kube_bin"
start_kube_controller_manager "$kube_bin" job-controller,resourceclaim-controller,garbage-collector-controller
resource=$api/apis/resource.k8s.io/v1
post() {  # URL: POSTs each JSON line of stdin, failing on a refusal
  local reply
  while IFS= read -r object; do
    reply=$(kc -X POST "$1" -d "$object")
    [[ $(jq -r '.kind' <<<"$reply") != Status ]] || fail "refused by $1: $reply"
  done
}

# --- 1. the fabric, its pairings from the drivers' slices ----------------------------------
"$topoplace" fabric generate --name k8s-dra --blocks-per-pod 2 --nodes-per-block 2 \
  --gpus-per-node 8 --rails 8 --spines-per-pod 8 --out "$D/generated.json" >/dev/null
jq 'del(.gpus[].nic)' "$D/generated.json" >"$D/spec.json"
create_nodes "$D/spec.json" 0
dra device-classes | post "$resource/deviceclasses"
dra slices "$D/spec.json" | post "$resource/resourceslices"
kc "$resource/resourceslices" >"$D/slices.json"
[[ $(jq '.items | length' "$D/slices.json") == $((2 * ${#hosts[@]})) ]] ||
  fail "the apiserver lists $(jq '.items | length' "$D/slices.json") slices"
"$topoplace" fabric import --spec "$D/spec.json" --k8s-resource-slices "$D/slices.json" \
  --name k8s-dra --out "$D/fabric.json" >"$D/log/import.log" 2>&1 ||
  fail "fabric import: $(cat "$D/log/import.log")"
pairs=$(jq -r '[.gpus[] | select(.host == "b00-n000") | "\(.index):\(.nic)"] | join(" ")' \
  "$D/fabric.json")
[[ $pairs == "0:mlx5_6 1:mlx5_7 2:mlx5_4 3:mlx5_5 4:mlx5_2 5:mlx5_3 6:mlx5_0 7:mlx5_1" ]] ||
  fail "the imported fabric pairs b00-n000's GPUs with [$pairs]"
echo "ok: the fabric pairs each GPU with the NIC on its PCIe root, from the slices: $pairs"

# --- 2. topoplaced, the extender, kube-scheduler without managedResources ------------------
start_topoplaced "$topoplaced" "$D/fabric.json"
make_pki
start_extender "$extender"
start_scheduler true none

# --- 3. the example Job, as an operator applies it -----------------------------------------
/usr/bin/python3 "$here/dry_run_manifests.py" --apply "$api" "$token" default \
  "$here/../../../deploy/k8s/examples/dra-indexed-job.yaml" >&2
check_claims() {  # GROUP PLAN_JSON NODE=CLAIM...: the allocations against the plan
  local group=$1 plan=$2
  shift 2
  kc "$resource/namespaces/default/resourceclaims" >"$D/claims.json"
  dra check "$D/claims.json" "$D/slices.json" "$plan" "$@" ||
    fail "$group: the claims do not match the plan (above)"
  echo "ok: $group's claims are allocated on its planned nodes, each GPU with a NIC of its" \
    "root, the GPUs the plan names"
}
job_nodes=$(check_job llama-dra 2)
tp explain "$(committed_allocation llama-dra)" --json | jq '.plan' >"$D/llama-dra-plan.json"
mapfile -t job_claims < <(job_pods llama-dra | while read -r _ node pod; do
  echo "$node=$(kc "$api/api/v1/namespaces/default/pods/$pod" |
    jq -r '.status.resourceClaimStatuses[] | select(.name == "gpus") | .resourceClaimName')"
done)
check_claims llama-dra "$D/llama-dra-plan.json" "${job_claims[@]}"

# --- 4. a group whose pods name their claims ------------------------------------------------
pod_spec_extra() { echo "\"resourceClaims\": [{\"name\": \"gpus\", \"resourceClaimName\": \"$1-$2\"}]"; }
pod_resources='{"claims": [{"name": "gpus"}]}'
for r in 0 1; do dra claim "g2-$r" 8; done | post "$resource/namespaces/default/resourceclaims"
read -r -a g2 <<<"$(check_group g2 "tp=8,pp=1,dp=2" 2)"
tp explain "$(committed_allocation g2)" --json | jq '.plan' >"$D/g2-plan.json"
check_claims g2 "$D/g2-plan.json" "${g2[0]}=g2-0" "${g2[1]}=g2-1"
for n in "${g2[@]}"; do
  [[ " $job_nodes " != *" $n "* ]] || fail "g2 node $n is also llama-dra's"
done
echo "ok: g2 placed around llama-dra"
echo "PASS"
