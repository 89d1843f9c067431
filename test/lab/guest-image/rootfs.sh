# The guest's root file system: a minbase Debian from Debian's archive (debootstrap) plus the few
# packages a proxy VM needs, configured to boot headless on the lab. Sourced by build.sh.

GUEST_SUITE=bookworm
GUEST_MIRROR=${KVM2LAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
GUEST_ROOT_LABEL=kvm2root

# Everything beyond minbase. debootstrap adds their dependencies, never their recommends.
#   systemd-sysv udev          init, and udev for the virtio devices (NIC, disks, agent port)
#   linux-image-amd64          Debian's generic kernel (the cloud flavour has no AHCI driver, so it
#                              cannot read the seed, a SATA cdrom); pruned of hardware drivers below
#   initramfs-tools zstd       virtio_blk and ext4 are modules, so the root disk needs an initramfs
#   cloud-init                 NoCloud reads the seed ISO (user-data, meta-data, vendor-data)
#   qemu-guest-agent           the lab VMs have no mirror to install it from (see the agent note below)
#   squid                      the proxy the Proxy's cloud-init configures
#   iproute2 netbase           `ip` for cloud-init and the tests; /etc/services and /etc/protocols
GUEST_PACKAGES=(systemd-sysv udev linux-image-amd64 initramfs-tools zstd cloud-init
  qemu-guest-agent squid iproute2 netbase
  python3-cffi-backend) # provides python3-cffi-backend-api-*, a virtual package debootstrap cannot resolve

in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

# Written between debootstrap's two stages, so the packages' own scripts already see them.
preseed_root() {
  # Package scripts must not start daemons inside the build chroot.
  printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
  chmod 755 "$ROOT/usr/sbin/policy-rc.d"
  # A small initramfs: only what finds the root disk, not every storage driver of the kernel.
  install -d "$ROOT/etc/initramfs-tools/conf.d"
  printf 'MODULES=list\nCOMPRESS=zstd\nRESUME=none\n' >"$ROOT/etc/initramfs-tools/conf.d/kvm2lab.conf"
  printf '%s\n' virtio_pci virtio_blk ext4 >>"$ROOT/etc/initramfs-tools/modules"
  # No documentation, manual pages or translations in the image.
  install -d "$ROOT/etc/dpkg/dpkg.cfg.d"
  cat >"$ROOT/etc/dpkg/dpkg.cfg.d/kvm2lab-nodoc" <<'EOF'
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
path-exclude=/usr/share/lintian/*
EOF
}

bootstrap_root() {
  local include
  include=$(IFS=,; echo "${GUEST_PACKAGES[*]}")
  install -d "$DEB_CACHE"
  log "debootstrap $GUEST_SUITE (minbase + ${#GUEST_PACKAGES[@]} packages) from $GUEST_MIRROR"
  debootstrap --foreign --variant=minbase --include="$include" --cache-dir="$DEB_CACHE" \
    "$GUEST_SUITE" "$ROOT" "$GUEST_MIRROR" >"$WORK/debootstrap-1.log" 2>&1 ||
    die "debootstrap (first stage) failed; see the log below" "$WORK/debootstrap-1.log"
  preseed_root
  chroot "$ROOT" /debootstrap/debootstrap --second-stage >"$WORK/debootstrap-2.log" 2>&1 ||
    die "debootstrap (second stage) failed; see the log below" "$WORK/debootstrap-2.log" "$ROOT/debootstrap/debootstrap.log"
}

configure_network() {
  # systemd-networkd takes DHCP on the one NIC; cloud-init does not render a network of its own.
  cat >"$ROOT/etc/systemd/network/50-dhcp.network" <<'EOF'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no
EOF
  in_root systemctl enable systemd-networkd.service >/dev/null 2>&1
  cat >"$ROOT/etc/cloud/cloud.cfg.d/90-kvm2lab.cfg" <<'EOF'
# kvm2 lab guest image: the seed ISO is the only data source; networkd owns the network.
datasource_list: [NoCloud, None]
network: {config: disabled}
# C.UTF-8 is built into glibc: nothing to generate, and the image carries no other locale.
locale: C.UTF-8
# The hostname in /etc/hosts: without DNS, Squid otherwise spends minutes looking it up at start.
manage_etc_hosts: localhost
# No sshd in the image: no host keys to generate.
ssh_genkeytypes: []
EOF
  echo 'LANG=C.UTF-8' >"$ROOT/etc/default/locale"
}

# The agent is installed because the lab VMs have no mirror, but it does not start by itself: Debian
# starts it from a udev rule when the agent port appears, and that rule is masked here. So, as on a
# stock cloud image, the agent runs only once vendor-data's script starts it, and a VM created with
# installGuestAgent: false has no agent (its address must come from ARP).
mask_agent_autostart() {
  local rule
  rule=$(cd "$ROOT" && compgen -G 'usr/lib/udev/rules.d/*qemu-guest-agent*.rules' || compgen -G 'lib/udev/rules.d/*qemu-guest-agent*.rules') ||
    die "qemu-guest-agent ships no udev rule; the image layout changed"
  ln -sfn /dev/null "$ROOT/etc/udev/rules.d/$(basename "$rule")"
}

# Module trees no QEMU q35 guest with virtio devices loads: about half of the kernel package. What
# stays: virtio, AHCI/ATA and SCSI cores (the seed cdrom), file systems in use, netfilter, crypto.
prune_kernel_modules() {
  local tree
  for tree in "$ROOT"/usr/lib/modules/*/kernel; do
    rm -rf "$tree"/sound "$tree"/net/{bluetooth,mac80211,wireless} \
      "$tree"/drivers/{gpu,media,infiniband,iio,usb,staging,hwmon,comedi,mtd,target,isdn,bluetooth,hid,video} \
      "$tree"/drivers/net/{wireless,ethernet,can,usb} "$tree"/fs/{btrfs,xfs,ocfs2,gfs2,f2fs,nfs,nfsd,ceph,smb}
    find "$tree/drivers/scsi" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + # HBA drivers
    in_root depmod -a "$(basename "$(dirname "$tree")")"
  done
}

configure_root() {
  echo kvm2-guest >"$ROOT/etc/hostname"
  printf '127.0.0.1\tlocalhost\n' >"$ROOT/etc/hosts"
  # debootstrap copied the build machine's resolver; the lab's VMs have none (dnsmasq serves DHCP
  # only), and a lookup then fails at once on 127.0.0.1 instead of timing out somewhere else.
  echo '# no DNS on the kvm2 lab network' >"$ROOT/etc/resolv.conf"
  printf 'LABEL=%s\t/\text4\tdefaults,noatime\t0\t1\n' "$GUEST_ROOT_LABEL" >"$ROOT/etc/fstab"
  : >"$ROOT/etc/machine-id" # generated on first boot, so every VM gets its own
  rm -f "$ROOT/var/lib/dbus/machine-id"
  configure_network
  mask_agent_autostart
  prune_kernel_modules
  # Units that would only compete for the emulated CPU during the first minutes: maintenance timers,
  # gettys on virtual consoles nobody sees (the serial getty stays), cron (nothing uses it).
  in_root systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
    fstrim.timer systemd-binfmt.service getty-static.service >/dev/null 2>&1
  in_root systemctl disable getty@tty1.service cron.service >/dev/null 2>&1
  in_root passwd -l root >/dev/null
}

# What the image does not need at run time.
trim_root() {
  rm -f "$ROOT/usr/sbin/policy-rc.d"
  rm -rf "$ROOT"/usr/share/{doc,man,info,lintian}/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/lib/apt/lists/* \
    "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/log/*.log "$ROOT/debootstrap"
  find "$ROOT/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
}

build_root() {
  bootstrap_root
  configure_root
  trim_root
}
