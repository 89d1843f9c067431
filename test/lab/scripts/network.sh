# Network namespaces: the hypervisor's (bridge + DHCP for VMs) and one per "remote host"
# (an sshd reachable from the root namespace through a veth pair).

# ensure_addr NETNS DEV CIDR: the address is on the device (NETNS "" is the root namespace).
ensure_addr() {
  local ns_args=()
  [[ -z $1 ]] || ns_args=(-n "$1")
  [[ " $(ip "${ns_args[@]}" -br addr show dev "$2") " == *" $3 "* ]] || ip "${ns_args[@]}" addr add "$3" dev "$2"
}

ensure_netns() {
  netns_exists "$1" && return 0
  ip netns add "$1"
  ip -n "$1" link set lo up
}

# ensure_host_link NETNS ROOT_END ROOT_CIDR NS_ADDR: a veth pair root <-> NETNS, /30 on both ends.
ensure_host_link() {
  local netns=$1 root_end=$2 root_cidr=$3 ns_addr=$4
  ensure_netns "$netns"
  if ! ip link show "$root_end" >/dev/null 2>&1; then
    ip link add "$root_end" type veth peer name eth0 netns "$netns"
  fi
  ensure_addr "" "$root_end" "$root_cidr"
  ensure_addr "$netns" eth0 "$ns_addr/30"
  ip link set "$root_end" up
  ip -n "$netns" link set eth0 up
}

ensure_bridge() {
  ensure_netns "$NS_HV"
  ip -n "$NS_HV" link show "$BRIDGE" >/dev/null 2>&1 || ip -n "$NS_HV" link add "$BRIDGE" type bridge
  ensure_addr "$NS_HV" "$BRIDGE" "$BRIDGE_ADDR"
  ip -n "$NS_HV" link set "$BRIDGE" up
}

# DHCP only (port=0 turns DNS off): the VMs have nowhere to resolve names to anyway.
ensure_dnsmasq() {
  pid_alive "$DNSMASQ_PID" dnsmasq && return 0
  ip netns exec "$NS_HV" dnsmasq --conf-file=/dev/null --port=0 --bind-interfaces \
    --interface="$BRIDGE" --except-interface=lo --dhcp-range="$DHCP_RANGE" \
    --dhcp-leasefile="$RUN_DIR/dnsmasq.leases" --pid-file="$DNSMASQ_PID" --user=root \
    --log-facility="$LOG_DIR/dnsmasq.log"
  wait_for 10 dnsmasq pid_alive "$DNSMASQ_PID" dnsmasq
}

ensure_network() {
  ensure_host_link "$NS_LAB1" "$LAB1_VETH" "$LAB1_ROOT_ADDR" "$LAB1_ADDR"
  ensure_host_link "$NS_LAB2" "$LAB2_VETH" "$LAB2_ROOT_ADDR" "$LAB2_ADDR"
  ensure_bridge
  ensure_dnsmasq
}

# kill_netns_processes NETNS: whatever still runs inside a lab namespace is the lab's.
kill_netns_processes() {
  local pids
  netns_exists "$1" || return 0
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  [[ -n $pids ]] || return 0
  # shellcheck disable=SC2086 # one pid per word
  kill $pids 2>/dev/null || true
  sleep 0.5
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  # shellcheck disable=SC2086
  [[ -z $pids ]] || kill -9 $pids 2>/dev/null || true
}

remove_network() {
  stop_pidfile "$DNSMASQ_PID" dnsmasq
  local ns
  for ns in "$NS_LAB1" "$NS_LAB2" "$NS_HV"; do
    kill_netns_processes "$ns"
    netns_exists "$ns" && ip netns delete "$ns"
  done
  # Deleting a namespace deletes its veth ends, which takes the root ends with them.
  ip link show "$LAB1_VETH" >/dev/null 2>&1 && ip link delete "$LAB1_VETH"
  ip link show "$LAB2_VETH" >/dev/null 2>&1 && ip link delete "$LAB2_VETH"
  return 0
}
