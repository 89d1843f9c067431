#!/usr/bin/env bash
# Tears the kvm2 lab down: both hosts with everything in them (killing a host's pid namespace init
# ends its libvirtd, virtlogd, D-Bus, polkitd, dnsmasq, sshd and VMs; its definitions, pools and
# logs live in .lab/hosts/<host> and go with .lab), their namespaces, the VM route, the users, the
# image server, the lab's PostgreSQL (its cluster lives in .lab/postgres), an old one-hypervisor lab if one is found, and the contents of .lab except reports/
# (the test run's own results). The caches in /var/cache/kvm2lab stay.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
for part in lib host network guest-network libvirt ssh image legacy postgres; do
  # shellcheck source=/dev/null
  source "$here/scripts/$part.sh"
done

clean_lab_dir() {
  [[ -d $LAB_DIR ]] || return 0
  find "$LAB_DIR" -mindepth 1 -maxdepth 1 ! -name reports -exec rm -rf {} +
}

main() {
  require_root
  local host
  for host in "${LAB_HOSTS[@]}"; do stop_host "$host"; done
  remove_legacy_lab
  remove_image_server
  stop_postgres
  remove_network
  remove_vm_route
  remove_users
  remove_pool_dirs
  restore_kvm_device
  clean_lab_dir
  log "lab is down"
}

main "$@"
