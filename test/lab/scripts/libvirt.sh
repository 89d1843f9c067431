# libvirt without systemd: virtlogd, a system D-Bus + polkitd (how a stock Debian libvirtd
# authorises non-root clients), libvirtd inside the hypervisor namespace, and the storage pools.

# /dev/kvm as udev sets it on a stock Debian host (root:kvm 0660). Left root-only, libvirt finds KVM
# when it probes QEMU but not when it checks the cache (as libvirt-qemu), so it re-probes QEMU
# (seconds, under a lock) on every capabilities lookup: each define and start stalls behind it.
# The original mode is kept in .lab/run and restored by down.sh.
ensure_kvm_device() {
  [[ -c /dev/kvm ]] || return 0
  [[ $(stat -c '%a %G' /dev/kvm) == "660 kvm" ]] && return 0
  [[ -f $KVM_DEVICE_ORIG ]] || stat -c '%a %G' /dev/kvm >"$KVM_DEVICE_ORIG"
  chgrp kvm /dev/kvm
  chmod 0660 /dev/kvm
}

restore_kvm_device() {
  [[ -f $KVM_DEVICE_ORIG && -c /dev/kvm ]] || return 0
  local mode group
  read -r mode group <"$KVM_DEVICE_ORIG"
  chgrp "$group" /dev/kvm
  chmod "$mode" /dev/kvm
  rm -f "$KVM_DEVICE_ORIG"
}

ensure_virtlogd() {
  pid_alive "$VIRTLOGD_PID" virtlogd && return 0
  virtlogd -d -p "$VIRTLOGD_PID"
  wait_for 10 virtlogd pid_alive "$VIRTLOGD_PID" virtlogd
}

bus_answers() { dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId; }

# A system bus the lab did not start (a real host's) is used as is and left alone by down.sh.
ensure_dbus() {
  pid_alive "$DBUS_PID" dbus-daemon && return 0
  bus_answers >/dev/null 2>&1 && return 0
  mkdir -p /run/dbus
  # dbus's postinst makes the machine id; a container image may have skipped it.
  [[ -s /etc/machine-id || -s /var/lib/dbus/machine-id ]] || dbus-uuidgen --ensure
  rm -f /run/dbus/pid "$DBUS_SOCKET" # leftovers of a bus that died make dbus-daemon refuse to start
  dbus-daemon --system --fork --print-pid >"$DBUS_PID"
  wait_for 10 "the system D-Bus" bus_answers
}

polkit_answers() {
  [[ $(dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
    string:org.freedesktop.PolicyKit1) == *'boolean true'* ]]
}

# The rule makes libvirt itself refuse users outside the libvirt group (ErrAuthFailed,
# "access denied by policy") instead of asking for an authentication agent nobody runs.
ensure_polkit() {
  local rule
  rule=$(<"$LAB_SRC/scripts/50-kvm2lab.rules")
  if [[ ! -f $POLKIT_RULE || $(<"$POLKIT_RULE") != "$rule" ]]; then
    mkdir -p "$(dirname "$POLKIT_RULE")"
    printf '%s\n' "$rule" >"$POLKIT_RULE"
  fi
  pid_alive "$POLKITD_PID" polkitd && return 0
  polkit_answers 2>/dev/null && return 0
  setsid /usr/lib/polkit-1/polkitd --no-debug >>"$LOG_DIR/polkitd.log" 2>&1 </dev/null &
  echo $! >"$POLKITD_PID"
  wait_for 10 polkitd polkit_answers
}

# `virsh list`, not `version`: the latter probes the QEMU binary and takes seconds.
libvirtd_answers() { virsh_root list --all; }

ensure_libvirtd() {
  if pid_alive "$LIBVIRTD_PID" libvirtd; then
    wait_for 60 "the lab's libvirtd to answer" libvirtd_answers
    return 0
  fi
  if [[ -S $LIBVIRT_SOCKET ]] && libvirtd_answers >/dev/null 2>&1; then
    die "a libvirtd the lab did not start answers on $LIBVIRT_SOCKET; stop it first"
  fi
  sed "s|@LOG_DIR@|$LOG_DIR|g" "$LAB_SRC/scripts/libvirtd.conf" >"$LAB_DIR/libvirtd.conf"
  # Inside the hypervisor namespace, libvirtd puts the VMs' taps on the lab bridge there.
  ip netns exec "$NS_HV" libvirtd -d -f "$LAB_DIR/libvirtd.conf" -p "$LIBVIRTD_PID"
  wait_for 60 libvirtd libvirtd_answers
  stop_distro_networks
}

# Debian's libvirt-daemon-config-network may autostart the NAT network `default`; the lab's VMs
# use the lab bridge, so it is stopped to keep the hypervisor namespace to the lab's addresses.
stop_distro_networks() {
  local net
  for net in $(virsh_root net-list --name); do
    virsh_root net-destroy "$net" >/dev/null
  done
}

pool_path() { virsh_root pool-dumpxml "$1" | sed -n 's|.*<path>\(.*\)</path>.*|\1|p' | head -n1; }

# pool_field NAME FIELD: a field of `virsh pool-info` (State, Autostart, ...).
pool_field() { virsh_root pool-info "$1" | sed -n "s/^$2:[[:space:]]*//p"; }

# ensure_pool NAME PATH RUNNING(yes|no)
ensure_pool() {
  local name=$1 path=$2 running=$3
  mkdir -p "$path"
  chmod 755 "$path"
  if ! virsh_root pool-info "$name" >/dev/null 2>&1; then
    virsh_root pool-define-as "$name" dir --target "$path" >/dev/null
  fi
  # A lab pool left defined by a checkout elsewhere (its processes ended, down.sh never ran) is
  # moved to this checkout's path; its old directory is left as it was.
  if [[ $(pool_path "$name") != "$path" ]]; then
    log "pool $name was defined at $(pool_path "$name"); redefining it at $path"
    virsh_root pool-destroy "$name" >/dev/null 2>&1 || true
    virsh_root pool-undefine "$name" >/dev/null
    virsh_root pool-define-as "$name" dir --target "$path" >/dev/null
  fi
  local state autostart
  state=$(pool_field "$name" State)
  autostart=$(pool_field "$name" Autostart)
  if [[ $running == yes ]]; then
    [[ $state == running ]] || virsh_root pool-start "$name" >/dev/null
    [[ $autostart == yes ]] || virsh_root pool-autostart "$name" >/dev/null
  else
    [[ $state != running ]] || virsh_root pool-destroy "$name" >/dev/null
    [[ $autostart == no ]] || virsh_root pool-autostart --disable "$name" >/dev/null
  fi
  return 0
}

ensure_libvirt() {
  ensure_kvm_device
  ensure_virtlogd
  ensure_dbus
  ensure_polkit
  ensure_libvirtd
  # QEMU runs as libvirt-qemu: it must be able to walk down to the pool directories.
  install -d -m 755 "$POOL_DIR"
  chmod 755 "$LAB_DIR"
  ensure_pool "$POOL_NAME" "$POOL_DIR/$POOL_NAME" yes
  ensure_pool "$INACTIVE_POOL_NAME" "$POOL_DIR/$INACTIVE_POOL_NAME" no
}

# Pools the lab owns: its two, plus any a test defined with a target inside .lab.
lab_pools() {
  local name path
  for name in $(virsh_root pool-list --all --name); do
    path=$(pool_path "$name")
    if [[ $name == "$POOL_NAME" || $name == "$INACTIVE_POOL_NAME" || $path == "$LAB_DIR"/* ||
      $path == "$FALLBACK_POOL_DIR"/* ]]; then
      echo "$name"
    fi
  done
}

# Every domain on the lab's libvirtd is the lab's: destroy, undefine with NVRAM, drop its log.
remove_domains() {
  local name
  for name in $(virsh_root list --all --name); do
    [[ $(virsh_root domstate "$name") == "shut off" ]] || virsh_root destroy "$name" >/dev/null
    virsh_root undefine --nvram --managed-save --snapshots-metadata "$name" >/dev/null
    rm -f "/var/log/libvirt/qemu/$name.log"
    log "removed domain $name"
  done
}

remove_pools() {
  local name vol path
  for name in $(lab_pools); do
    path=$(pool_path "$name")
    if [[ $(pool_field "$name" State) == running ]]; then
      for vol in $(virsh_root vol-list --pool "$name" | awk '{print $1}'); do
        virsh_root vol-delete --pool "$name" "$vol" >/dev/null
      done
      virsh_root pool-destroy "$name" >/dev/null
    fi
    virsh_root pool-undefine "$name" >/dev/null
    # Files a test left in a pool outside libvirt's knowledge go with the directory.
    if [[ $path == "$LAB_DIR"/* || $path == "$FALLBACK_POOL_DIR"/* ]]; then rm -rf "$path"; fi
  done
  rm -rf "$(dirname "$FALLBACK_POOL_DIR")"
}

# Stops what ensure_libvirt started; a D-Bus or polkitd the lab did not start is left running.
stop_libvirt_daemons() {
  stop_pidfile "$LIBVIRTD_PID" libvirtd
  stop_pidfile "$VIRTLOGD_PID" virtlogd
  stop_pidfile "$POLKITD_PID" polkitd
  if [[ -s $DBUS_PID ]]; then
    stop_pidfile "$DBUS_PID" dbus-daemon
    rm -f /run/dbus/pid "$DBUS_SOCKET"
    rmdir --ignore-fail-on-non-empty /run/dbus/containers /run/dbus 2>/dev/null || true
  fi
  rm -f "$POLKIT_RULE"
  restore_kvm_device
}
