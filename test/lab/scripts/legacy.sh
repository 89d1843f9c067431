# The lab's former layout (up to issue 14): one libvirtd on the machine's own /run/libvirt in the
# namespace kvm2lab-hv, behind the sshds of kvm2lab-lab1 and kvm2lab-lab2, with a D-Bus, polkitd and
# polkit rule in the root namespace. Another checkout's old scripts may have brought it up; down.sh
# removes what it finds of it, and up.sh refuses to start next to it.

LEGACY_PIDS=(libvirtd virtlogd polkitd dbus dnsmasq sshd-lab1 sshd-lab2)

legacy_lab_present() {
  netns_exists "$NS_LEGACY_HV" && return 0
  local name
  for name in "${LEGACY_PIDS[@]}"; do [[ -s $RUN_DIR/$name.pid ]] && return 0; done
  return 1
}

legacy_virsh() { virsh -q -c qemu:///system "$@"; }

# The old lab's domains and pools, through its libvirtd when it still answers (it used the
# machine's own libvirt state, so its definitions must go through it).
remove_legacy_definitions() {
  local name path
  [[ -S /run/libvirt/libvirt-sock ]] && legacy_virsh list --all >/dev/null 2>&1 || return 0
  # Only a libvirtd running in the old lab's namespace is the lab's.
  [[ -n $(ip netns pids "$NS_LEGACY_HV" 2>/dev/null) ]] || return 0
  for name in $(legacy_virsh list --all --name); do
    legacy_virsh destroy "$name" >/dev/null 2>&1 || true
    legacy_virsh undefine --nvram --managed-save --snapshots-metadata "$name" >/dev/null 2>&1 || true
    log "removed domain $name of the old one-hypervisor lab"
  done
  for name in $(legacy_virsh pool-list --all --name); do
    path=$(legacy_virsh pool-dumpxml "$name" | sed -n 's|.*<path>\(.*\)</path>.*|\1|p' | head -n1)
    [[ $name == "$POOL_NAME" || $name == "$INACTIVE_POOL_NAME" || $path == */.lab/* || $path == "$FALLBACK_POOL_DIR"/* ]] || continue
    legacy_virsh pool-destroy "$name" >/dev/null 2>&1 || true
    legacy_virsh pool-undefine "$name" >/dev/null 2>&1 || true
  done
}

remove_legacy_lab() {
  legacy_lab_present || return 0
  log "removing an old one-hypervisor lab"
  remove_legacy_definitions
  local name comm
  for name in "${LEGACY_PIDS[@]}"; do
    comm=${name%%-*}
    [[ $comm != dbus ]] || comm=dbus-daemon
    stop_pidfile "$RUN_DIR/$name.pid" "$comm" "$name of the old lab"
  done
  remove_netns "$NS_LEGACY_HV"
  rm -f "$POLKIT_RULE"
  if ip link show "$VM_LINK" >/dev/null 2>&1; then ip link delete "$VM_LINK"; fi
}
