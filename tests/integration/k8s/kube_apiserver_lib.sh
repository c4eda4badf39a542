# A real etcd + kube-apiserver on loopback for the Kubernetes tests, sourced by them, and
# the temp dir and clean-up they share.
#
#   source kube_apiserver_lib.sh
#   kube_bin=$(kube_binaries)                      # builds them once (build_kube.sh)
#   begin_test topoplace-k8s-something             # D, pids, the exit trap
#   start_etcd; start_kube_apiserver "$kube_bin"   # then kc "$api/api/v1/nodes"

# The directory of kube-apiserver and kube-scheduler at the version
# tests/integration/k8s/kube/go.mod pins, built once into a cache outside the repository
# (build_kube.sh: TOPOPLACE_KUBE_CACHE, else /var/cache/topoplace or ~/.cache).
kube_binaries() {
  "$(dirname "${BASH_SOURCE[0]}")/build_kube.sh"
}

# Prints what ran: "kube-apiserver v1.36.3, kube-scheduler v1.36.3" (their --version), and
# kube-controller-manager's too with a third argument.
kube_versions() {  # KUBE_BIN [with-controller-manager]
  local kube_bin=$1
  echo -n "kube-apiserver $("$kube_bin/kube-apiserver" --version | awk '{ print $2 }')," \
    "kube-scheduler $("$kube_bin/kube-scheduler" --version | awk '{ print $2 }')"
  if [[ -n ${2:-} ]]; then
    echo -n ", kube-controller-manager $("$kube_bin/kube-controller-manager" --version | awk '{ print $2 }')"
  fi
  echo
}

# Makes the test's temp dir D (/tmp/PREFIX.XXXXXX, with D/log) and the empty list `pids`
# of started processes, and sees that on exit (a failure or a signal too) the logs' tails
# are printed if the test failed, every started process is stopped and D is removed. A
# test with processes outside `pids` defines before_cleanup to add them.
begin_test() {
  D=$(mktemp -d "/tmp/$1.XXXXXX")
  mkdir -p "$D/log"
  pids=()
  trap end_test EXIT
  trap 'exit 130' INT TERM
}
end_test() {
  local status=$?
  if ((status != 0)); then
    for f in "$D"/log/*.log; do [[ -f $f ]] && { echo "== $f"; tail -n 25 "$f"; }; done
  fi
  if declare -F before_cleanup >/dev/null; then before_cleanup; fi
  stop_started
  rm -rf "$D"
  exit "$status"
}
fail() { echo "FAIL: $*" >&2; exit 1; }

# Stops the started processes in reverse order (SIGTERM, then SIGKILL after 5 s).
stop_started() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}

# A loopback port for a child's command line, below the ephemeral range (free_port.py).
free_port() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/../../testing/free_port.py"
}

wait_for() {  # DESCRIPTION TRIES(0.1 s) COMMAND...
  local what=$1 tries=$2
  shift 2
  for _ in $(seq "$tries"); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "$what"
}

# Starts etcd; sets etcd_port.
start_etcd() {
  etcd_port=$(free_port)
  local peer_port
  peer_port=$(free_port)
  etcd --name tp-test --data-dir "$D/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" \
    --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "tp-test=http://127.0.0.1:$peer_port" >"$D/log/etcd.log" 2>&1 &
  pids+=($!)
  wait_for "etcd did not become healthy" 100 curl -sf "http://127.0.0.1:$etcd_port/health"
}

# Starts kube-apiserver from KUBE_BIN on etcd_port; sets api (its URL) and token (an admin
# bearer token), and defines kc (curl with the token).
start_kube_apiserver() {
  local kube_bin=$1
  token=$(openssl rand -hex 16)
  echo "$token,admin,admin,system:masters" >"$D/tokens.csv"
  openssl genrsa -out "$D/sa.key" 2048 2>/dev/null
  openssl rsa -in "$D/sa.key" -pubout -out "$D/sa.pub" 2>/dev/null
  local api_port
  api_port=$(free_port)
  "$kube_bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --cert-dir "$D/apiserver-certs" \
    --token-auth-file "$D/tokens.csv" --authorization-mode AlwaysAllow \
    --disable-admission-plugins ServiceAccount,TaintNodesByCondition \
    --service-account-key-file "$D/sa.pub" --service-account-signing-key-file "$D/sa.key" \
    --service-account-issuer https://kubernetes.default.svc \
    --service-cluster-ip-range 10.0.0.0/24 >"$D/log/kube-apiserver.log" 2>&1 &
  pids+=($!)
  api="https://127.0.0.1:$api_port"
  wait_for "kube-apiserver did not become ready" 1200 \
    bash -c "[[ \$(curl -sk -H 'Authorization: Bearer $token' $api/readyz) == ok ]]"
}

# Writes FILE: a kubeconfig for the apiserver with the admin token.
admin_kubeconfig() {  # FILE
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "$api", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: "$token"}}]
contexts: [{name: t, context: {cluster: t, user: admin}}]
current-context: t
EOF
}

# Starts kube-controller-manager from KUBE_BIN with only CONTROLLERS (comma separated, e.g.
# job-controller,resourceclaim-controller), talking to the apiserver with the admin token.
start_kube_controller_manager() {  # KUBE_BIN CONTROLLERS
  local port
  port=$(free_port)
  admin_kubeconfig "$D/kcm-kubeconfig"
  "$1/kube-controller-manager" --kubeconfig "$D/kcm-kubeconfig" --controllers "$2" \
    --leader-elect=false --bind-address 127.0.0.1 --secure-port "$port" \
    --cert-dir "$D/kcm-certs" --authentication-kubeconfig "$D/kcm-kubeconfig" \
    --authorization-kubeconfig "$D/kcm-kubeconfig" >"$D/log/kube-controller-manager.log" 2>&1 &
  pids+=($!)
  wait_for "kube-controller-manager did not become healthy" 600 \
    curl -sfk "https://127.0.0.1:$port/healthz"
}

kc() { curl -sSk -H "Authorization: Bearer $token" -H "Content-Type: application/json" "$@"; }
