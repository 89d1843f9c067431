#!/usr/bin/env bash
# Builds the root file system of the lab's second hypervisor (host "lab2"): Debian 13 (trixie) from
# Debian's archive with debootstrap, plus libvirt 11.3, QEMU 10, OVMF, D-Bus, polkitd, dnsmasq and
# OpenSSH. up.sh runs it read-only (an overlay in lab2's own mount namespace), so the cached tree
# itself never changes.
#
#   bash test/lab/hypervisor2/build.sh              builds (or finds) the root, prints its path
#   bash test/lab/hypervisor2/build.sh --if-cached  never builds: prints the path if cached, else fails
#
# Cached under /var/cache/kvm2lab/hypervisor2/<key>/root (KVM2LAB_CACHE overrides the cache root),
# <key> = hash of this script: a second run returns at once; `lab:down` never touches it. The
# .debs stay in /var/cache/kvm2lab/debs-trixie, so an edited script rebuilds without downloading.
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_ROOT=${KVM2LAB_CACHE:-/var/cache/kvm2lab}
ROOT_CACHE=$CACHE_ROOT/hypervisor2
DEB_CACHE=$CACHE_ROOT/debs-trixie
SUITE=trixie
MIRROR=${KVM2LAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# Installed with apt-get inside the root after debootstrap (`--include=` fails on these: systemd's
# pre-dependency order). --no-install-recommends keeps out the NAT network, AppArmor, spice, ...
PACKAGES=(libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils ovmf openssh-server
  dnsmasq-base dbus polkitd iproute2 procps)

log() { printf '[hypervisor2] %s\n' "$*" >&2; }
die() {
  printf '[hypervisor2] error: %s\n' "$1" >&2
  [[ -z ${2:-} || ! -f $2 ]] || tail -n 40 "$2" >&2
  exit 1
}

cache_key() { sha256sum "$SRC/build.sh" | cut -c1-16; }

in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }


ensure_debootstrap() {
  [[ $(dpkg-query -W -f='${Status}' debootstrap 2>/dev/null) == "install ok installed" ]] && return 0
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}

# build_in_namespace WORK OUT: runs in a mount namespace of its own (see build), so the mounts it
# makes for apt inside the root vanish with it, whatever happens.
build_in_namespace() {
  local out=$2 started=$SECONDS
  WORK=$1
  ROOT=$WORK/root
  log "debootstrap $SUITE (minbase) from $MIRROR"
  debootstrap --variant=minbase --cache-dir="$DEB_CACHE" "$SUITE" "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see the log below" "$WORK/debootstrap.log"
  # Package scripts must never start daemons here: the lab starts lab2's own, in its namespaces.
  printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
  chmod 755 "$ROOT/usr/sbin/policy-rc.d"
  install -d "$ROOT/etc/dpkg/dpkg.cfg.d"
  printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
    'path-exclude=/usr/share/locale/*' >"$ROOT/etc/dpkg/dpkg.cfg.d/kvm2lab-nodoc"
  mount -t proc proc "$ROOT/proc"
  mount --bind /dev "$ROOT/dev"
  # apt keeps its .debs in the shared cache, so a rebuild downloads nothing.
  mount --bind "$DEB_CACHE" "$ROOT/var/cache/apt/archives"
  log "apt-get install ${PACKAGES[*]}"
  { in_root apt-get update -qq && in_root apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"; } \
    >"$WORK/apt.log" 2>&1 || die "apt-get install in the trixie root failed; see the log below" "$WORK/apt.log"
  umount "$ROOT/var/cache/apt/archives" "$ROOT/dev" "$ROOT/proc"
  rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/log/*.log "$ROOT"/etc/ssh/ssh_host_*
  : >"$ROOT/etc/machine-id"
  local libvirt qemu
  libvirt=$(in_root dpkg-query -W -f='${Version}' libvirt-daemon)
  qemu=$(in_root dpkg-query -W -f='${Version}' qemu-system-x86)
  rm -rf "$out.partial" && install -d "$out.partial"
  mv "$ROOT" "$out.partial/root"
  printf '{"key":"%s","suite":"%s","libvirt":"%s","qemu":"%s","seconds":%d}\n' \
    "$(basename "$out")" "$SUITE" "$libvirt" "$qemu" $((SECONDS - started)) >"$out.partial/build.json"
  mv -T "$out.partial" "$out"
  log "built $out/root (libvirt $libvirt, QEMU $qemu) in $((SECONDS - started))s"
}

# build OUT: the work directory is removed by this process once the namespace's process has ended
# (and its mounts with it), so removing it can never reach into a mounted /dev.
build() {
  ensure_debootstrap
  install -d "$DEB_CACHE"
  local work
  work=$(mktemp -d /var/tmp/kvm2lab-hypervisor2.XXXXXX)
  # shellcheck disable=SC2064 # the path is fixed now
  trap "rm -rf --one-file-system '$work'" EXIT
  unshare --mount --propagation private bash "$SRC/build.sh" --in-namespace "$work" "$1"
}

main() {
  local key out
  if [[ ${1:-} == --in-namespace ]]; then
    build_in_namespace "$2" "$3"
    return 0
  fi
  key=$(cache_key)
  out=$ROOT_CACHE/$key
  if [[ ${1:-} == --if-cached ]]; then
    [[ -f $out/build.json ]] || return 1
    echo "$out/root"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || die "run as root (debootstrap and chroot need it)"
  install -d -m 755 "$CACHE_ROOT" "$ROOT_CACHE"
  exec 9>"$ROOT_CACHE.lock"
  flock 9 # one build at a time; a second caller waits and then finds the cache filled
  if [[ -f $out/build.json ]]; then
    log "cached: $out/root"
  else
    build "$out"
    # Older builds (other keys) are dropped: only the current script's root is used.
    find "$ROOT_CACHE" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
  fi
  echo "$out/root"
}

main "$@"
