#!/usr/bin/env bash
# Builds the lab's guest image: a small Debian (bookworm) cloud image made from Debian's archive
# with debootstrap, booting under UEFI (OVMF) and BIOS (SeaBIOS) from one GPT qcow2, with
# cloud-init (NoCloud), qemu-guest-agent, Squid and a serial console (ttyS0).
#
#   bash test/lab/guest-image/build.sh                   builds (or finds) the image, prints its path
#   bash test/lab/guest-image/build.sh --link-if-cached  never builds: links and prints it if cached
#
# Cached under /var/cache/kvm2lab/guest-image/<key>/ (override with KVM2LAB_CACHE), where <key> is
# the hash of this directory's scripts: a second run with unchanged scripts returns at once. Not in
# .lab, because `lab:down` (run at the end of every `npm test`) empties .lab and a rebuild costs
# minutes. The downloaded .debs are kept in /var/cache/kvm2lab/debs, so a changed script rebuilds
# without downloading again. When the lab is up, .lab/images/guest.qcow2 links to the image, which
# the image server then serves as /images/guest.qcow2 (with Content-Length).
set -euo pipefail
GUEST_IMAGE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
source "$GUEST_IMAGE_SRC/rootfs.sh"
# shellcheck source=/dev/null
source "$GUEST_IMAGE_SRC/disk.sh"

CACHE_ROOT=${KVM2LAB_CACHE:-/var/cache/kvm2lab}
IMAGE_CACHE=$CACHE_ROOT/guest-image
DEB_CACHE=$CACHE_ROOT/debs
LAB_IMAGES=$(cd "$GUEST_IMAGE_SRC/../../.." && pwd)/.lab/images
BUILD_TOOLS=(debootstrap grub-efi-amd64-bin grub-pc-bin dosfstools mtools fdisk e2fsprogs qemu-utils python3)

log() { printf '[guest-image] %s\n' "$*" >&2; }
die() {
  local message=$1 file
  shift
  printf '[guest-image] error: %s\n' "$message" >&2
  for file in "$@"; do [[ -f $file ]] && tail -n 40 "$file" >&2; done
  exit 1
}

# The cache key: every file the build is made of, so editing any of them rebuilds.
cache_key() {
  (cd "$GUEST_IMAGE_SRC" && find . -type f -name '*.sh' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

ensure_build_tools() {
  local missing=() pkg
  for pkg in "${BUILD_TOOLS[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) == "install ok installed" ]] || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Unmounts whatever debootstrap or a package script left mounted under the build root.
unmount_root() {
  local mounts
  [[ -n ${ROOT:-} ]] || return 0
  mounts=$(awk -v root="$ROOT" '$2 == root || index($2, root "/") == 1 {print $2}' /proc/mounts | sort -r)
  [[ -z $mounts ]] || echo "$mounts" | xargs -r umount -l
}

cleanup() {
  unmount_root
  [[ -n ${WORK:-} && -d $WORK ]] && rm -rf "$WORK"
  return 0
}

# .lab/images/guest.qcow2 -> the cached image, when the lab is up.
link_into_lab() {
  [[ -d $LAB_IMAGES ]] || return 0
  ln -sfn "$1" "$LAB_IMAGES/guest.qcow2.tmp"
  mv -T "$LAB_IMAGES/guest.qcow2.tmp" "$LAB_IMAGES/guest.qcow2"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

build() {
  local out=$1 started phase_started
  started=$(now)
  ensure_build_tools
  WORK=$(mktemp -d /var/tmp/kvm2lab-guest-image.XXXXXX)
  ROOT=$WORK/root
  trap cleanup EXIT
  phase_started=$(now)
  build_root
  local root_seconds
  root_seconds=$(elapsed "$phase_started")
  log "root file system ready in ${root_seconds}s"
  phase_started=$(now)
  build_disk
  local disk_seconds
  disk_seconds=$(elapsed "$phase_started")
  log "disk assembled in ${disk_seconds}s"
  local sha256 size
  sha256=$(sha256sum "$WORK/guest.qcow2" | cut -d' ' -f1)
  size=$(stat -c %s "$WORK/guest.qcow2")
  rm -rf "$out.partial" && install -d "$out.partial"
  mv "$WORK/guest.qcow2" "$out.partial/guest.qcow2"
  echo "$sha256" >"$out.partial/guest.qcow2.sha256"
  cat >"$out.partial/build.json" <<EOF
{"key":"$(basename "$out")","sha256":"$sha256","bytes":$size,"kernel":"$(kernel_version)","rootMiB":$ROOT_MIB,
 "seconds":{"rootfs":$root_seconds,"disk":$disk_seconds,"total":$(elapsed "$started")}}
EOF
  chmod 644 "$out.partial"/*
  mv -T "$out.partial" "$out"
  log "built $out/guest.qcow2 ($size bytes) in $(elapsed "$started")s"
}

# Older builds (other keys) are dropped once a new one exists: only the current scripts' image is used.
prune_old_builds() {
  find "$IMAGE_CACHE" -mindepth 1 -maxdepth 1 -type d ! -name "$1" -exec rm -rf {} +
}

main() {
  local key out
  key=$(cache_key)
  out=$IMAGE_CACHE/$key
  if [[ ${1:-} == --link-if-cached ]]; then
    # No lock: a build in progress only renames its result into place once it is complete.
    if [[ ! -f $out/guest.qcow2.sha256 ]]; then
      rm -f "$LAB_IMAGES/guest.qcow2" # an older build's image is not the current scripts' image
      return 0
    fi
    link_into_lab "$out/guest.qcow2"
    echo "$out/guest.qcow2"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || die "run as root (debootstrap and chroot need it)"
  install -d -m 755 "$CACHE_ROOT" "$IMAGE_CACHE"
  exec 9>"$IMAGE_CACHE.lock"
  flock 9 # one build at a time; a second caller waits and then finds the cache filled
  if [[ -f $out/guest.qcow2 && -f $out/guest.qcow2.sha256 ]]; then
    log "cached: $out/guest.qcow2"
  else
    build "$out"
    prune_old_builds "$key"
  fi
  link_into_lab "$out/guest.qcow2"
  echo "$out/guest.qcow2"
}

main "$@"
