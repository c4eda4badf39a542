# What the tests of topoplace-k8s-extender against a real kube-scheduler share, sourced
# after kube_apiserver_lib.sh (begin_test, start_etcd and start_kube_apiserver first):
#
#   start_topoplaced "$topoplaced" FABRIC_JSON      # sets tp_port, defines tp (the CLI)
#   make_pki; start_extender "$extender"            # mTLS; sets ext_port
#   create_nodes FABRIC_JSON [EXTENDED_GPUS]        # Node objects named like the hosts
#   start_scheduler true|false [MANAGED_RESOURCE]   # kube-scheduler calling the extender
#   check_group GROUP JOB_SPEC PODS [CLASS [TRIES]] # pods bound where topoplace planned
#
# What a group's pods ask for and carry: see pod_json.

wait_port_file() {  # FILE PID: prints the port a child wrote, once it has
  for _ in $(seq 100); do
    [[ -s $1 ]] && { cat "$1"; return 0; }
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# topoplaced on FABRIC_JSON with its SQLite file in $D; sets tp_port and defines tp.
start_topoplaced() {  # TOPOPLACED FABRIC_JSON
  mkdir -p "$D/run"
  "$1" --listen 127.0.0.1:0 --db "$D/topoplaced.db" --fabric "$2" \
    --durability normal --port-file "$D/run/topoplaced.port" >"$D/log/topoplaced.log" 2>&1 &
  pids+=($!)
  tp_port=$(wait_port_file "$D/run/topoplaced.port" "${pids[-1]}") ||
    fail "topoplaced did not start"
}
tp() { "$topoplace" --server "127.0.0.1:$tp_port" "$@"; }

# A throwaway CA in $D/pki, the extender's server certificate and kube-scheduler's client
# certificate, as deploy/k8s runs them; defines issue NAME SAN.
make_pki() {
  pki=$D/pki
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -out "$pki/ca.crt" -days 1 \
    -subj /CN=e2e-ca 2>/dev/null
  issue extender "IP:127.0.0.1"
  issue kube-scheduler "DNS:kube-scheduler"
}
issue() {  # NAME SAN
  openssl req -newkey rsa:2048 -nodes -keyout "$pki/$1.key" -out "$pki/$1.csr" -subj "/CN=$1" \
    2>/dev/null
  echo "subjectAltName=$2" >"$pki/$1.ext"
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 1 -out "$pki/$1.crt" -extfile "$pki/$1.ext" 2>/dev/null
}

# The extender on HTTPS with client certificates required, talking to topoplaced; sets
# ext_port. Extra arguments go to the extender.
start_extender() {  # EXTENDER [ARGS...]
  local extender=$1
  shift
  "$extender" --server "127.0.0.1:$tp_port" --listen 127.0.0.1:0 --reservation-ttl 60 \
    --tls-cert "$pki/extender.crt" --tls-key "$pki/extender.key" --tls-client-ca "$pki/ca.crt" \
    --port-file "$D/run/extender.port" "$@" >"$D/log/extender.log" 2>&1 &
  pids+=($!)
  ext_port=$(wait_port_file "$D/run/extender.port" "${pids[-1]}") || fail "extender did not start"
}

# One Ready Node object per host of FABRIC_JSON (no kubelet), named like the host, with
# EXTENDED_GPUS nvidia.com/gpu allocatable (default 8; 0 leaves the resource out, as on a
# cluster whose GPUs are DRA devices). A test may define node_labels HOST (more labels,
# JSON members). Sets hosts (their names).
create_nodes() {  # FABRIC_JSON [EXTENDED_GPUS]
  local gpus=${2:-8} resources='"cpu": "64", "memory": "512Gi", "pods": "110"' labels
  ((gpus > 0)) && resources+=", \"nvidia.com/gpu\": \"$gpus\""
  mapfile -t hosts < <(jq -r '.hosts[].name' "$1")
  for h in "${hosts[@]}"; do
    labels="\"kubernetes.io/hostname\": \"$h\""
    if declare -F node_labels >/dev/null; then labels+=", $(node_labels "$h")"; fi
    kc -X POST "$api/api/v1/nodes" -d @- >/dev/null <<EOF
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "$h", "labels": {$labels}},
 "status": {"capacity": {$resources}, "allocatable": {$resources},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "no kubelet in this test"}]}}
EOF
  done
  [[ $(kc "$api/api/v1/nodes" | jq '.items | length') == "${#hosts[@]}" ]] ||
    fail "nodes were not created"
}

# kube-scheduler with the extender's entry as deploy/k8s/40-scheduler.yaml has it; sets
# scheduler_pid. MANAGED_RESOURCE (default nvidia.com/gpu; "none" for DRA clusters, where
# pods ask for GPUs through claims and every pod is sent to the extender).
start_scheduler() {  # NODE_CACHE_CAPABLE (true|false) [MANAGED_RESOURCE]
  local health_port managed=${2:-nvidia.com/gpu}
  health_port=$(free_port)
  admin_kubeconfig "$D/kubeconfig"
  cat >"$D/scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $D/kubeconfig
leaderElection:
  leaderElect: false
# The extender must see every feasible node to steer a gang (see deploy/k8s/).
percentageOfNodesToScore: 100
# Pods without a schedulerName, and those of deploy/k8s/examples.
profiles:
- schedulerName: default-scheduler
- schedulerName: topoplace-scheduler
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
EOF
  if [[ $managed != none ]]; then
    printf '  managedResources:\n  - name: %s\n    ignoredByScheduler: false\n' "$managed" \
      >>"$D/scheduler.yaml"
  fi
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
# The scheduler is restarted during a test, so it joins pids only at the end.
before_cleanup() { if [[ -n ${scheduler_pid:-} ]]; then pids+=("$scheduler_pid"); fi; }

# One pod of a group: the annotations the extender reads (plugins/k8s/README.md) and, by
# default, pod_gpus (8) nvidia.com/gpu. A test may set pod_labels (more labels, JSON
# members), pod_owner (an ownerReference, a JSON object), pod_resources (the container's
# resources, JSON) and define pod_spec_extra GROUP RANK (more spec members, JSON).
pod_json() {  # GROUP RANK JOB_SPEC PRIORITY_CLASS
  local gpus=${pod_gpus:-8} extra="" owner="" resources
  if declare -F pod_spec_extra >/dev/null; then extra=", $(pod_spec_extra "$1" "$2")"; fi
  if [[ -n ${pod_owner:-} ]]; then owner=", \"ownerReferences\": [$pod_owner]"; fi
  resources=${pod_resources:-"{\"limits\": {\"nvidia.com/gpu\": \"$gpus\"}, \"requests\": {\"nvidia.com/gpu\": \"$gpus\"}}"}
  cat <<EOF
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1-$2", "labels": {"job-name": "$1"${pod_labels:+, $pod_labels}},
              "annotations": {"topoplace.io/job-spec": "$3", "topoplace.io/group": "$1",
                              "batch.kubernetes.io/job-completion-index": "$2"}$owner},
 "spec": {"priorityClassName": "$4", "terminationGracePeriodSeconds": 0$extra,
          "containers": [{"name": "c", "image": "busybox", "resources": $resources}]}}
EOF
}
create_group() {  # GROUP JOB_SPEC PODS [PRIORITY_CLASS]: creates the pods last rank first
  local group=$1 spec=$2 n=$3 class=${4:-}
  for ((r = n - 1; r >= 0; r--)); do
    pod_json "$group" "$r" "$spec" "$class" |
      kc -X POST "$api/api/v1/namespaces/default/pods" -d @- >/dev/null
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
committed_allocation() {  # GROUP: the id of the group's committed allocation
  local id
  id=$(tp allocations --json | jq -r --arg x "k8s:default/$1" \
    '.allocations[] | select(.external_id == $x and .state == "committed") | .id')
  [[ -n $id ]] || fail "no committed allocation for k8s:default/$1"
  echo "$id"
}
planned_hosts() {  # GROUP: the committed plan's hosts in rank order
  local id
  id=$(committed_allocation "$1")
  tp explain "$id" --json | jq -r '.plan.hosts | join(" ")'
}
check_group() {  # GROUP JOB_SPEC PODS [PRIORITY_CLASS [TRIES]]: creates, waits, compares
  local bound                        #   with the plan; prints the nodes
  create_group "$1" "$2" "$3" "${4:-}"
  bound=$(wait_bound "$1" "$3" "${5:-200}")
  expect_planned "$1" "$bound"
  echo "ok: $1 pods are on their planned nodes in rank order: $bound" >&2
  echo "$bound"
}
# Fails unless GROUP's committed plan has the hosts NODES (in rank order), waiting for the
# commit, which follows the last rank's filter.
expect_planned() {  # GROUP NODES
  local planned
  for _ in $(seq 50); do
    planned=$(planned_hosts "$1" 2>/dev/null) && break
    sleep 0.1
  done
  planned=$(planned_hosts "$1")
  [[ $2 == "$planned" ]] || fail "$1: pods bound to [$2], plan is [$planned]"
}

# The pods a Job controller made for JOB (label job-name), as "INDEX NODE POD" lines in
# index order (NODE "-" while unbound).
job_pods() {  # JOB
  kc "$api/api/v1/namespaces/default/pods?labelSelector=job-name%3D$1" | jq -r '.items[] |
    "\(.metadata.annotations["batch.kubernetes.io/job-completion-index"]) \(.spec.nodeName // "-") \(.metadata.name)"' |
    sort -n
}
# Waits until JOB's N pods are bound and checks them against its committed plan, like
# check_group; prints the nodes in index order.
check_job() {  # JOB N [TRIES]
  local job=$1 n=$2 tries=${3:-300} nodes=""
  for _ in $(seq "$tries"); do
    nodes=$(job_pods "$job" | awk '$2 != "-" { print $2 }' | xargs)
    [[ $(wc -w <<<"$nodes") == "$n" ]] && break
    sleep 0.1
  done
  [[ $(wc -w <<<"$nodes") == "$n" ]] ||
    fail "job $job: $(job_pods "$job" | wc -l) pods, bound: [$nodes]"
  expect_planned "$job" "$nodes"
  echo "ok: job $job's pods are on their planned nodes in index order: $nodes" >&2
  echo "$nodes"
}
