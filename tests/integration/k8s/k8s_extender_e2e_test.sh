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
#  2. A 2-pod group is placed around the first (disjoint nodes), also committed.
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
# Exit 77 (skipped) when etcd, Go 1.19, jq, curl or openssl are missing. Every process it
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
kube_bin=$(kube_binaries)
echo "running against $(kube_versions "$kube_bin"), etcd $(etcd --version | awk '/etcd Version/ { print $3 }')"

begin_test topoplace-k8s-e2e
mkdir -p "$D/run"
scheduler_pid=""  # restarted during the test, so kept out of pids until the end
before_cleanup() { if [[ -n $scheduler_pid ]]; then pids+=("$scheduler_pid"); fi; }
wait_port_file() {  # FILE PID
  for _ in $(seq 100); do
    [[ -s $1 ]] && { cat "$1"; return 0; }
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# --- etcd and kube-apiserver (kube_apiserver_lib.sh) --------------------------------------
start_etcd
start_kube_apiserver "$kube_bin"

# --- topoplaced on a fabric whose hosts are the node names --------------------------------
"$topoplace" fabric generate --name k8s-e2e --blocks-per-pod 2 --nodes-per-block 4 \
  --gpus-per-node 8 --rails 8 --spines-per-pod 8 --out "$D/fabric.json" >/dev/null
"$topoplaced" --listen 127.0.0.1:0 --db "$D/topoplaced.db" --fabric "$D/fabric.json" \
  --durability normal --port-file "$D/run/topoplaced.port" >"$D/log/topoplaced.log" 2>&1 &
pids+=($!)
tp_port=$(wait_port_file "$D/run/topoplaced.port" "${pids[-1]}") || fail "topoplaced did not start"
tp() { "$topoplace" --server "127.0.0.1:$tp_port" "$@"; }

# --- the extender, with mTLS as the manifests run it ---------------------------------------
# A throwaway CA; the extender's server certificate; kube-scheduler's client certificate.
pki=$D/pki
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -out "$pki/ca.crt" -days 1 \
  -subj /CN=e2e-ca 2>/dev/null
issue() {  # NAME SAN
  openssl req -newkey rsa:2048 -nodes -keyout "$pki/$1.key" -out "$pki/$1.csr" -subj "/CN=$1" \
    2>/dev/null
  echo "subjectAltName=$2" >"$pki/$1.ext"
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 1 -out "$pki/$1.crt" -extfile "$pki/$1.ext" 2>/dev/null
}
issue extender "IP:127.0.0.1"
issue kube-scheduler "DNS:kube-scheduler"
# Without client authentication it refuses to start at all.
if "$extender" --server "127.0.0.1:$tp_port" --listen 127.0.0.1:0 >"$D/log/refused.log" 2>&1; then
  fail "the extender started without client authentication"
fi
grep -q "refusing to serve without client authentication" "$D/log/refused.log" ||
  fail "unclear refusal: $(cat "$D/log/refused.log")"
"$extender" --server "127.0.0.1:$tp_port" --listen 127.0.0.1:0 --reservation-ttl 60 \
  --tls-cert "$pki/extender.crt" --tls-key "$pki/extender.key" --tls-client-ca "$pki/ca.crt" \
  --port-file "$D/run/extender.port" >"$D/log/extender.log" 2>&1 &
pids+=($!)
ext_port=$(wait_port_file "$D/run/extender.port" "${pids[-1]}") || fail "extender did not start"
# A caller without the CA's client certificate cannot even complete the handshake: no
# HTTP status at all (000), where an answered request gets one (400 for this body).
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$pki/ca.crt" -X POST \
         "https://127.0.0.1:$ext_port/topoplace/filter" -d '{}' 2>/dev/null) || true
[[ $code == 000 ]] || fail "the extender answered a client without a certificate (HTTP $code)"
curl -sf --cacert "$pki/ca.crt" --cert "$pki/kube-scheduler.crt" --key "$pki/kube-scheduler.key" \
  "https://127.0.0.1:$ext_port/healthz" >/dev/null || fail "the scheduler's certificate is refused"

# --- Node objects -----------------------------------------------------------------------
mapfile -t hosts < <(jq -r '.hosts[].name' "$D/fabric.json")
((${#hosts[@]} == 8)) || fail "expected 8 fabric hosts, got ${#hosts[@]}"
for h in "${hosts[@]}"; do
  kc -X POST "$api/api/v1/nodes" -d @- >/dev/null <<EOF
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "$h", "labels": {"kubernetes.io/hostname": "$h"}},
 "status": {"capacity": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"},
            "allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "no kubelet in this test"}]}}
EOF
done
[[ $(kc "$api/api/v1/nodes" | jq '.items | length') == 8 ]] || fail "nodes were not created"

# --- kube-scheduler with the extender ---------------------------------------------------
cat >"$D/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "$api", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: "$token"}}]
contexts: [{name: e2e, context: {cluster: e2e, user: admin}}]
current-context: e2e
EOF
start_scheduler() {  # NODE_CACHE_CAPABLE (true|false)
  local health_port
  health_port=$(free_port)
  cat >"$D/scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $D/kubeconfig
leaderElection:
  leaderElect: false
# The extender must see every feasible node to steer a gang (see deploy/k8s/).
percentageOfNodesToScore: 100
extenders:
- urlPrefix: https://127.0.0.1:$ext_port/topoplace
  enableHTTPS: true
  tlsConfig:
    certFile: $pki/kube-scheduler.crt
    keyFile: $pki/kube-scheduler.key
    caFile: $pki/ca.crt
  filterVerb: filter
  prioritizeVerb: prioritize
  preemptVerb: preempt
  weight: 1
  nodeCacheCapable: $1
  ignorable: false
  managedResources:
  - name: nvidia.com/gpu
    ignoredByScheduler: false
EOF
  # Health is served on the secure port only; /healthz needs no credentials there.
  "$kube_bin/kube-scheduler" --config "$D/scheduler.yaml" --bind-address 127.0.0.1 \
    --secure-port "$health_port" --cert-dir "$D/scheduler-certs" \
    >>"$D/log/kube-scheduler.log" 2>&1 &
  scheduler_pid=$!
  wait_for "kube-scheduler did not become healthy" 600 \
    curl -sfk "https://127.0.0.1:$health_port/healthz"
}
stop_scheduler() {
  kill "$scheduler_pid"
  wait "$scheduler_pid" 2>/dev/null || true
  scheduler_pid=""
}

create_group() {  # GROUP JOB_SPEC PODS [PRIORITY_CLASS]: creates the pods last rank first
  local group=$1 spec=$2 n=$3 class=${4:-}
  for ((r = n - 1; r >= 0; r--)); do
    kc -X POST "$api/api/v1/namespaces/default/pods" -d @- >/dev/null <<EOF
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$group-$r", "labels": {"job-name": "$group"},
              "annotations": {"topoplace.io/job-spec": "$spec", "topoplace.io/group": "$group",
                              "batch.kubernetes.io/job-completion-index": "$r"}},
 "spec": {"priorityClassName": "$class", "terminationGracePeriodSeconds": 0,
          "containers": [{"name": "c", "image": "busybox",
          "resources": {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}}}]}}
EOF
  done
}
node_of() { kc "$api/api/v1/namespaces/default/pods/$1" | jq -r '.spec.nodeName // ""'; }
wait_bound() {  # GROUP PODS [TRIES]: prints the nodes in rank order once every pod is bound
  local group=$1 n=$2 tries=${3:-200} nodes=() start=$SECONDS bound
  for _ in $(seq "$tries"); do
    nodes=()
    bound=0
    for ((r = 0; r < n; r++)); do
      nodes+=("$(node_of "$group-$r")")
      [[ -n ${nodes[-1]} ]] && bound=$((bound + 1))
    done
    if ((bound == n)); then
      echo "bound $group in $((SECONDS - start)) s: ${nodes[*]}" >&2
      echo "${nodes[*]}"
      return 0
    fi
    sleep 0.1
  done
  kc "$api/api/v1/namespaces/default/pods/$group-0" | jq '.status' >&2
  fail "group $group did not bind within $((tries / 10)) s (nodes: ${nodes[*]})"
}
planned_hosts() {  # GROUP: the committed plan's hosts in rank order
  local id
  id=$(tp allocations --json | jq -r --arg x "k8s:default/$1" \
    '.allocations[] | select(.external_id == $x and .state == "committed") | .id')
  [[ -n $id ]] || fail "no committed allocation for k8s:default/$1"
  tp explain "$id" --json | jq -r '.plan.hosts | join(" ")'
}
check_group() {  # GROUP JOB_SPEC PODS [PRIORITY_CLASS [TRIES]]: creates, waits, compares
  local bound planned                #   with the plan; prints the nodes
  create_group "$1" "$2" "$3" "${4:-}"
  bound=$(wait_bound "$1" "$3" "${5:-200}")
  for _ in $(seq 50); do  # the commit follows the last rank's filter
    planned=$(planned_hosts "$1" 2>/dev/null) && break
    sleep 0.1
  done
  planned=$(planned_hosts "$1")
  [[ $bound == "$planned" ]] || fail "$1: pods bound to [$bound], plan is [$planned]"
  echo "ok: $1 pods are on their planned nodes in rank order: $bound" >&2
  echo "$bound"
}

kc -X POST "$api/apis/scheduling.k8s.io/v1/priorityclasses" -d @- >/dev/null <<EOF
{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
 "metadata": {"name": "high"}, "value": 1000}
EOF

start_scheduler true
g1=$(check_group g1 "tp=8,pp=1,dp=4" 4 high)
g2=$(check_group g2 "tp=8,pp=1,dp=2" 2)
for n in $g2; do
  [[ " $g1 " != *" $n "* ]] || fail "g2 node $n is also g1's"
done
echo "ok: g2 placed around g1"

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
