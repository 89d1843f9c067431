# libvirt without systemd, once per host and inside it: virtlogd, a system D-Bus + polkitd (how a
# stock Debian libvirtd authorises non-root clients), libvirtd, and the storage pools. Each daemon is
# checked by asking it on its socket, not by its pid file alone: one that does not answer is
# restarted.

# /dev/kvm as udev sets it on a stock Debian host (root:kvm 0660). Left root-only, libvirt finds KVM
# when it probes QEMU but not when it checks the cache (as libvirt-qemu), so it re-probes QEMU
# (seconds, under a lock) on every capabilities lookup: each define and start stalls behind it.
# The original mode is kept in .lab/run and restored by down.sh. (lab2 has no /dev/kvm at all.)
ensure_kvm_device() {
  [[ -c /dev/kvm ]] || return 0
  local kvm_gid
  kvm_gid=$(getent group kvm | cut -d: -f3) || return 0
  [[ $(stat -c '%a %g' /dev/kvm) == "660 $kvm_gid" ]] && return 0
  # Numeric: a group name may not resolve (seen once as UNKNOWN), a gid always does.
  [[ -f $KVM_DEVICE_ORIG ]] || stat -c '%a %g' /dev/kvm >"$KVM_DEVICE_ORIG"
  chgrp "$kvm_gid" /dev/kvm
  chmod 0660 /dev/kvm
}

# Never fails down.sh: a record it cannot apply is reported and dropped.
restore_kvm_device() {
  [[ -f $KVM_DEVICE_ORIG && -c /dev/kvm ]] || return 0
  local mode group
  read -r mode group <"$KVM_DEVICE_ORIG"
  if [[ $mode =~ ^[0-7]+$ && $group =~ ^[0-9]+$ ]]; then
    chgrp "$group" /dev/kvm && chmod "$mode" /dev/kvm || log "could not restore /dev/kvm to $mode, group $group"
  else
    log "ignoring an unusable record of /dev/kvm's mode: $mode $group"
  fi
  rm -f "$KVM_DEVICE_ORIG"
}

# The URI of HOST's libvirtd for root's virsh in the root namespace (root: no polkit check).
host_libvirt_uri() { echo "qemu:///system?socket=$(host_path "$1" /run/libvirt/libvirt-sock)"; }
virsh_on() {
  local host=$1
  shift
  virsh -q -c "$(host_libvirt_uri "$host")" "$@"
}

virtlogd_answers() { unix_socket_answers "$(host_path "$1" "$VIRTLOGD_SOCKET")"; }
bus_answers() {
  dbus-send --bus="unix:path=$(host_path "$1" "$DBUS_SOCKET")" --print-reply --dest=org.freedesktop.DBus / \
    org.freedesktop.DBus.GetId
}
polkit_answers() {
  [[ $(dbus-send --bus="unix:path=$(host_path "$1" "$DBUS_SOCKET")" --print-reply --dest=org.freedesktop.DBus / \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.PolicyKit1) == *'boolean true'* ]]
}
# `virsh list`, not `version`: the latter probes the QEMU binary and takes seconds.
libvirtd_answers() { virsh_on "$1" list --all; }

# ensure_daemon HOST NAME COMM ANSWERS START: NAME answers (ANSWERS HOST), or whatever is left of it
# (a live pid without its socket, say) is stopped and START HOST runs it afresh.
ensure_daemon() {
  local host=$1 name=$2 comm=$3 answers=$4 start=$5
  "$answers" "$host" >/dev/null 2>&1 && return 0
  if host_daemon_alive "$host" "$name" "$comm"; then
    log "$host: $name runs but does not answer on its socket: restarting it"
  fi
  stop_host_daemon "$host" "$name" "$comm"
  "$start" "$host"
  wait_for 60 "$name on $host" "$answers" "$host"
}

start_virtlogd() {
  host_exec "$1" rm -f "$VIRTLOGD_SOCKET" /run/libvirt/virtlogd-admin-sock
  host_exec "$1" virtlogd -d -p "$HOST_RUN/virtlogd.pid"
}

start_dbus() {
  # dbus's postinst makes the machine id; the trixie root has none (each host gets its own).
  host_exec "$1" sh -c '[ -s /etc/machine-id ] || { rm -f /etc/machine-id; dbus-uuidgen --ensure=/etc/machine-id; }
    mkdir -p /run/dbus && rm -f /run/dbus/pid '"$DBUS_SOCKET"'
    dbus-daemon --system --fork --print-pid >'"$HOST_RUN/dbus.pid"
}

# The rule makes libvirt itself refuse users outside the libvirt group (ErrAuthFailed,
# "access denied by policy") instead of asking for an authentication agent nobody runs.
start_polkit() {
  install -m 644 "$LAB_SRC/scripts/50-kvm2lab.rules" "$(host_path "$1" "$POLKIT_RULE")"
  host_exec "$1" sh -c 'setsid /usr/lib/polkit-1/polkitd --no-debug >>'"$HOST_LOG/polkitd.log"' 2>&1 </dev/null &
    echo $! >'"$HOST_RUN/polkitd.pid"
}

start_libvirtd() {
  sed "s|@LOG_DIR@|$HOST_LOG|g" "$LAB_SRC/scripts/libvirtd.conf" >"$(host_path "$1" /etc/libvirt/libvirtd.conf)"
  if [[ $1 == lab2 ]]; then
    # Debian 13's qemu.conf defaults plus what a host without systemd or KVM needs.
    cp "$LAB_SRC/scripts/qemu-lab2.conf" "$(host_path "$1" /etc/libvirt/qemu.conf)"
  fi
  host_exec "$1" rm -f /run/libvirt/libvirt-sock /run/libvirt/libvirt-sock-ro /run/libvirt/libvirt-admin-sock
  host_exec "$1" libvirtd -d -f /etc/libvirt/libvirtd.conf -p "$HOST_RUN/libvirtd.pid"
}

# pool_path HOST NAME: the pool's target path (as HOST sees it).
pool_path() { virsh_on "$1" pool-dumpxml "$2" | sed -n 's|.*<path>\(.*\)</path>.*|\1|p' | head -n1; }

# pool_field HOST NAME FIELD: a field of `virsh pool-info` (State, Autostart, ...).
pool_field() { virsh_on "$1" pool-info "$2" | sed -n "s/^$3:[[:space:]]*//p"; }

# host_pool_dir HOST: where HOST's pools live, as HOST sees it.
host_pool_dir() { if [[ $1 == lab1 ]]; then echo "$POOL_DIR"; else echo "$HOST_POOL_DIR"; fi; }

# ensure_pool HOST NAME PATH RUNNING(yes|no); PATH as HOST sees it.
ensure_pool() {
  local host=$1 name=$2 path=$3 running=$4
  install -d -m 755 "$(host_path "$host" "$path")"
  if ! virsh_on "$host" pool-info "$name" >/dev/null 2>&1; then
    virsh_on "$host" pool-define-as "$name" dir --target "$path" >/dev/null
  fi
  local state autostart
  state=$(pool_field "$host" "$name" State)
  autostart=$(pool_field "$host" "$name" Autostart)
  if [[ $running == yes ]]; then
    [[ $state == running ]] || virsh_on "$host" pool-start "$name" >/dev/null
    [[ $autostart == yes ]] || virsh_on "$host" pool-autostart "$name" >/dev/null
  else
    [[ $state != running ]] || virsh_on "$host" pool-destroy "$name" >/dev/null
    [[ $autostart == no ]] || virsh_on "$host" pool-autostart --disable "$name" >/dev/null
  fi
  return 0
}

# ensure_bridge_network HOST: the VM bridge as a libvirt network in bridge mode (how a host bridge is
# offered to libvirt's clients). lab2's libvirt 11.3 has no interface driver, so this network is
# how the dashboard's Add host wizard finds the bridge there; lab1's interface driver lists it.
ensure_bridge_network() {
  local host=$1
  if ! virsh_on "$host" net-info "$BRIDGE" >/dev/null 2>&1; then
    virsh_on "$host" net-define /dev/stdin >/dev/null <<XML
<network><name>$BRIDGE</name><forward mode='bridge'/><bridge name='$BRIDGE'/></network>
XML
  fi
  # A libvirtd that has just started autostarts the network on its own, maybe between our check and
  # our start: "already active" is then what we wanted. (Reading the answer whole also keeps
  # pipefail away from `virsh | grep -q`.)
  local info out
  info=$(virsh_on "$host" net-info "$BRIDGE")
  if ! [[ $info =~ Active:\ *yes ]]; then
    out=$(virsh_on "$host" net-start "$BRIDGE" 2>&1) || [[ $out == *"already active"* ]] || { echo "$out" >&2; return 1; }
  fi
  [[ $info =~ Autostart:\ *yes ]] || virsh_on "$host" net-autostart "$BRIDGE" >/dev/null
}

ensure_host_libvirt() {
  local host=$1 pools
  ensure_daemon "$host" virtlogd virtlogd virtlogd_answers start_virtlogd
  if ! bus_answers "$host" >/dev/null 2>&1; then
    # polkitd and libvirtd hold connections to the old bus, which goes: they are restarted with it.
    ensure_daemon "$host" dbus dbus-daemon bus_answers start_dbus
    stop_host_daemon "$host" polkitd polkitd
    stop_host_daemon "$host" libvirtd libvirtd
  fi
  ensure_daemon "$host" polkitd polkitd polkit_answers start_polkit
  ensure_daemon "$host" libvirtd libvirtd libvirtd_answers start_libvirtd
  pools=$(host_pool_dir "$host")
  # QEMU runs as libvirt-qemu: it must be able to walk down to the pool directories.
  install -d -m 755 "$(host_path "$host" "$pools")"
  ensure_pool "$host" "$POOL_NAME" "$pools/$POOL_NAME" yes
  ensure_pool "$host" "$INACTIVE_POOL_NAME" "$pools/$INACTIVE_POOL_NAME" no
  [[ $host == lab1 ]] || ensure_bridge_network "$host"
}

ensure_libvirt() {
  ensure_kvm_device
  install -d -m 755 "$POOL_DIR"
  chmod 755 "$LAB_DIR"
  local host
  for host in "${LAB_HOSTS[@]}"; do ensure_host_libvirt "$host"; done
}

# lab1's pools outside .lab (choose_pool_dir's fallback) outlive its namespace: removed here.
remove_pool_dirs() { rm -rf "$(dirname "$FALLBACK_POOL_DIR")"; }
