#!/usr/bin/env bash
# Builds a small rail-optimised Ethernet fabric out of network namespaces, runs real lldpd
# in every host and switch, collects LLDP through topoplace-agent (hosts) and lldpcli
# (switches), imports it, and checks that the inferred tiers, rails and blocks equal the
# construction. Then takes one host link down and checks that the import reports it.
#
#   2 blocks x 2 rails x 2 hosts; each host has eth0 -> its block's rail-0 leaf and
#   eth1 -> its block's rail-1 leaf; every leaf has one uplink to each of 2 spines.
#
# Usage: lldp_netns_test.sh TOPOPLACE TOPOPLACE_AGENT FABRIC_EXPECT
# Exit: 0 pass, 1 fail, 77 skipped (not root, or lldpd/lldpcli/ip missing).
# Every namespace and lldpd started here is removed on exit, even on failure.
set -euo pipefail

topoplace=$1 agent=$2 expect=$3

skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
for tool in lldpd lldpcli ip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install lldpd iproute2)"
done

p="tpi$$"                      # prefix keeps parallel runs and leftovers apart
work=$(mktemp -d)
chmod 755 "$work"                # lldpd reads its -O config as the unprivileged _lldpd user
namespaces=()
pids=()

# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "$0")/netns_lib.sh"
cleanup() {
  set +e
  netns_cleanup
  for ns in "${namespaces[@]}"; do rm -f "/run/lldpd-$ns.socket" "/run/lldpd-$ns.pid"; done
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p /run/lldpd

start_lldpd() {  # NS ROLE(host|switch)
  local ns=$1 conf="$work/lldpd-$1.conf"
  {
    echo "configure system hostname $ns"
    echo "configure lldp tx-interval 1"
    echo "configure lldp tx-hold 4"
    echo "configure lldp portidsubtype ifname"
    if [[ $2 == switch ]]; then echo "configure system capabilities enabled bridge"; fi
  } >"$conf"
  ip netns exec "$ns" lldpd -d -u "/run/lldpd-$ns.socket" -p "/run/lldpd-$ns.pid" -O "$conf" \
    >"$work/lldpd-$ns.log" 2>&1 &
  pids+=($!)
}

hosts=() leaves=() spines=("$p-s0" "$p-s1")
for s in "${spines[@]}"; do add_ns "$s"; done
for b in 0 1; do
  for r in 0 1; do
    leaf="$p-b${b}r${r}"
    leaves+=("$leaf")
    add_ns "$leaf"
    cable "$leaf" swp3 "$p-s0" "swp$((2 * b + r + 1))"
    cable "$leaf" swp4 "$p-s1" "swp$((2 * b + r + 1))"
  done
  for i in 0 1; do
    h="$p-h${b}${i}"
    hosts+=("$h")
    add_ns "$h"
    cable "$h" eth0 "$p-b${b}r0" "swp$((i + 1))"
    cable "$h" eth1 "$p-b${b}r1" "swp$((i + 1))"
  done
done
for ns in "${spines[@]}" "${leaves[@]}"; do start_lldpd "$ns" switch; done
for ns in "${hosts[@]}"; do start_lldpd "$ns" host; done

collect() {  # DIR: agent reports of hosts, lldpcli neighbor tables of switches
  mkdir -p "$1/lldp"
  for h in "${hosts[@]}"; do
    ip netns exec "$h" "$agent" --once --json --host-name "$h" --netdev 'eth*' \
      --lldp-socket "/run/lldpd-$h.socket" >"$1/agent-$h.json"
  done
  for s in "${spines[@]}" "${leaves[@]}"; do
    lldpcli -u "/run/lldpd-$s.socket" -f json0 show neighbors details \
      >"$1/lldp/lldp-neighbors-$s.json0"
  done
}

neighbors_seen() {  # total LLDP neighbors over all switches
  local n=0
  for s in "${spines[@]}" "${leaves[@]}"; do
    c=$(lldpcli -u "/run/lldpd-$s.socket" show neighbors 2>/dev/null | grep -c '^Interface:' || true)
    n=$((n + c))
  done
  echo "$n"
}

# Leaves see 8 host cables and 8 spine uplinks; spines see 8 leaf cables: 24.
wait_for_neighbors() {  # EXPECTED
  for _ in $(seq 1 60); do
    [[ $(neighbors_seen) -eq $1 ]] && return 0
    sleep 0.5
  done
  echo "FAIL: switches see $(neighbors_seen) neighbors, expected $1"
  return 1
}

wait_for_neighbors 24
collect "$work/up"
"$topoplace" fabric import --name netns --lldp "$work/up/lldp" \
  --agent-report "$work"/up/agent-*.json --out "$work/up/fabric.json" | tee "$work/up/summary.txt"
"$expect" "$work/up/fabric.json" --leaves 4 --spines 2 --rails 2 \
  --block "$p-h00,$p-h01" --block "$p-h10,$p-h11"
echo "PASS: tiers, rails and blocks match the construction"

# One host link down: its leaf stops seeing the host, the agent reports eth1 down.
ip -n "$p-h00" link set eth1 down
wait_for_neighbors 23
# The host's own lldpd drops the leaf on its next interface scan, which may come later than
# the leaf's: wait for it too, or the agent still reports the neighbor (a CI run saw that).
for _ in $(seq 1 60); do
  lldpcli -u "/run/lldpd-$p-h00.socket" show neighbors ports eth1 2>/dev/null |
    grep -q '^Interface:' || break
  sleep 0.5
done
collect "$work/down"
"$topoplace" fabric import --name netns --lldp "$work/down/lldp" \
  --agent-report "$work"/down/agent-*.json | tee "$work/down/summary.txt"
grep -q "NICs are down, no LLDP neighbor.*$p-h00/eth1 (down)" "$work/down/summary.txt" ||
  { echo "FAIL: import does not report $p-h00/eth1 down"; exit 1; }
grep -q "not cabled to any switch: $p-h00/eth1" "$work/down/summary.txt" ||
  { echo "FAIL: import does not show $p-h00/eth1 uncabled"; exit 1; }
echo "PASS: the downed link is reported"
