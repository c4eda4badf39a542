#!/usr/bin/env bash
# Link health end to end in network namespaces: topoplace-agent probes over TCP between
# real hosts, topoplaced judges the links, placement obeys, `topoplace health` answers.
#
#   data plane:  4 hosts (eth0) -- 2 leaves (bridges) -- 1 spine (bridge), 10.77.0.0/24
#                host-a0, host-a1 on leaf-a; host-b0, host-b1 on leaf-b
#   management:  every host's mgmt0 on a bridge in the daemon's namespace, 10.78.0.0/24,
#                so a host whose data link is dead still reports (as real clusters do)
#
# Steps: agents probe each other every second (their shortest interval); a 1-host job is
# reserved; its host's data link is taken down (nft drop of everything on eth0) and its
# leaf neighbour's cable is rate-limited (tc tbf on both ends); the daemon must mark them
# down and degraded, `topoplace health --link` must list the job, a following placement
# must avoid both hosts, /metrics must show it and pass `promtool check metrics`; after
# the drop rule is removed the link must recover; no agent report may have been refused.
# Nothing is left behind (trap).
#
# Usage: probe_netns_test.sh TOPOPLACE TOPOPLACED TOPOPLACE_AGENT
# Exit: 0 pass, 1 fail, 77 skipped (not root, or ip/nft/tc/jq/curl missing).
set -euo pipefail

cli=$1 daemon=$2 agent=$3

skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
for tool in ip nft tc jq curl; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done

p="tpt$$"
work=$(mktemp -d)
namespaces=()
pids=()

# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "$0")/../netns_lib.sh"
cleanup() {
  set +e
  netns_cleanup
  if [[ ${keep_work:-0} == 1 ]]; then echo "logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  if declare -F tp >/dev/null; then
    echo "--- topoplace health --json"
    tp health --json 2>&1 | head -80
  fi
  for f in "$work"/*.log; do echo "--- $f"; tail -20 "$f"; done
  exit 1
}

bridge() {  # NS PORT...
  local ns=$1
  shift
  ip -n "$ns" link add br0 type bridge
  ip -n "$ns" link set br0 up
  for port in "$@"; do ip -n "$ns" link set "$port" master br0; done
}

mgmt="$p-m" leaf_a="$p-la" leaf_b="$p-lb" spine="$p-s"
hosts=(host-a0 host-a1 host-b0 host-b1)
for ns in "$mgmt" "$leaf_a" "$leaf_b" "$spine"; do add_ns "$ns"; done
for i in 0 1 2 3; do add_ns "$p-h$i"; done
mgmt_ports=()
for i in 0 1 2 3; do
  leaf=$leaf_a; [[ $i -ge 2 ]] && leaf=$leaf_b
  cable "$p-h$i" eth0 "$leaf" "swp$((i % 2 + 1))"
  ip -n "$p-h$i" addr add "10.77.0.$((i + 1))/24" dev eth0
  cable "$p-h$i" mgmt0 "$mgmt" "m$i"
  ip -n "$p-h$i" addr add "10.78.0.$((i + 1))/24" dev mgmt0
  mgmt_ports+=("m$i")
done
cable "$leaf_a" swp3 "$spine" swp1
cable "$leaf_b" swp3 "$spine" swp2
bridge "$leaf_a" swp1 swp2 swp3
bridge "$leaf_b" swp1 swp2 swp3
bridge "$spine" swp1 swp2
bridge "$mgmt" "${mgmt_ports[@]}"
ip -n "$mgmt" addr add 10.78.0.254/24 dev br0

# The fabric the daemon serves: the construction above, 8 GPUs per host.
{
  echo '{"format": "topoplace.fabric/v1", "name": "netns", "version": 1, "hosts": ['
  sep=""; for h in "${hosts[@]}"; do echo "$sep{\"name\": \"$h\"}"; sep=","; done
  echo '], "nics": ['
  sep=""; for h in "${hosts[@]}"; do echo "$sep{\"host\": \"$h\", \"name\": \"eth0\", \"speed_gbps\": 100}"; sep=","; done
  echo '], "gpus": ['
  sep=""
  for h in "${hosts[@]}"; do
    for g in 0 1 2 3 4 5 6 7; do echo "$sep{\"host\": \"$h\", \"index\": $g, \"nic\": \"eth0\", \"numa\": 0}"; sep=","; done
  done
  echo '], "switches": [{"name": "spine", "tier": 2}, {"name": "leaf-a", "tier": 1}, {"name": "leaf-b", "tier": 1}],'
  echo '"links": ['
  echo '{"a": "leaf-a", "b": "spine", "speed_gbps": 100, "lanes": 4, "count": 1, "state": "up"},'
  echo '{"a": "leaf-b", "b": "spine", "speed_gbps": 100, "lanes": 4, "count": 1, "state": "up"},'
  sep=""
  for i in 0 1 2 3; do
    leaf=leaf-a; [[ $i -ge 2 ]] && leaf=leaf-b
    echo "$sep{\"a\": \"${hosts[$i]}/eth0\", \"b\": \"$leaf\", \"speed_gbps\": 100, \"lanes\": 4, \"count\": 1, \"state\": \"up\"}"
    sep=","
  done
  echo ']}'
} >"$work/fabric.json"
for i in 0 1 2 3; do echo "${hosts[$i]}/eth0 10.77.0.$((i + 1))"; done >"$work/peers.txt"

server=10.78.0.254:7469
metrics=10.78.0.254:9469
ip netns exec "$mgmt" "$daemon" --listen "$server" --port-file "$work/port" \
  --db "$work/topoplaced.db" --fabric "$work/fabric.json" --durability normal \
  --metrics-listen "$metrics" >"$work/daemon.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
[[ -s $work/port ]] || fail "topoplaced did not start"

for i in 0 1 2 3; do
  ip netns exec "$p-h$i" "$agent" probe --server "$server" --fabric "$work/fabric.json" \
    --host-name "${hosts[$i]}" --listen "10.77.0.$((i + 1))" --port 7471 --peers "$work/peers.txt" \
    --interval-ms 1000 --latency-iterations 10 --bandwidth-ms 100 --timeout-ms 500 \
    >"$work/agent-$i.log" 2>&1 &
  pids+=($!)
done

tp() { ip netns exec "$mgmt" "$cli" --server "$server" "$@"; }
link_health() {  # NIC -> healthy|degraded|down
  tp health --link "$1/eth0" --json | jq -r .link.health
}
wait_for() {  # SECONDS DESCRIPTION COMMAND...: polls until COMMAND succeeds
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 2))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  fail "timed out after ${seconds}s waiting for: $what"
}
probes_stored() {
  [[ $(tp health --link host-b1/eth0 --json | jq -r .link.health) == healthy ]] &&
    sqlite3 "$work/topoplaced.db" 'SELECT COUNT(*) FROM probe_results' 2>/dev/null |
      awk '{exit !($1 >= 12)}'
}
if command -v sqlite3 >/dev/null; then
  wait_for 30 "probe results from every agent" probes_stored
else
  sleep 6
fi
healthy=$(tp health --json | jq .healthy)
[[ $healthy == 6 ]] || fail "expected 6 healthy links before the faults, got $healthy"
echo "ok: agents probe, 6 links healthy"

# A one-host job, then faults on its host and on its leaf neighbour.
job=$(tp reserve --job tp=8,pp=1,dp=1 --ttl 600 --json)
alloc=$(jq -r .allocation.id <<<"$job")
victim=$(jq -r '.allocation.gpus[0]' <<<"$job" | cut -d/ -f1)
case $victim in
  host-a0) neighbour=host-a1 ;; host-a1) neighbour=host-a0 ;;
  host-b0) neighbour=host-b1 ;; host-b1) neighbour=host-b0 ;;
  *) fail "unexpected host '$victim' in $job" ;;
esac
vi=0; for i in 0 1 2 3; do [[ ${hosts[$i]} == "$victim" ]] && vi=$i; done
ni=0; for i in 0 1 2 3; do [[ ${hosts[$i]} == "$neighbour" ]] && ni=$i; done
echo "ok: $alloc on $victim; taking $victim/eth0 down, rate-limiting $neighbour/eth0"

ip netns exec "$p-h$vi" nft -f - <<NFT
table inet tpdrop {
  chain in { type filter hook input priority 0; iifname "eth0" drop; }
  chain out { type filter hook output priority 0; oifname "eth0" drop; }
}
NFT
leaf=$leaf_a; [[ $ni -ge 2 ]] && leaf=$leaf_b
ip netns exec "$p-h$ni" tc qdisc add dev eth0 root tbf rate 8mbit burst 32kb latency 50ms
ip netns exec "$leaf" tc qdisc add dev "swp$((ni % 2 + 1))" root tbf rate 8mbit burst 32kb latency 50ms

is_state() { [[ $(link_health "$1") == "$2" ]]; }
wait_for 40 "$victim/eth0 down" is_state "$victim" down
wait_for 40 "$neighbour/eth0 degraded" is_state "$neighbour" degraded
for h in "${hosts[@]}"; do
  [[ $h == "$victim" || $h == "$neighbour" ]] && continue
  [[ $(link_health "$h") == healthy ]] || fail "$h/eth0 should stay healthy: $(tp health --json)"
done
echo "ok: daemon marks $victim/eth0 down and $neighbour/eth0 degraded; others healthy"
reason=$(tp health --link "$neighbour/eth0" --json | jq -r .link.reason)
[[ $reason == *bandwidth* || $reason == *latency* ]] ||
  fail "$neighbour/eth0 is degraded for the wrong reason: '$reason'"
echo "ok: $neighbour/eth0 reason: $reason"

affected=$(tp health --link "$victim/eth0" --json)
jq -e --arg a "$alloc" '[.allocations[].allocation_id] | index($a) != null' <<<"$affected" \
  >/dev/null || fail "health --link $victim/eth0 does not list $alloc: $affected"
tp health --link "$victim/eth0" | grep -q "$alloc" || fail "table output lacks $alloc"
echo "ok: topoplace health --link $victim/eth0 lists $alloc"
path=$(tp health --job "$alloc" --json)
jq -e '.links[] | select(.health == "down")' <<<"$path" >/dev/null ||
  fail "health --job $alloc shows no down link: $path"

# Release the job on the dead host; the next 2-host placement must avoid both bad hosts.
tp release "$alloc" >/dev/null
next=$(tp reserve --job tp=8,pp=1,dp=2 --ttl 600 --json)
placed=$(jq -r '.allocation.gpus[]' <<<"$next" | cut -d/ -f1 | sort -u | tr '\n' ' ')
for bad in "$victim" "$neighbour"; do
  [[ " $placed " == *" $bad "* ]] && fail "placement used $bad ($placed) despite its link health"
done
echo "ok: following placement avoids $victim and $neighbour: $placed"

# Health changes are persisted events.
if command -v sqlite3 >/dev/null; then
  events=$(sqlite3 "$work/topoplaced.db" \
    "SELECT COUNT(*) FROM health_events WHERE link LIKE '$victim/eth0%' AND to_state = 'down'")
  [[ $events -ge 1 ]] || fail "no persisted down event for $victim/eth0"
  echo "ok: $events persisted down event(s) for $victim/eth0"
  rates=$(sqlite3 "$work/topoplaced.db" "SELECT COUNT(*) FROM counter_rates")
  [[ $rates -ge 1 ]] || fail "no counter rates in the time series"
  echo "ok: $rates counter-rate rows in the time series"
fi

# /metrics: the link's state, and the exposition passes promtool.
ip netns exec "$mgmt" curl -sf "http://$metrics/metrics" >"$work/metrics.txt" ||
  fail "GET /metrics failed"
grep -q "topoplace_link_health_state{link=\"$victim/eth0--leaf-.\"} 2" "$work/metrics.txt" ||
  fail "/metrics lacks the down link: $(grep link_health "$work/metrics.txt")"
grep -q '^topoplace_rpc_requests_total{' "$work/metrics.txt" || fail "/metrics lacks RPC counts"
if command -v promtool >/dev/null; then
  promtool check metrics <"$work/metrics.txt" || fail "promtool check metrics"
  echo "ok: /metrics passes promtool check metrics"
fi

# Recovery: remove the drop rules; hysteresis brings the link back after good rounds.
ip netns exec "$p-h$vi" nft delete table inet tpdrop
wait_for 40 "$victim/eth0 healthy again" is_state "$victim" healthy
echo "ok: $victim/eth0 recovers"

# Agents at their shortest interval stay within the daemon's report budget: none of their
# reports was refused (a refused round is lost, and on a slow run that once left a degraded
# link unseen).
if grep -H "rejected" "$work"/agent-*.log; then fail "the daemon refused an agent's report"; fi
echo "ok: no report refused"
echo PASS
