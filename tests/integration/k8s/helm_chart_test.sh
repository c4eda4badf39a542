#!/usr/bin/env bash
# The Helm chart (deploy/helm/topoplace) and the plain manifests (deploy/k8s) against the
# real tools: helm (built from the helm.sh/helm/v4 module pinned in
# tests/integration/k8s/helm/go.mod) lints and renders the chart with its defaults, with an
# etcd ledger and three replicas, and with the agents on; the chart refuses values that
# cannot work (two daemons on one SQLite file, agents without per-host tokens), naming the
# value; what it renders keeps the admin token out of the agents and exposes the metrics;
# and a real kube-apiserver (v1.36, kube_apiserver_lib.sh) accepts every rendered object
# and every plain manifest in a server-side dry run with strict field validation.
#
# Usage: helm_chart_test.sh
# Exit 77 (skipped) when etcd, curl, openssl, unzip or python3-yaml are missing.
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
chart=$repo/deploy/helm/topoplace

skip() { echo "SKIP: $*"; exit 77; }
for tool in etcd curl openssl unzip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"

source "$here/kube_apiserver_lib.sh"
kube_bin=$(kube_binaries)
helm="$("$here/build_go_tools.sh" helm helm.sh/helm/v4 \
  '-X helm.sh/helm/v4/internal/version.version={version}')/helm"

begin_test topoplace-helm
export HELM_CACHE_HOME=$D/helm/cache HELM_CONFIG_HOME=$D/helm/config HELM_DATA_HOME=$D/helm/data
echo "running helm $("$helm" version --template '{{.Version}}'), $(kube_versions "$kube_bin")"

# --- lint and render -----------------------------------------------------------------
agents=(--set agent.enabled=true --set daemon.hostTokensSecret=topoplace-host-tokens
        --set daemon.fabricConfigMap=topoplace-fabric --set extender.computeDomains=true)
etcd=(--set daemon.store=etcd --set daemon.replicas=3)
declare -A sets=([defaults]="" [etcd]="${etcd[*]}" [agents]="${agents[*]}")
for s in "${!sets[@]}"; do
  # shellcheck disable=SC2086
  "$helm" lint "$chart" --strict ${sets[$s]} >"$D/lint-$s.txt" 2>&1 ||
    fail "helm lint ($s): $(cat "$D/lint-$s.txt")"
  # shellcheck disable=SC2086
  "$helm" template tp "$chart" --namespace topoplace ${sets[$s]} >"$D/$s.yaml" 2>"$D/template-$s.err" ||
    fail "helm template ($s): $(cat "$D/template-$s.err")"
done
echo "ok: helm lint --strict and helm template pass with the defaults, an etcd ledger and the agents"

refused() {  # WHAT EXPECTED_MESSAGE HELM_ARGS...
  local what=$1 message=$2
  shift 2
  if "$helm" template tp "$chart" "$@" >/dev/null 2>"$D/refused.err"; then
    fail "the chart rendered $what"
  fi
  grep -q "$message" "$D/refused.err" || fail "unclear refusal of $what: $(cat "$D/refused.err")"
}
refused "three daemons on one SQLite ledger" "daemon.replicas must be 1 with daemon.store=sqlite" \
  --set daemon.replicas=3
refused "agents without per-host tokens" "agent.enabled needs daemon.hostTokensSecret" \
  --set agent.enabled=true
refused "an unknown store" 'daemon.store: expected sqlite or etcd, got "mysql"' \
  --set daemon.store=mysql
echo "ok: the chart refuses values that cannot work, naming them"

# The agents mount their own host's token from the node, never the admin token Secret.
python3 - "$D/agents.yaml" <<'PY' || fail "the rendered agents"
import sys, yaml
objs = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]
agent = next(o for o in objs if o["kind"] == "DaemonSet")
volumes = agent["spec"]["template"]["spec"]["volumes"]
secrets = [v for v in volumes if "secret" in v]
assert not secrets, f"the agent mounts Secrets: {secrets}"
token = next(v for v in volumes if v["name"] == "host-token")
assert token["hostPath"]["type"] == "File", token
env = {e["name"]: e.get("value") for e in agent["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["TOPOPLACE_TOKEN_FILE"] == "/etc/topoplace/host-token", env
conf = next(o for o in objs if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "tp-daemon")
text = conf["data"]["topoplaced.conf"]
for line in ("metrics_listen = 0.0.0.0:9469", "host_tokens_file = /etc/topoplace/host-tokens/host-tokens",
             "fabric = /etc/topoplace/fabric/fabric.json"):
    assert line in text, (line, text)
service = next(o for o in objs if o["kind"] == "Service" and o["metadata"]["name"] == "tp-daemon")
assert {p["name"] for p in service["spec"]["ports"]} == {"grpc", "metrics", "console"}, service
# extender.computeDomains: the API with the extender's own service account, and its RBAC.
extender = next(o for o in objs if o["kind"] == "Deployment" and o["metadata"]["name"] == "tp-extender")
assert "--kube-api=in-cluster" in extender["spec"]["template"]["spec"]["containers"][0]["command"]
account = next(o for o in objs if o["kind"] == "ServiceAccount" and o["metadata"]["name"] == "tp-extender")
assert account["automountServiceAccountToken"] is True, account
binding = next(o for o in objs if o["kind"] == "ClusterRoleBinding" and "compute-domains" in o["metadata"]["name"])
assert binding["subjects"][0]["name"] == "tp-extender", binding
PY
echo "ok: the agents mount no Secret (their own host's token from the node); metrics and console are on the Service; with computeDomains the extender reads the API with its own account"
python3 - "$D/defaults.yaml" <<'PY' || fail "the default extender calls the API server"
import sys, yaml
objs = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]
account = next(o for o in objs if o["kind"] == "ServiceAccount" and o["metadata"]["name"] == "tp-extender")
assert account["automountServiceAccountToken"] is False, account
assert not any(o["kind"] == "ClusterRole" and "compute-domains" in o["metadata"]["name"] for o in objs)
PY

# --- the real apiserver --------------------------------------------------------------
start_etcd
start_kube_apiserver "$kube_bin"
kc -X POST "$api/api/v1/namespaces" -d '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "topoplace"}}' >/dev/null
for s in defaults etcd agents; do
  echo -n "chart ($s): "
  python3 "$here/dry_run_manifests.py" "$api" "$token" topoplace "$D/$s.yaml"
done
manifests=()
for m in "$repo"/deploy/k8s/*.yaml; do
  [[ $(basename "$m") == 00-namespace.yaml ]] || manifests+=("$m")
done
echo -n "deploy/k8s: "
python3 "$here/dry_run_manifests.py" "$api" "$token" topoplace "${manifests[@]}"
echo "PASS"
