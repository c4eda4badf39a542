#!/usr/bin/env bash
# End to end with a real kube-apiserver and kube-scheduler (v1.36, built from the
# k8s.io/kubernetes module by build_kube.sh and cached; the versions are printed), etcd
# from Debian, topoplaced on
# a small rail-optimised fabric (2 blocks x 4 nodes x 8 GPUs) and topoplace-k8s-extender
# serving HTTPS with client certificates required (kube-scheduler presents its own through
# the extender's tlsConfig; the extender refuses to start without one, and a client
# without a certificate is refused), all on loopback with free ports and one temp dir.
# No kubelet: Node objects are created through the API with nvidia.com/gpu: 8
# allocatable, named like the fabric's hosts.
#  1. A 4-pod Indexed-Job-like group (completion-index annotations, created last rank
#     first) binds every pod to its planned node in rank order within seconds; the group's
#     allocation is committed as k8s:default/g1 (nodeCacheCapable: true).
#  2. A 2-pod group is placed around the first (disjoint nodes), also committed; its pods'
#     activeDeadlineSeconds (2 h) is its allocation's expected end, 2 h after its Reserve.
#  3. With the scheduler restarted on nodeCacheCapable: false (whole Node objects on the
#     wire), a third 2-pod group takes the last two nodes by plan.
#  4. A pod without annotations passes the extender untouched (the fabric is full, so it
#     asks for nvidia.com/gpu: 0, which still makes the scheduler call the extender).
#  5. No reservation is left over: every live allocation is committed.
#  6. Preemption (the extender's preempt verb): g1 runs at priority 1000, g2 and g3 at 0;
#     a 4-pod group at priority 1000 with max_tier=block does not fit. topoplace chooses
#     g2 and g3 (they hold block b01; g1 is not of lower priority), kube-scheduler evicts
#     exactly their four pods, one node per pod, and the new group binds on block b01 by
#     plan. g1 and the unrelated pod keep running; the ledger holds g1 and the new group.
#     The pods ask for no grace period, so the API server deletes an evicted pod at once
#     (there is no kubelet to end it).
#
# Usage: k8s_extender_e2e_test.sh TOPOPLACE TOPOPLACED TOPOPLACE_K8S_EXTENDER
# Exit 77 (skipped) when etcd, jq, curl, openssl, python3 or unzip are missing. Every process it
# starts is stopped and its temp dir removed on exit, also on failure.
set -euo pipefail
shopt -s inherit_errexit  # a failing check inside $(...) fails the test
topoplace=$(realpath "$1")
topoplaced=$(realpath "$2")
extender=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIP: $*"; exit 77; }
for tool in etcd jq curl openssl python3 unzip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done

source "$here/kube_apiserver_lib.sh"
source "$here/extender_lib.sh"
kube_bin=$(kube_binaries)
echo "running against $(kube_versions "$kube_bin"), etcd $(etcd --version | awk '/etcd Version/ { print $3 }')"

begin_test topoplace-k8s-e2e
start_etcd
start_kube_apiserver "$kube_bin"

# --- topoplaced on a fabric whose hosts are the node names --------------------------------
"$topoplace" fabric generate --name k8s-e2e --blocks-per-pod 2 --nodes-per-block 4 \
  --gpus-per-node 8 --rails 8 --spines-per-pod 8 --out "$D/fabric.json" >/dev/null
start_topoplaced "$topoplaced" "$D/fabric.json"

# --- the extender, with mTLS as the manifests run it ---------------------------------------
make_pki
# Without client authentication it refuses to start at all.
if "$extender" --server "127.0.0.1:$tp_port" --listen 127.0.0.1:0 >"$D/log/refused.log" 2>&1; then
  fail "the extender started without client authentication"
fi
grep -q "refusing to serve without client authentication" "$D/log/refused.log" ||
  fail "unclear refusal: $(cat "$D/log/refused.log")"
start_extender "$extender"
# A caller without the CA's client certificate cannot even complete the handshake: no
# HTTP status at all (000), where an answered request gets one (400 for this body).
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$pki/ca.crt" -X POST \
         "https://127.0.0.1:$ext_port/topoplace/filter" -d '{}' 2>/dev/null) || true
[[ $code == 000 ]] || fail "the extender answered a client without a certificate (HTTP $code)"
curl -sf --cacert "$pki/ca.crt" --cert "$pki/kube-scheduler.crt" --key "$pki/kube-scheduler.key" \
  "https://127.0.0.1:$ext_port/healthz" >/dev/null || fail "the scheduler's certificate is refused"

create_nodes "$D/fabric.json"
((${#hosts[@]} == 8)) || fail "expected 8 fabric hosts, got ${#hosts[@]}"

kc -X POST "$api/apis/scheduling.k8s.io/v1/priorityclasses" -d @- >/dev/null <<EOF
{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
 "metadata": {"name": "high"}, "value": 1000}
EOF

start_scheduler true
g1=$(check_group g1 "tp=8,pp=1,dp=4" 4 high)
pod_spec_extra() { echo '"activeDeadlineSeconds": 7200'; }  # g2's pods: a 2-hour limit
g2=$(check_group g2 "tp=8,pp=1,dp=2" 2)
unset -f pod_spec_extra
for n in $g2; do
  [[ " $g1 " != *" $n "* ]] || fail "g2 node $n is also g1's"
done
echo "ok: g2 placed around g1"
# The pods' time limit is the run the extender's Reserve sends, kept as the allocation's
# expected end (the daemon's outlook for later requests); g1's pods have none.
ends=$(tp allocations --json | jq -r '[.allocations[] | select(.external_id != "")
  | "\(.external_id)=\(if .expected_end_at == null then "none" else
      ((.expected_end_at | sub("\\.[0-9]+Z$"; "Z") | fromdate)
       - (.created_at | sub("\\.[0-9]+Z$"; "Z") | fromdate)) end)"] | sort | join(",")')
[[ $ends == "k8s:default/g1=none,k8s:default/g2=7200" ]] || fail "expected ends: $ends"
echo "ok: g2's activeDeadlineSeconds is its allocation's expected end, 2 h after its Reserve"

stop_scheduler
start_scheduler false
g3=$(check_group g3 "tp=8,pp=1,dp=2" 2)
for n in $g3; do
  [[ " $g1 $g2 " != *" $n "* ]] || fail "g3 node $n is already used"
done
echo "ok: nodeCacheCapable: false steers g3 too"

kc -X POST "$api/api/v1/namespaces/default/pods" -d @- >/dev/null <<EOF
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plain"},
 "spec": {"containers": [{"name": "c", "image": "busybox",
          "resources": {"limits": {"nvidia.com/gpu": "0"}, "requests": {"nvidia.com/gpu": "0"}}}]}}
EOF
wait_for "a pod without annotations did not bind" 200 bash -c "[[ -n \$(curl -sk -H 'Authorization: Bearer $token' $api/api/v1/namespaces/default/pods/plain | jq -r '.spec.nodeName // empty') ]]"
echo "ok: unrelated pod bound to $(node_of plain)"

states=$(tp allocations --json | jq -r '[.allocations[].state] | sort | join(",")')
[[ $states == "committed,committed,committed" ]] || fail "live allocations: $states"
echo "ok: three committed allocations, no reservation left"

# --- 6. preemption ---------------------------------------------------------------------
uid_of() { kc "$api/api/v1/namespaces/default/pods/$1" | jq -r '.metadata.uid'; }
declare -A survivor_uid
for p in g1-0 g1-1 g1-2 g1-3 plain; do survivor_uid[$p]=$(uid_of "$p"); done
for n in $g1; do
  [[ $n == b00-* ]] || fail "g1 is expected on block b00 (its plan: $g1)"
done
g4=$(check_group g4 "tp=8,pp=1,dp=4,max_tier=block" 4 high 600)
[[ $(tr ' ' '\n' <<<"$g4" | sort | xargs) == $(tr ' ' '\n' <<<"$g2 $g3" | sort | xargs) ]] ||
  fail "g4 is on [$g4], not on the nodes g2 and g3 held [$g2 $g3]"
echo "ok: g4 runs in one block, on the nodes of the two groups topoplace chose as victims"
for p in g2-0 g2-1 g3-0 g3-1; do
  code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
    "$api/api/v1/namespaces/default/pods/$p")
  [[ $code == 404 ]] || fail "victim pod $p was not evicted (HTTP $code)"
done
for p in "${!survivor_uid[@]}"; do
  pod=$(kc "$api/api/v1/namespaces/default/pods/$p")
  [[ $(jq -r '.metadata.uid' <<<"$pod") == "${survivor_uid[$p]}" ]] || fail "$p was replaced"
  [[ $(jq -r '.metadata.deletionTimestamp // ""' <<<"$pod") == "" ]] || fail "$p is being evicted"
done
echo "ok: exactly the four pods of g2 and g3 were evicted; g1 and the unrelated pod run on"
live=$(tp allocations --json | jq -r '[.allocations[] | "\(.external_id)=\(.state)"] | sort | join(",")')
[[ $live == "k8s:default/g1=committed,k8s:default/g4=committed" ]] || fail "live allocations: $live"
echo "ok: the ledger holds g1 and g4; the victims' allocations were released"
echo "PASS"
