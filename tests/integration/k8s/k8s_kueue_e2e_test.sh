#!/usr/bin/env bash
# Kueue's own controller against topoplace's exports and its kueue-bestfit baseline: the
# kueue manager built from the sigs.k8s.io/kueue module (tests/integration/k8s/kueue/go.mod,
# build_go_tools.sh; its version printed) runs against a real kube-apiserver v1.36 with
# Kueue's CRDs from the same module, the Topology `topoplace export kueue-topology` makes
# and Node objects labelled as `topoplace export k8s-labels` says (24 hosts of 8 GPUs: 2
# pods x 2 blocks x 6). A TAS ResourceFlavor over that Topology, a ClusterQueue and a
# LocalQueue; then, one after another, Workloads of whole-host pods with required and
# preferred levels and pod-set slices: each is admitted by the real Kueue, and the hosts of
# its topology assignment are those topoplaced's kueue-bestfit policy reserves for the same
# job (max_tier=block|pod, mode=hard for required, soft for preferred; podSetSliceSize S
# inside blocks as segment=S) on the same fabric, the earlier ones held.
#
# Usage: k8s_kueue_e2e_test.sh TOPOPLACE TOPOPLACED
# Exit 77 (skipped) when etcd, jq, curl, openssl, python3, python3-yaml or unzip are
# missing. Every process it starts is stopped and its temp dir removed on exit.
set -euo pipefail
shopt -s inherit_errexit
topoplace=$(realpath "$1")
topoplaced=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
kueue_objects() { /usr/bin/python3 "$here/kueue_objects.py" "$@"; }

skip() { echo "SKIP: $*"; exit 77; }
for tool in etcd jq curl openssl python3 unzip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
(($(id -u) == 0)) || skip "not root: Kueue runs in a mount namespace of its own (below)"

source "$here/kube_apiserver_lib.sh"
source "$here/extender_lib.sh"
kube_bin=$(kube_binaries)
kueue_bin=$("$here/build_go_tools.sh" kueue sigs.k8s.io/kueue)
kueue_version=$(awk '$1 == "sigs.k8s.io/kueue" { print $2; exit }' "$here/kueue/go.mod")
# Kueue's CRDs come with its module (the Go module cache build_go_tools.sh filled).
kueue_crds=${GOMODCACHE:-$(dirname "$(dirname "$kueue_bin")")/go-mod}
kueue_crds=$(realpath "$kueue_crds")/sigs.k8s.io/kueue@$kueue_version/config/components/crd/bases
[[ -d $kueue_crds ]] || fail "no Kueue CRDs in $kueue_crds"
echo "running against $(kube_versions "$kube_bin"), kueue $kueue_version"

begin_test topoplace-k8s-kueue
start_etcd
start_kube_apiserver "$kube_bin"
apply() { /usr/bin/python3 "$here/dry_run_manifests.py" --apply "$api" "$token" default "$@" >&2; }
kueue_api=$api/apis/kueue.x-k8s.io/v1beta2

apply "$kueue_crds"/*.yaml
wait_for "Kueue's Workloads are not served" 300 \
  bash -c "curl -sfk -H 'Authorization: Bearer $token' $kueue_api/workloads"
kc -X POST "$api/api/v1/namespaces" \
  -d '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}}' >/dev/null

# --- the fabric, exported as Kueue reads it -----------------------------------------------
"$topoplace" fabric generate --name kueue-e2e --tiers 3 --pods 2 --blocks-per-pod 2 \
  --nodes-per-block 6 --gpus-per-node 8 --rails 8 --spines-per-pod 8 --cores 4 \
  --out "$D/fabric.json" >/dev/null
"$topoplace" export kueue-topology --fabric "$D/fabric.json" --out "$D/topology.yaml"
"$topoplace" export k8s-labels --fabric "$D/fabric.json" --out "$D/labels.yaml"
kueue_objects nodes "$D/labels.yaml" >"$D/nodes.yaml"
apply "$D/topology.yaml" "$D/nodes.yaml"
kueue_objects queues kueue-e2e >"$D/queues.yaml"
apply "$D/queues.yaml"

# --- Kueue's manager ---------------------------------------------------------------------
health_port=$(free_port)
admin_kubeconfig "$D/kueue-kubeconfig"
# Certificates of our own (no certificate rotator: it would need webhook configurations the
# apiserver cannot reach here, so no webhook is registered and Kueue's controllers alone
# run). Kueue reads its metrics certificate from the fixed /etc/kueue/metrics/certs: it
# runs in a mount namespace of its own where an overlay of /etc holds them, so the
# machine's /etc is untouched.
mkdir -p "$D/kueue-certs" "$D/etc-up/kueue/metrics/certs" "$D/etc-work"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/kueue-certs/tls.key" \
  -out "$D/kueue-certs/tls.crt" -days 1 -subj /CN=kueue -addext subjectAltName=IP:127.0.0.1 2>/dev/null
cp "$D/kueue-certs/tls.crt" "$D/kueue-certs/tls.key" "$D/etc-up/kueue/metrics/certs/"
cat >"$D/kueue-config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health: {healthProbeBindAddress: "127.0.0.1:$health_port"}
metrics: {bindAddress: "127.0.0.1:$(free_port)"}
webhook: {port: $(free_port), host: 127.0.0.1, certDir: "$D/kueue-certs"}
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
integrations: {frameworks: ["batch/job"]}
EOF
KUBECONFIG=$D/kueue-kubeconfig unshare --mount --propagation private bash -c "
  mount -t overlay overlay -o lowerdir=/etc,upperdir=$D/etc-up,workdir=$D/etc-work /etc &&
  exec '$kueue_bin/kueue' --config '$D/kueue-config.yaml' --feature-gates VisibilityOnDemand=false" \
  >"$D/log/kueue.log" 2>&1 &
pids+=($!)
wait_for "kueue did not become ready" 600 curl -sf "http://127.0.0.1:$health_port/readyz"
wait_for "the ClusterQueue is not active" 300 bash -c \
  "curl -sfk -H 'Authorization: Bearer $token' $kueue_api/clusterqueues/tas |
   jq -e '.status.conditions[]? | select(.type == \"Active\" and .status == \"True\")'"

# --- the baseline's predictions: topoplaced with kueue-bestfit ------------------------------
start_topoplaced "$topoplaced" "$D/fabric.json"
predicted() {  # JOB_SPEC: the hosts kueue-bestfit reserves, "host=1" sorted
  tp reserve --policy kueue-bestfit --ttl 3600 --job "$1" --json |
    jq -r '[.plan.hosts[] | "\(.)=1"] | sort | join(" ")'
}

# --- one workload after another --------------------------------------------------------------
admitted() {  # NAME: waits for Kueue's admission; prints its hosts
  for _ in $(seq 300); do
    kc "$kueue_api/namespaces/default/workloads/$1" >"$D/wl.json"
    kueue_objects hosts "$D/wl.json" 2>/dev/null && return 0
    sleep 0.1
  done
  jq '.status' "$D/wl.json" >&2
  fail "Kueue did not admit $1 with a topology"
}
check_case() {  # NAME PODS REQUEST JOB_SPEC_TIER [SLICE_SIZE]: slices inside blocks
  local kueue baseline
  baseline=$(predicted "tp=8,pp=1,dp=$2,$4${5:+,segment=$5}")
  kueue_objects workload "$1" "$2" "$3" ${5:+topoplace.io/block "$5"} >"$D/$1.yaml"
  apply "$D/$1.yaml"
  kueue=$(admitted "$1")
  [[ $kueue == "$baseline" ]] ||
    fail "$1 ($2 pods, $3): Kueue admitted [$kueue], kueue-bestfit predicted [$baseline]"
  echo "ok: $1 ($2 pods, $3${5:+, slices of $5 per block}): Kueue and kueue-bestfit agree: $kueue"
}
check_case w1 3 required:topoplace.io/block max_tier=block
check_case w2 5 required:topoplace.io/block max_tier=block
# Slices of 2: pod 0's 4 free nodes (3 and 1) hold 1 slice, so pod 1; without slices pod 0.
check_case w3 4 required:topoplace.io/pod max_tier=pod 2
check_case w4 4 required:topoplace.io/pod max_tier=pod
check_case w5 6 preferred:topoplace.io/block max_tier=block,mode=soft 3
check_case w6 2 preferred:topoplace.io/pod max_tier=pod,mode=soft
echo "PASS"
