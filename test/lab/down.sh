#!/usr/bin/env bash
# Tears the kvm2 lab down: every domain, volume and pool it made, its daemons (libvirtd, virtlogd,
# D-Bus and polkitd when it started them, two sshds, dnsmasq, the image server), its namespaces,
# users and polkit rule, and the contents of .lab except reports/ (the test run's own results).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
for part in lib network guest-network libvirt ssh image; do
  # shellcheck source=/dev/null
  source "$here/scripts/$part.sh"
done

# Definitions a previous libvirtd left behind (it crashed, or was killed) are only removable through
# a libvirtd, so one is started for the clean-up when the lab's is not answering.
libvirt_leftovers() {
  compgen -G '/etc/libvirt/qemu/*.xml' >/dev/null ||
    [[ -e /etc/libvirt/storage/$POOL_NAME.xml || -e /etc/libvirt/storage/$INACTIVE_POOL_NAME.xml ]]
}

clean_libvirt() {
  if ! libvirtd_answers >/dev/null 2>&1; then
    libvirt_leftovers || return 0
    log "starting libvirtd to remove leftover definitions"
    install -d -m 755 "$LAB_DIR" "$RUN_DIR" "$LOG_DIR"
    ensure_netns "$NS_HV"
    ensure_virtlogd
    ensure_dbus
    ensure_polkit
    ensure_libvirtd
  fi
  remove_domains
  remove_pools
}

clean_lab_dir() {
  [[ -d $LAB_DIR ]] || return 0
  find "$LAB_DIR" -mindepth 1 -maxdepth 1 ! -name reports -exec rm -rf {} +
}

main() {
  require_root
  clean_libvirt
  stop_libvirt_daemons
  remove_image_server
  remove_ssh
  remove_network
  remove_vm_route
  clean_lab_dir
  log "lab is down"
}

main "$@"
