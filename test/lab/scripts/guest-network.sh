# The lab variant for real guests: each host's VM network (lab1 198.18.100.0/24, lab2
# 198.18.101.0/24) made reachable from the root namespace, where the app runs and probes
# http://<vm ip>:3128, and the image server made reachable from the VMs (Squid fetches the probe
# target from it).
#
#   root namespace                                   kvm2lab-lab1 (lab2 alike, 198.18.2.x / .101.x)
#     kvm2lab-lab1 198.18.1.1/30 ────── veth ─────── eth0 198.18.1.2/30, ip_forward=1
#     route 198.18.100.0/24 via 198.18.1.2             route 198.18.0.1 via 198.18.1.1
#     lo 198.18.0.1/32 (label lo:kvm2lab)              bridge kvm2lab-br0 198.18.100.1/24 (VMs' gateway)
#     image server also on 198.18.0.1:18080
#
# Forwarding is on in the host namespaces only, and they have no default route: a VM reaches
# 198.18.0.1 and nothing else (not the other host). The root namespace does not forward (its
# ip_forward is untouched), so nothing from a VM ever leaves this machine. Removed by down.sh.

ensure_vm_route() {
  local host netns
  # On lo: this kernel has no dummy devices, and the address must outlive either host's veth.
  [[ " $(ip -br addr show dev lo) " == *" $VM_LINK_ROOT_IP/32 "* ]] ||
    ip addr add "$VM_LINK_ROOT_IP/32" dev lo label "$VM_LINK_LABEL"
  for host in "${LAB_HOSTS[@]}"; do
    netns=$(host_var "$host" NETNS)
    [[ $(ip netns exec "$netns" cat /proc/sys/net/ipv4/ip_forward) == 1 ]] ||
      ip netns exec "$netns" sysctl -qw net.ipv4.ip_forward=1
    ip -n "$netns" route replace "$VM_LINK_ROOT_IP/32" via "$(host_var "$host" ROOT_ADDR | cut -d/ -f1)" dev eth0
    ip route replace "$(host_var "$host" VM_NET)" via "$(host_var "$host" ADDR)" dev "$(host_var "$host" VETH)"
  done
}

remove_vm_route() {
  if [[ " $(ip -br addr show dev lo) " == *" $VM_LINK_ROOT_IP/32 "* ]]; then ip addr del "$VM_LINK_ROOT_IP/32" dev lo; fi
  if netns_exists "$VM_PROBE_NETNS"; then
    kill_netns_processes "$VM_PROBE_NETNS"
    ip netns delete "$VM_PROBE_NETNS"
  fi
  return 0
}
