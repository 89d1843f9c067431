# The lab variant for real guests: VM addresses (198.18.100.0/24, in the hypervisor namespace) made
# reachable from the root namespace, where the app runs and probes http://<vm ip>:3128, and the
# image server made reachable from the VMs (Squid fetches the probe target from it).
#
#   root namespace                                     kvm2lab-hv
#     kvm2lab-vmnet 198.18.0.1/30 ───── veth ───────── uplink 198.18.0.2/30, ip_forward=1
#     route 198.18.100.0/24 via 198.18.0.2                bridge kvm2lab-br0 198.18.100.1/24 (VMs' gateway)
#     image server also on 198.18.0.1:18080
#
# Forwarding is on in the hypervisor namespace only, and it has no default route: a VM reaches
# 198.18.0.0/30 and nothing else. The root namespace does not forward (its ip_forward is untouched),
# so nothing from a VM ever leaves this machine. Removed with the namespace by down.sh.

ensure_vm_route() {
  ensure_netns "$NS_HV"
  if ! ip link show "$VM_LINK" >/dev/null 2>&1; then
    ip link add "$VM_LINK" type veth peer name "$VM_LINK_PEER" netns "$NS_HV"
  fi
  ensure_addr "" "$VM_LINK" "$VM_LINK_ROOT_ADDR"
  ensure_addr "$NS_HV" "$VM_LINK_PEER" "$VM_LINK_NS_ADDR"
  ip link set "$VM_LINK" up
  ip -n "$NS_HV" link set "$VM_LINK_PEER" up
  [[ $(ip netns exec "$NS_HV" cat /proc/sys/net/ipv4/ip_forward) == 1 ]] ||
    ip netns exec "$NS_HV" sysctl -qw net.ipv4.ip_forward=1
  ip route replace "$VM_NET" via "$VM_LINK_NS_IP" dev "$VM_LINK"
}

# .lab/guest.json: what test/guest reads about this variant (write-then-rename, like lab.json).
write_guest_json() {
  cat >"$GUEST_JSON.tmp" <<JSON
{
  "vmNetwork": "$VM_NET",
  "vmGateway": "${BRIDGE_ADDR%/*}",
  "rootAddress": "$VM_LINK_ROOT_IP",
  "imageServerVmUrl": "$IMAGE_SERVER_VM_URL",
  "guestImageBuilder": "$LAB_SRC/guest-image/build.sh"
}
JSON
  mv "$GUEST_JSON.tmp" "$GUEST_JSON"
}

# Deleting the namespace deletes the veth pair and the route with it; this covers a namespace that
# is already gone while the root end lingers.
remove_vm_route() {
  if ip link show "$VM_LINK" >/dev/null 2>&1; then ip link delete "$VM_LINK"; fi
  if netns_exists "$VM_PROBE_NETNS"; then
    kill_netns_processes "$VM_PROBE_NETNS"
    ip netns delete "$VM_PROBE_NETNS"
  fi
  return 0
}
