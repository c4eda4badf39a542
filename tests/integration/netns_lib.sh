# Shell helpers for tests that build a fabric out of network namespaces. Source it after
# declaring `namespaces=()`; the caller's EXIT trap deletes every namespace listed there.

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
