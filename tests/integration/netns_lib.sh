# shellcheck shell=bash
# Shell helpers for tests that build a fabric out of network namespaces. Source it after
# declaring `namespaces=()` and `pids=()`, and call netns_cleanup from the EXIT trap.

# add_ns NS: a namespace with loopback up, remembered for cleanup.
add_ns() {
  ip netns add "$1"
  namespaces+=("$1")
  ip -n "$1" link set lo up
}

# cable NS_A IF_A NS_B IF_B: a veth pair between two namespaces, both ends renamed and up.
# Temporary names carry this shell's pid, so concurrent tests never collide.
netns_veth_id=0
cable() {
  netns_veth_id=$((netns_veth_id + 1))
  local a="tn${$}a${netns_veth_id}" b="tn${$}b${netns_veth_id}"
  ip link add "$a" type veth peer name "$b"
  ip link set "$a" netns "$1"
  ip link set "$b" netns "$3"
  ip -n "$1" link set "$a" name "$2"
  ip -n "$3" link set "$b" name "$4"
  ip -n "$1" link set "$2" up
  ip -n "$3" link set "$4" up
}

# netns_cleanup: stops every process in `pids`, then whatever still runs inside a listed
# namespace (daemons that fork, such as lldpd's privilege-separated child), and deletes
# the namespaces. Never fails: it runs from EXIT traps, after errors.
# shellcheck disable=SC2154  # pids is the caller's, like namespaces
netns_cleanup() {
  local pid ns
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
}
