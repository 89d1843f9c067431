# Shared names, addresses and helpers of the lab; sourced by up.sh and down.sh.
# Every name the lab creates is defined here once, so up and down cannot drift apart.

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
LAB_SRC="$REPO_DIR/test/lab"
LAB_DIR="$REPO_DIR/.lab"
RUN_DIR="$LAB_DIR/run"
LOG_DIR="$LAB_DIR/logs"
SSH_DIR="$LAB_DIR/ssh"
IMAGE_DIR="$LAB_DIR/images"
# Pools live in .lab when QEMU (user libvirt-qemu) can walk down to it, else (a clone under /root,
# say) under /var/lib/kvm2lab; see choose_pool_dir.
POOL_DIR="$LAB_DIR/pools"
FALLBACK_POOL_DIR=/var/lib/kvm2lab/pools

# Two hypervisors, each in a network namespace of its own that holds its sshd, libvirtd, VM bridge,
# dnsmasq and VMs, and in mount and pid namespaces of its own (scripts/host.sh):
#   lab1  this machine's Debian 12 libvirt 9.0 with private /run, /etc/libvirt, /var/lib/libvirt, ...
#   lab2  a Debian 13 (trixie) root (hypervisor2/build.sh) with libvirt 11.3, as an overlay.
LAB_HOSTS=(lab1 lab2)
NS_LAB1=kvm2lab-lab1
NS_LAB2=kvm2lab-lab2
LAB1_NETNS=$NS_LAB1
LAB2_NETNS=$NS_LAB2
# Each host's hostname, in a UTS namespace of its own (what ConnectGetHostname answers): real hosts
# never share one, and the dashboard's host card must tell them apart.
LAB1_HOSTNAME=kvm2lab-lab1
LAB2_HOSTNAME=kvm2lab-lab2
# The old layout's hypervisor namespace (one libvirtd behind both sshds): down.sh still removes it.
NS_LEGACY_HV=kvm2lab-hv

# 198.18.0.0/15 is reserved for network tests (RFC 2544): it can never be someone else's address.
LAB1_ROOT_ADDR=198.18.1.1/30
LAB1_ADDR=198.18.1.2
LAB1_PORT=22
LAB2_ROOT_ADDR=198.18.2.1/30
LAB2_ADDR=198.18.2.2
LAB2_PORT=2222
LAB1_VETH=kvm2lab-lab1 # root end; the namespace end is eth0
LAB2_VETH=kvm2lab-lab2

# The same bridge name on both hosts (each in its own namespace), different subnets.
BRIDGE=kvm2lab-br0
LAB1_BRIDGE_ADDR=198.18.100.1/24
LAB1_VM_NET=198.18.100.0/24
LAB1_DHCP_RANGE=198.18.100.10,198.18.100.250,1h
LAB2_BRIDGE_ADDR=198.18.101.1/24
LAB2_VM_NET=198.18.101.0/24
LAB2_DHCP_RANGE=198.18.101.10,198.18.101.250,1h

# host_var HOST FIELD: LAB1_FIELD or LAB2_FIELD.
host_var() {
  local var
  var="$(tr '[:lower:]' '[:upper:]' <<<"$1")_$2"
  printf '%s' "${!var}"
}

# The root namespace (where the app and its proxy probes run) reaches each host's VM network through
# that host's veth (each host forwards); the VMs reach back only VM_LINK_ROOT_IP, an address on the
# root namespace's lo, where the image server also listens.
VM_LINK=kvm2lab-vmnet # the one-hypervisor layout's veth to the VM network (legacy.sh removes it)
VM_LINK_LABEL=lo:kvm2lab
VM_LINK_ROOT_IP=198.18.0.1
VM_PROBE_NETNS=kvm2lab-vmprobe # a stand-in VM that test/lab/lab-guest-network.test.ts plugs into a bridge

LAB_USER=kvm2lab
NOLV_USER=kvm2nolv

POOL_NAME=default
INACTIVE_POOL_NAME=kvm2lab-stopped

# Paths inside each host (its own /run, /etc, ...); from the root namespace see host_path.
LIBVIRT_SOCKET=/var/run/libvirt/libvirt-sock
VIRTLOGD_SOCKET=/run/libvirt/virtlogd-sock
POLKIT_RULE=/etc/polkit-1/rules.d/50-kvm2lab.rules
DBUS_SOCKET=/run/dbus/system_bus_socket
HOST_RUN=/run/kvm2lab # pid files and leases of a host's daemons, inside the host
HOST_LOG=/var/log/libvirt # each host's own, bound from .lab/hosts/<host>/log
HOST_POOL_DIR=/var/lib/kvm2lab/pools # lab2's pools, inside its root (lab1's: POOL_DIR)
HOSTS_DIR="$LAB_DIR/hosts" # per-host state: .lab/hosts/<host>/
# Caches kept across lab:down (like the guest image): the trixie root and each libvirt's QEMU
# capabilities (a probe takes seconds under emulation).
CACHE_ROOT=${KVM2LAB_CACHE:-/var/cache/kvm2lab}

IMAGE_SERVER_PORT=18080
IMAGE_SERVER_URL="http://127.0.0.1:$IMAGE_SERVER_PORT"
# The same server as the VMs see it (through VM_LINK): what a proxy probe fetches through Squid.
IMAGE_SERVER_VM_URL="http://$VM_LINK_ROOT_IP:$IMAGE_SERVER_PORT"

IMAGE_SERVER_PID="$RUN_DIR/image-server.pid"
KVM_DEVICE_ORIG="$RUN_DIR/kvm-device.orig"
# host_init_pid_file HOST: the pid (root namespace) of the host's namespace init, see host.sh.
host_init_pid_file() { echo "$RUN_DIR/$1-init.pid"; }

PACKAGES=(libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils ovmf openssh-server
  dnsmasq-base genisoimage iproute2 dbus polkitd curl python3-libvirt python3-minimal util-linux
  chromium postgresql squid)  # chromium: the browser tests drive Debian's build through playwright-core;
# postgresql: the replica tests' database (and the unit store tests' throwaway clusters);
# squid: the gateway test's upstreams (test/lab/harness/squid.ts), each in a namespace of its own
# Those namespaces (the test removes them; down.sh too, should it die half way).
GATEWAY_SQUID_NETNS=(kvm2lab-squid1 kvm2lab-squid2 kvm2lab-squid3)

log() { printf '[lab] %s\n' "$*" >&2; }
die() { printf '[lab] error: %s\n' "$*" >&2; exit 1; }

require_root() { [[ $(id -u) -eq 0 ]] || die "run as root (namespaces, users and libvirtd need it)"; }

# pid_alive PIDFILE COMM: the process named in PIDFILE runs and its command name is COMM,
# so a stale pid file whose pid was reused by something else is never trusted.
pid_alive() {
  local pid
  [[ -s $1 ]] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && running "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]]
}

# running PID: the process exists and is not a zombie (this machine's init reaps orphans slowly).
running() {
  local stat
  # read, not $(cat ...): no process forked for each look (stop_pids looks ten times a second).
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

# How long a daemon gets to exit on SIGTERM before stop_pids sends SIGKILL: lab2's libvirtd 11.3
# took more than 20 s on a busy 2-core machine, and the lab wants it down, not a graceful exit.
STOP_GRACE_SECONDS=${STOP_GRACE_SECONDS:-10}

# stop_pids WHAT PID...: SIGTERM, up to STOP_GRACE_SECONDS (whole seconds) for each to exit, then
# SIGKILL for what still runs; one line per pid says which signal ended it (the test harness's
# stopProcess, harness/stop-daemon.ts, does the same).
stop_pids() {
  local what=$1 pid start now ticks
  shift
  local -A exited_us=()
  (($# > 0)) || return 0
  start=${EPOCHREALTIME/./}
  kill "$@" 2>/dev/null || true
  # A deadline, not a count of 0.1 s sleeps: on a busy machine each round takes longer.
  while :; do
    now=${EPOCHREALTIME/./}
    for pid; do
      [[ -n ${exited_us[$pid]:-} ]] || running "$pid" || exited_us[$pid]=$((now - start))
    done
    ((${#exited_us[@]} < $# && now - start < STOP_GRACE_SECONDS * 1000000)) || break
    sleep 0.1
  done
  for pid; do
    if [[ -n ${exited_us[$pid]:-} ]]; then
      log "stopped $what (pid $pid): SIGTERM, exited after $((exited_us[$pid] / 1000000)).$((exited_us[$pid] / 100000 % 10)) s"
    elif kill -9 "$pid" 2>/dev/null; then
      log "stopped $what (pid $pid): SIGKILL, still running $STOP_GRACE_SECONDS s after SIGTERM"
    else
      log "stopped $what (pid $pid): SIGTERM, exited after $STOP_GRACE_SECONDS s"
    fi
  done
  # SIGKILL ends a process unless it is in an uninterruptible wait: give that a few seconds.
  for pid; do
    for ((ticks = 0; ticks < 50; ticks++)); do running "$pid" || break; sleep 0.1; done
  done
}

# stop_pidfile PIDFILE COMM [WHAT]: stop_pids the process in PIDFILE (when it runs as COMM);
# remove the pid file.
stop_pidfile() {
  if pid_alive "$1" "$2"; then stop_pids "${3:-$2}" "$(<"$1")"; fi
  rm -f "$1"
}

# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.1 s until it succeeds.
wait_for() {
  local seconds=$1 what=$2 i
  shift 2
  for ((i = 0; i < seconds * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "timed out after ${seconds}s waiting for $what"
}

# choose_pool_dir: sets POOL_DIR to where QEMU can reach the pools.
choose_pool_dir() {
  if id libvirt-qemu >/dev/null 2>&1 && ! runuser -u libvirt-qemu -- test -x "$REPO_DIR"; then
    POOL_DIR=$FALLBACK_POOL_DIR
  fi
}

netns_exists() { [[ -e /run/netns/$1 ]]; }

# kill_pids PID...: KILL the given pids (no-op without any).
kill_pids() { (($# == 0)) || kill -9 "$@" 2>/dev/null || true; }
