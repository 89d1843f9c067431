#!/usr/bin/env bash
# The init (pid 1) of one lab host's pid namespace, started by host.sh inside the host's network
# namespace and fresh mount and UTS namespaces. It gives the host its own hostname and file system
# view, then waits (reaping orphans) until down.sh kills it, which takes every process of the host
# with it.
#
#   host-init.sh bind HOSTNAME STATE_DIR CACHE_DIR               lab1: this machine's root, private libvirt state
#   host-init.sh overlay HOSTNAME STATE_DIR LOWER_ROOT CACHE_DIR lab2: LOWER_ROOT (read-only) under an overlay
#
# STATE_DIR (.lab/hosts/<host>) keeps what the host writes; CACHE_DIR becomes /var/cache/libvirt
# (QEMU capabilities, kept across lab:down). STATE_DIR/log is bound last, as /var/log/libvirt: the
# sign for host.sh that the host is ready.
# Why pivot_root onto an overlay rather than a chroot: a chroot's / is not its mount namespace's
# root, and a process that joins the namespace (setns, as libvirt does to create a QEMU's device
# nodes, or nsenter) lands on the machine's real / instead: libvirt 11.3 once replaced this
# machine's /dev/ptmx that way. After pivot_root the overlay is the namespace's root.
set -euo pipefail
mode=$1 name=$2
# The arguments after the hostname, numbered from $2 on as the modes below read them.
set -- "$mode" "${@:3}"
state=$2
log_dir=$state/log

# Its own UTS namespace (unshare --uts): the name libvirt's ConnectGetHostname and sshd's sessions
# answer, never the machine's or the other host's.
hostname "$name"

# hosts_file_naming_host SOURCE: SOURCE with the host's name on 127.0.1.1, as a Debian install writes
# it. libvirt resolves its hostname for ConnectGetHostname; without the line it asks DNS, which no
# lab host reaches, and logs "getaddrinfo failed" on every health check.
hosts_file_naming_host() {
  grep -v '^127\.0\.1\.1[[:space:]]' "$1" || true
  printf '127.0.1.1\t%s\n' "$name"
}

# DIR in the new root, mounted from SOURCE
bind_into() { mkdir -p "$1" "$2" && mount --bind "$1" "$2"; }

# A /dev of the host's own: the devices QEMU and the daemons use, and no /dev/kvm (lab2 is a host
# without KVM: libvirt then probes QEMU once, not on every capabilities lookup).
own_dev() {
  local dev=$1
  mount -t tmpfs -o mode=755,nosuid tmpfs "$dev"
  mknod -m 666 "$dev/null" c 1 3
  mknod -m 666 "$dev/zero" c 1 5
  mknod -m 666 "$dev/full" c 1 7
  mknod -m 666 "$dev/random" c 1 8
  mknod -m 666 "$dev/urandom" c 1 9
  mknod -m 666 "$dev/tty" c 5 0
  mkdir -p "$dev/net" "$dev/pts" "$dev/shm"
  mknod -m 666 "$dev/net/tun" c 10 200
  mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$dev/pts"
  ln -s pts/ptmx "$dev/ptmx"
  ln -s /proc/self/fd "$dev/fd"
  ln -s /proc/self/fd/0 "$dev/stdin"
  ln -s /proc/self/fd/1 "$dev/stdout"
  ln -s /proc/self/fd/2 "$dev/stderr"
  mount -t tmpfs -o mode=1777 tmpfs "$dev/shm"
}

# A tmpfs /run with what the distribution's tmpfiles would put there: /run/lock (/var/lock points
# to it; libvirt locks a console's pty there).
own_run() {
  mount -t tmpfs -o mode=755 tmpfs "$1"
  install -d -m 1777 "$1/lock"
}

wait_forever() { trap 'exit 0' TERM; while :; do sleep 3600 & wait $! || true; done; }

case $mode in
  bind)
    own_run /run
    for dir in etc/libvirt var/lib/libvirt etc/polkit-1/rules.d; do
      bind_into "$state/fs/$dir" "/$dir"
    done
    # The machine's /etc/hosts stays as it is: lab1 sees a copy naming lab1.
    hosts_file_naming_host /etc/hosts >"$state/fs/etc/hosts"
    mount --bind "$state/fs/etc/hosts" /etc/hosts
    bind_into "$3" /var/cache/libvirt
    mount -t proc proc /proc
    bind_into "$log_dir" /var/log/libvirt
    wait_forever
    ;;
  overlay)
    lower=$3 root=$state/root
    mkdir -p "$state/upper" "$state/work" "$root"
    mount -t overlay overlay -o "lowerdir=$lower,upperdir=$state/upper,workdir=$state/work" "$root"
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    own_dev "$root/dev"
    own_run "$root/run"
    mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
    bind_into "$4" "$root/var/cache/libvirt"
    bind_into "$log_dir" "$root/var/log/libvirt"
    printf '%s\n' "$name" >"$root/etc/hostname"
    hosts_file_naming_host "$root/etc/hosts" >"$root/etc/hosts.new"
    mv "$root/etc/hosts.new" "$root/etc/hosts"
    mkdir -p "$root/.oldroot"
    cd "$root"
    pivot_root . .oldroot
    umount -l /.oldroot
    rmdir /.oldroot
    exec /bin/bash -c "$(declare -f wait_forever); wait_forever"
    ;;
  *) echo "host-init.sh: unknown mode $mode" >&2; exit 2 ;;
esac
