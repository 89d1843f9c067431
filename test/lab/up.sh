#!/usr/bin/env bash
# Brings the kvm2 lab up (idempotent): a libvirtd in its own network namespace, two "remote
# hosts" (namespaces with an sshd each), users, keys, pools, a VM bridge with DHCP, an image
# server; writes .lab/lab.json and .lab/providers.yaml. What is already up is checked, not restarted.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
for part in lib packages network guest-network libvirt ssh image; do
  # shellcheck source=/dev/null
  source "$here/scripts/$part.sh"
done

write_config() {
  export LAB_DIR LAB_USER NOLV_USER LIBVIRT_SOCKET NS_LAB1 NS_LAB2 NS_HV LAB1_ADDR LAB1_PORT LAB2_ADDR \
    LAB2_PORT POOL_DIR POOL_NAME INACTIVE_POOL_NAME BRIDGE BRIDGE_ADDR LIBVIRTD_PID IMAGE_SERVER_URL
  node "$LAB_SRC/scripts/write-config.mjs"
}

main() {
  require_root
  ensure_packages
  choose_pool_dir
  install -d -m 755 "$LAB_DIR" "$RUN_DIR" "$LOG_DIR"
  ensure_network
  ensure_vm_route
  ensure_libvirt
  ensure_ssh
  ensure_image
  ensure_image_server
  write_config
  write_guest_json
  log "lab is up: $LAB_DIR/lab.json"
  log "providers config: $LAB_DIR/providers.yaml"
}

main "$@"
