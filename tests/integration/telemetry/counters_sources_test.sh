#!/usr/bin/env bash
# Link health from counters a site already collects, without the agent's probe mode:
#  1. Debian's real node_exporter (prometheus-node-exporter) serves a recorded sysfs tree
#     (tests/fixtures/counters/node_exporter/sys, node_exporter's own e2e fixture);
#     `topoplace-agent counters --node-exporter URL` reads its /metrics over HTTP and
#     reports to a real topoplaced over gRPC. The link stays healthy while the counters
#     stand still; when link_downed keeps rising in the sysfs tree (a flapping cable: one
#     more down every second; the hysteresis wants two bad readings in a row), the daemon
#     marks h0/mlx4_0's link degraded and says why.
#  2. UFM: the recorded UFM Telemetry message (tests/fixtures/counters/ufm), then copies
#     with one host port's LinkDowned raised to 4 and 8, read a second apart with a GUID
#     map this test writes (no recorded map exists): that host's link turns degraded; the
#     unmapped switch records are left out and said.
# Everything runs on loopback; every process is stopped on exit (trap).
#
# Usage: counters_sources_test.sh TOPOPLACE TOPOPLACED TOPOPLACE_AGENT
# Exit: 0 pass, 1 fail, 77 skipped (prometheus-node-exporter or jq missing).
set -euo pipefail

cli=$1 daemon=$2 agent=$3
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../../fixtures/counters
exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[[ -n $exporter ]] || { echo "SKIP: prometheus-node-exporter is not installed (deploy/install-deps.sh)"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ ${keep_work:-0} == 1 ]]; then echo "logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/*.log; do echo "--- $f"; tail -20 "$f"; done
  exit 1
}
free_port() { python3 "$here/../../testing/free_port.py"; }
wait_for() {  # SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  fail "timed out after ${seconds}s waiting for: $what ($(tp health --json 2>&1 | head -c 600))"
}

# Two hosts on one leaf: h0's NIC is node_exporter's mlx4_0, h1's is UFM's first CA port.
cat >"$work/fabric.json" <<'FABRIC'
{"format": "topoplace.fabric/v1", "name": "counters", "version": 1,
 "hosts": [{"name": "h0"}, {"name": "h1"}],
 "nics": [{"host": "h0", "name": "mlx4_0", "speed_gbps": 40},
          {"host": "h1", "name": "mlx5_0", "speed_gbps": 400}],
 "gpus": [{"host": "h0", "index": 0, "nic": "mlx4_0", "numa": 0},
          {"host": "h1", "index": 0, "nic": "mlx5_0", "numa": 0}],
 "switches": [{"name": "leaf-0", "tier": 1}],
 "links": [{"a": "h0/mlx4_0", "b": "leaf-0", "speed_gbps": 40, "lanes": 4, "count": 1, "state": "up"},
           {"a": "h1/mlx5_0", "b": "leaf-0", "speed_gbps": 400, "lanes": 4, "count": 1, "state": "up"}]}
FABRIC

"$daemon" --listen 127.0.0.1:0 --port-file "$work/port" --db "$work/topoplaced.db" \
  --fabric "$work/fabric.json" --durability normal >"$work/daemon.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
[[ -s $work/port ]] || fail "topoplaced did not start"
server=127.0.0.1:$(cat "$work/port")
tp() { "$cli" --server "$server" "$@"; }
health_of() { tp health --link "$1" --json | jq -r .link.health; }
is_state() { [[ $(health_of "$1") == "$2" ]]; }

# 1. node_exporter over HTTP.
cp -r "$fixtures/node_exporter/sys" "$work/sys"
ne_port=$(free_port)
"$exporter" --collector.disable-defaults --collector.infiniband --path.sysfs="$work/sys" \
  --web.listen-address="127.0.0.1:$ne_port" >"$work/node_exporter.log" 2>&1 &
pids+=($!)
wait_for 10 "node_exporter on :$ne_port" curl -sf "http://127.0.0.1:$ne_port/metrics"
version=$("$exporter" --version 2>&1 | head -1)
"$agent" counters --server "$server" --host-name h0 --fabric "$work/fabric.json" \
  --node-exporter "http://127.0.0.1:$ne_port/metrics" --interval-ms 1000 >"$work/agent.log" 2>&1 &
pids+=($!)
rates() { sqlite3 "$work/topoplaced.db" "SELECT COUNT(*) FROM counter_rates" 2>/dev/null; }
has_rates() { [[ $(rates) -ge 2 ]]; }
if command -v sqlite3 >/dev/null; then wait_for 20 "counter rates from the agent" has_rates; else sleep 4; fi
is_state h0/mlx4_0 healthy || fail "h0/mlx4_0 not healthy with standing counters: $(tp health --json)"
grep -q "left out: h0/mlx4_0 port 2" "$work/agent.log" ||
  fail "the agent did not say it left port 2 out: $(cat "$work/agent.log")"
echo "ok: $version on the recorded sysfs; agent reports h0/mlx4_0, healthy (port 2 left out, said)"

downs=0
flap() {  # one more link down per call, until the daemon says degraded
  downs=$((downs + 1))
  echo "$downs" >"$work/sys/class/infiniband/mlx4_0/ports/1/counters/link_downed"
  sleep 1
  is_state h0/mlx4_0 degraded
}
wait_for 30 "h0/mlx4_0 degraded while link_downed rises" flap
reason=$(tp health --link h0/mlx4_0 --json | jq -r .link.reason)
[[ $reason == *"link downs"* ]] || fail "degraded for the wrong reason: '$reason'"
echo "ok: link_downed 0 -> $downs through node_exporter: h0/mlx4_0 degraded ($reason)"
grep -q "rejected" "$work/agent.log" && fail "the daemon refused a report: $(cat "$work/agent.log")"

# 2. UFM: the recorded message, then the same with CA 0x7cfe900300292356's LinkDowned at 4.
cat >"$work/guids.txt" <<'MAP'
# Written by this test: the recorded message's CA 0x7cfe900300292356 as h1's NIC.
0x7cfe900300292356 h1/mlx5_0
MAP
later() {  # DOWNS FILE: the recorded message with the CA's LinkDowned at DOWNS
  jq --argjson n "$1" \
    '(.values[] | select(.node_guid == "0x7cfe900300292356") | .Infiniband_LinkDowned_u_Errors) = $n' \
    "$fixtures/ufm/small_telemetry.json" >"$2"
}
later 4 "$work/ufm-4.json"
later 8 "$work/ufm-8.json"
ufm_round() {  # FILE
  "$agent" counters --server "$server" --ufm "$1" --guid-map "$work/guids.txt" \
    --fabric "$work/fabric.json" --rounds 1 >>"$work/ufm.log" 2>&1 ||
    fail "the UFM reading of $1 failed: $(cat "$work/ufm.log")"
  sleep 1.1  # readings a second apart make a rate
}
ufm_round "$fixtures/ufm/small_telemetry.json"
is_state h1/mlx5_0 healthy || fail "h1/mlx5_0 not healthy after one UFM reading"
ufm_round "$work/ufm-4.json"
ufm_round "$work/ufm-8.json"
wait_for 10 "h1/mlx5_0 degraded after UFM LinkDowned 0 -> 4 -> 8" is_state h1/mlx5_0 degraded
grep -q "left out: .*0x248a070300ef19a0 port 23 (not in $work/guids.txt)" "$work/ufm.log" ||
  fail "the unmapped switch records were not said: $(cat "$work/ufm.log")"
echo "ok: UFM telemetry LinkDowned 0 -> 4 -> 8 on a mapped CA: h1/mlx5_0 degraded; unmapped records said"

# Bad input is refused naming it, and reports nothing.
printf '{"values": [{"node_guid": "0x1", "port_num": 1}]}' >"$work/bad.json"
if "$agent" counters --server "$server" --ufm "$work/bad.json" --guid-map "$work/guids.txt" \
  --rounds 1 >"$work/bad.log" 2>&1; then
  fail "a bad UFM message was accepted"
fi
grep -q "bad.json: values\[0\].port_guid" "$work/bad.log" || fail "bad input not named: $(cat "$work/bad.log")"
echo "ok: a bad UFM message is refused naming values[0].port_guid"
echo PASS
