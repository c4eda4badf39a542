#!/usr/bin/env bash
# Every Kubernetes export is accepted by a real kube-apiserver (v1.36, built from the
# k8s.io/kubernetes module by build_kube.sh; its version printed) holding the current upstream CRDs of Kueue's
# Topology, Volcano's HyperNode and KAI's Topology (/work/shared/fixtures/crds, unmodified; or
# TOPOPLACE_CRD_DIR): for each reference fabric, `k8s-labels` as Node objects (labels set
# on create, and by merge patch on the first 64 nodes), `kueue-topology` as v1beta2 and as
# v1beta1, `volcano-hypernodes`, `kai-topology` (gb200-nvl72 among the fabrics: the
# NVLink-domain level); each object is read back and compared. A rejected object fails
# with the apiserver's message. NVLink clique labels set on the nodes come back through the
# apiserver's NodeList into `fabric import --k8s-nodes`, and DRA ResourceSlices of the GPU
# and RDMA NIC drivers through resource.k8s.io/v1 into `fabric import --k8s-resource-slices`.
# The apiserver checks the CRDs' structural schemas and their CEL validation rules.
#
# Usage: k8s_exports_apiserver_test.sh TOPOPLACE
# Exit 77 (skipped) when etcd, curl, openssl, unzip, jq, python3-yaml or the CRDs are missing.
set -euo pipefail
shopt -s inherit_errexit
topoplace=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
crds=${TOPOPLACE_CRD_DIR:-$here/../../../../shared/fixtures/crds}

skip() { echo "SKIP: $*"; exit 77; }
for tool in etcd curl openssl unzip jq; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
for crd in kueue.x-k8s.io_topologies.yaml topology.volcano.sh_hypernodes.yaml kai.scheduler_topologies.yaml; do
  [[ -f $crds/$crd ]] || skip "no $crds/$crd (set TOPOPLACE_CRD_DIR)"
done

source "$here/kube_apiserver_lib.sh"
kube_bin=$(kube_binaries)
echo "running against $(kube_versions "$kube_bin")"

begin_test topoplace-k8s-exports

start_etcd
start_kube_apiserver "$kube_bin"

# The CRDs, unmodified (YAML to JSON only), then wait until they are served.
for crd in kueue.x-k8s.io_topologies.yaml topology.volcano.sh_hypernodes.yaml kai.scheduler_topologies.yaml; do
  /usr/bin/python3 -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' \
    "$crds/$crd" >"$D/crd.json"
  reply=$(kc -X POST "$api/apis/apiextensions.k8s.io/v1/customresourcedefinitions" -d @"$D/crd.json")
  grep -q '"kind": "CustomResourceDefinition"' <<<"$reply" || fail "CRD $crd rejected: $reply"
done
wait_for "Kueue Topology v1beta2 is not served" 300 \
  bash -c "curl -sfk -H 'Authorization: Bearer $token' $api/apis/kueue.x-k8s.io/v1beta2/topologies"
wait_for "Volcano HyperNode is not served" 300 \
  bash -c "curl -sfk -H 'Authorization: Bearer $token' $api/apis/topology.volcano.sh/v1alpha1/hypernodes"
wait_for "KAI Topology is not served" 300 \
  bash -c "curl -sfk -H 'Authorization: Bearer $token' $api/apis/kai.scheduler/v1alpha1/topologies"

# The largest fabric last: deleting its 12,800 nodes again would take half a minute.
presets=(rail-512 superpod-4su rail-28k gb200-nvl72 clos3-100k)
for preset in "${presets[@]}"; do
  out=$D/$preset
  mkdir -p "$out"
  "$topoplace" export k8s-labels --fabric "preset:$preset" --out "$out/labels.yaml"
  "$topoplace" export kueue-topology --fabric "preset:$preset" --out "$out/kueue-v1beta2.yaml"
  "$topoplace" export kueue-topology --fabric "preset:$preset" --kueue-api-version v1beta1 \
    | sed "s/^  name: $preset\$/  name: $preset-v1beta1/" >"$out/kueue-v1beta1.yaml"
  "$topoplace" export volcano-hypernodes --fabric "preset:$preset" --out "$out/volcano.yaml"
  "$topoplace" export kai-topology --fabric "preset:$preset" --out "$out/kai.yaml"
  # Assigned first: inside echo's argument its failure would not stop the script.
  counts=$(/usr/bin/python3 "$here/apply_exports.py" "$api" "$token" "$out"/*.yaml) ||
    fail "$preset: an export was rejected or read back wrong"
  echo "$preset: $counts"
  if [[ $preset == gb200-nvl72 ]]; then
    # NVLink cliques read back from the apiserver (topology/discovery/k8s_nodes.h): the two
    # racks' nodes get the GPU feature discovery label by merge patch, the NodeList the
    # apiserver returns is imported, and on superpod-4su's hosts (where every host is
    # alone) the labels make a domain of rack 0's 18 nodes and of the 14 of rack 1 that
    # superpod-4su has too: 128 - 32 + 2 = 98 domains.
    jq -c '.items[] | select(.metadata.labels["nvidia.com/gpu.clique"]) |
           [.metadata.name, .metadata.labels["nvidia.com/gpu.clique"]]' \
      "$here/../../fixtures/discovery/k8s-nodes/gb200-two-racks.json" |
      while IFS= read -r pair; do
        name=$(jq -r '.[0]' <<<"$pair")
        clique=$(jq -r '.[1]' <<<"$pair")
        curl -sfk -X PATCH -H "Authorization: Bearer $token" \
          -H "Content-Type: application/merge-patch+json" "$api/api/v1/nodes/$name" \
          -d "{\"metadata\": {\"labels\": {\"nvidia.com/gpu.clique\": \"$clique\"}}}" >/dev/null ||
          fail "could not label node $name"
      done
    kc "$api/api/v1/nodes" >"$out/nodes.json"
    domains=$("$topoplace" fabric import --spec preset:superpod-4su --k8s-nodes "$out/nodes.json" \
      --json | jq '.nvlink_domains')
    [[ $domains == 98 ]] || fail "clique labels read from the apiserver: $domains NVLink domains, expected 98"
    echo "gb200-nvl72: clique labels read back from the apiserver make 98 NVLink domains of superpod-4su's hosts"
    # DRA ResourceSlices (resource.k8s.io/v1, GA in 1.34) created through the API as NVIDIA's
    # GPU driver and DraNet published them on one AWS p5 node, listed back and imported
    # (topology/discovery/k8s_resource_slices.h): each GPU's NIC is the RDMA NIC of its
    # PCIe root.
    slices=$here/../../fixtures/discovery/k8s-resource-slices
    node=ip-192-168-153-160.ec2.internal
    for f in aws-p5-resourceslice-gpu aws-p5-resourceslice-dranet; do
      jq -c '.items[] | {apiVersion, kind, metadata: {name: .metadata.name}, spec}' "$slices/$f.json" |
        while IFS= read -r slice; do
          reply=$(kc -X POST "$api/apis/resource.k8s.io/v1/resourceslices" -d "$slice")
          grep -q '"kind": "ResourceSlice"' <<<"$reply" || fail "ResourceSlice of $f rejected: $reply"
        done
    done
    kc "$api/apis/resource.k8s.io/v1/resourceslices" >"$out/slices.json"
    jq -n --arg n "$node" '{format: "topoplace.fabric/v1", name: "p5", version: 1,
      hosts: [{name: $n}], nics: [{host: $n, name: "rdmap16s27", speed_gbps: 400}], gpus: [],
      switches: [{name: "leaf-0", tier: 1}],
      links: [{a: ($n + "/rdmap16s27"), b: "leaf-0", speed_gbps: 400, lanes: 4, count: 1,
               state: "up"}]}' >"$out/p5-spec.json"
    "$topoplace" fabric import --spec "$out/p5-spec.json" --k8s-resource-slices "$out/slices.json" \
      --out "$out/p5.json" >/dev/null || fail "import of the listed ResourceSlices failed"
    pairs=$(jq -c '[.gpus[] | .nic]' "$out/p5.json")
    expected='["rdmap16s27","rdmap16s27","rdmap32s27","rdmap32s27","rdmap144s27","rdmap144s27","rdmap160s27","rdmap160s27"]'
    [[ $pairs == "$expected" ]] || fail "GPU NICs from the apiserver's ResourceSlices: $pairs"
    echo "ResourceSlices through resource.k8s.io/v1: 8 GPUs each paired with the RDMA NIC of its PCIe root"
  fi
  [[ $preset == "${presets[-1]}" ]] && break
  # Each fabric names its blocks block-00...: start the next one from an empty cluster.
  kc -X DELETE "$api/apis/topology.volcano.sh/v1alpha1/hypernodes" >/dev/null
  kc -X DELETE "$api/api/v1/nodes" >/dev/null
done
# Kueue still refuses what current Kueue no longer serves, and so do we.
if "$topoplace" export kueue-topology --fabric preset:rail-512 --kueue-api-version v1alpha1 \
     >/dev/null 2>"$D/err"; then
  fail "v1alpha1 export was not refused"
fi
grep -q "no longer serves v1alpha1" "$D/err" || fail "unclear refusal: $(cat "$D/err")"
[[ $(kc -o /dev/null -w '%{http_code}' "$api/apis/kueue.x-k8s.io/v1alpha1/topologies") == 404 ]] ||
  fail "the apiserver serves Kueue v1alpha1: the CRDs are not the current ones"
echo "PASS: every export accepted and read back"
