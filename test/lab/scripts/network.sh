# Each host's network namespace: an sshd reachable from the root namespace through a veth pair,
# the VM bridge with DHCP (dnsmasq, run inside the host), and forwarding so that the root namespace
# reaches the host's VMs (see guest-network.sh).

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

# ensure_host_link HOST: a veth pair root <-> HOST's namespace, /30 on both ends.
ensure_host_link() {
  local netns root_end
  netns=$(host_var "$1" NETNS)
  root_end=$(host_var "$1" VETH)
  ensure_netns "$netns"
  if ! ip link show "$root_end" >/dev/null 2>&1; then
    ip link add "$root_end" type veth peer name eth0 netns "$netns"
  fi
  ensure_addr "" "$root_end" "$(host_var "$1" ROOT_ADDR)"
  ensure_addr "$netns" eth0 "$(host_var "$1" ADDR)/30"
  ip link set "$root_end" up
  ip -n "$netns" link set eth0 up
}

ensure_bridge() {
  local netns
  netns=$(host_var "$1" NETNS)
  ip -n "$netns" link show "$BRIDGE" >/dev/null 2>&1 || ip -n "$netns" link add "$BRIDGE" type bridge
  ensure_addr "$netns" "$BRIDGE" "$(host_var "$1" BRIDGE_ADDR)"
  ip -n "$netns" link set "$BRIDGE" up
}

# dnsmasq serves DHCP only, so "answers" is: it listens on the bridge's port 67.
dnsmasq_answers() { [[ -n $(ip netns exec "$(host_var "$1" NETNS)" ss -Hlun 'sport = :67') ]]; }

# DHCP only (port=0 turns DNS off): the VMs have nowhere to resolve names to anyway.
start_dnsmasq() {
  host_exec "$1" dnsmasq --conf-file=/dev/null --port=0 --bind-interfaces \
    --interface="$BRIDGE" --except-interface=lo --dhcp-range="$(host_var "$1" DHCP_RANGE)" \
    --dhcp-leasefile="$HOST_RUN/dnsmasq.leases" --pid-file="$HOST_RUN/dnsmasq.pid" --user=root \
    --log-facility="$HOST_LOG/dnsmasq.log"
}

ensure_network() {
  local host
  for host in "${LAB_HOSTS[@]}"; do
    ensure_host_link "$host"
    ensure_bridge "$host"
  done
}

ensure_dhcp() {
  local host
  for host in "${LAB_HOSTS[@]}"; do ensure_daemon "$host" dnsmasq dnsmasq dnsmasq_answers start_dnsmasq; done
}

# kill_netns_processes NETNS: whatever still runs inside a lab namespace is the lab's.
kill_netns_processes() {
  local pids
  netns_exists "$1" || return 0
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  [[ -n $pids ]] || return 0
  # shellcheck disable=SC2086 # one pid per word
  stop_pids "a process in namespace $1" $pids
}

# remove_netns NETNS: its processes, then the namespace (which takes its veth ends and bridge along).
remove_netns() {
  kill_netns_processes "$1"
  if netns_exists "$1"; then ip netns delete "$1"; fi
}

remove_network() {
  local host veth
  for host in "${LAB_HOSTS[@]}"; do
    remove_netns "$(host_var "$host" NETNS)"
    veth=$(host_var "$host" VETH)
    # The namespace's deletion takes the root end along, asynchronously: gone by now or soon.
    if ip link show "$veth" >/dev/null 2>&1; then ip link delete "$veth" 2>/dev/null || ! ip link show "$veth" >/dev/null 2>&1; fi
  done
  local netns
  for netns in "${GATEWAY_SQUID_NETNS[@]}"; do remove_netns "$netns"; done
}
