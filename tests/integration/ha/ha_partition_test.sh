#!/usr/bin/env bash
# One topoplaced replica cut off from etcd by nft while clients can still reach it: it
# must stop serving writes before its etcd lease ends, and the other replica must take
# over. Real etcd (3 members), real topoplaced replicas and the real CLI, each replica in a
# network namespace of its own:
#
#   ns E (etcd x3, the clients) --veth 10.77.1.0/24-- ns A (replica A, the leader)
#                                --veth 10.77.2.0/24-- ns B (replica B)
#
# Usage: ha_partition_test.sh TOPOPLACED TOPOPLACE
# Exit: 0 pass, 1 fail, 77 skipped (not root, or etcd/nft/ip missing).
# Every namespace and process started here is removed on exit, even on failure.
set -euo pipefail

topoplaced=$1 topoplace=$2
lease=8  # seconds; the leader stops writing a quarter lease (2 s) before it can end

skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
for tool in etcd nft ip; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install etcd-server nftables iproute2)"
done

p="tph$$"
work=$(mktemp -d)
namespaces=()
pids=()
# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "$0")/../netns_lib.sh"
cleanup() {
  set +e
  netns_cleanup
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$work"/*.log; do echo "== $f"; tail -15 "$f"; done; exit 1; }
now() { date +%s.%N; }

add_ns "${p}E"; add_ns "${p}A"; add_ns "${p}B"
cable "${p}E" ea "${p}A" ae
cable "${p}E" eb "${p}B" be
ip -n "${p}E" addr add 10.77.1.1/24 dev ea
ip -n "${p}A" addr add 10.77.1.2/24 dev ae
ip -n "${p}E" addr add 10.77.2.1/24 dev eb
ip -n "${p}B" addr add 10.77.2.2/24 dev be

cluster=m0=http://127.0.0.1:23800,m1=http://127.0.0.1:23801,m2=http://127.0.0.1:23802
for i in 0 1 2; do
  ip netns exec "${p}E" etcd --name "m$i" --data-dir "$work/etcd-$i" \
    --listen-client-urls "http://0.0.0.0:2379$i" --advertise-client-urls "http://127.0.0.1:2379$i" \
    --listen-peer-urls "http://127.0.0.1:2380$i" --initial-advertise-peer-urls "http://127.0.0.1:2380$i" \
    --initial-cluster "$cluster" --initial-cluster-token tph >"$work/etcd-$i.log" 2>&1 &
  pids+=($!)
done

# replica NAME NETNS ETCD_HOST ADDRESS: a topoplaced in NETNS on ADDRESS:7469.
replica() {
  ip netns exec "$2" "$topoplaced" --listen 0.0.0.0:7469 --advertise "$4:7469" \
    --store "etcd://$3:23790,$3:23791,$3:23792" --db "$work/$1.db" \
    --leader-lease "$lease" >"$work/$1.log" 2>&1 &
  pids+=($!)
}
# write ADDRESS: one Reserve through the CLI from the clients' namespace, its answer on
# stdout; fails unless the reservation was made. A call that hangs counts as no answer.
write() {
  timeout 0.5 ip netns exec "${p}E" "$topoplace" --server "$1:7469" \
    reserve --job tp=8,pp=1,dp=1 --ttl 600 2>&1
}
await() {  # await SECONDS COMMAND...: true once COMMAND succeeds
  local end=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do (( $(date +%s) < end )) || return 1; sleep 0.1; done
}

etcd_ready() { grep -q "ready to serve client requests" "$work/etcd-$1.log"; }
for i in 0 1 2; do await 30 etcd_ready "$i" || fail "etcd member $i did not start"; done
replica a "${p}A" 10.77.1.1 10.77.1.2
await 30 grep -q "leads" "$work/a.log" || fail "replica A did not become leader"
replica b "${p}B" 10.77.2.1 10.77.2.2
await 30 grep -q "serving fabric" "$work/b.log" || fail "replica B did not start"
await 10 write 10.77.1.2 || fail "the leader does not take writes"
answer=$(write 10.77.2.2 || true)
[[ $answer == *"not the leader"*"10.77.1.2:7469"* ]] || fail "follower answered: $answer"

# Cut A off from etcd only: its clients still reach it.
ip netns exec "${p}A" nft -f - <<'NFT'
table inet cut {
  chain out {
    type filter hook output priority 0; policy accept;
    ip daddr 10.77.1.1 tcp dport 23790-23792 drop
  }
}
NFT
cut_at=$(now)

# Probe both replicas with writes until B takes them; note when A first refuses as no
# longer the leader, and any write A took after that.
a_refused="" b_served="" a_wrote_late=0
while [[ -z $b_served ]]; do
  (( $(echo "$(now) - $cut_at < $lease + 10" | bc) )) || fail "B did not take over within $((lease + 10)) s"
  if answer=$(write 10.77.1.2); then
    [[ -n $a_refused ]] && a_wrote_late=1
  elif [[ -z $a_refused && $answer == *"not the leader"* ]]; then
    a_refused=$(now)
  fi
  echo "$(now) A: ${answer:-(no answer within 0.5 s)}" >>"$work/probes.log"
  if write 10.77.2.2 >/dev/null; then b_served=$(now); fi
done
[[ -n $a_refused ]] || fail "A never said it stopped leading"
(( a_wrote_late == 0 )) || fail "A took a write after it had stopped leading"
a_after=$(echo "$a_refused - $cut_at" | bc)
b_after=$(echo "$b_served - $cut_at" | bc)
echo "A refuses writes $a_after s after the cut, B serves them $b_after s after (lease $lease s)"
(( $(echo "$a_after < $lease" | bc) )) || fail "A wrote on past its lease"
(( $(echo "$a_refused < $b_served" | bc) )) || fail "B served before A stopped"
answer=$(write 10.77.1.2 || true)
[[ $answer == *"not the leader"* ]] || fail "A answered after the takeover: $answer"
echo PASS
