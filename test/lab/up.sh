#!/usr/bin/env bash
# Brings the kvm2 lab up (idempotent): two hypervisors, lab1 (this machine's Debian 12 libvirt) and
# lab2 (a Debian 13 root with libvirt 11.3), each in network, mount and pid namespaces of its own
# with its own libvirtd, virtlogd, D-Bus, polkitd, dnsmasq, VM bridge, pools and sshd; users, keys,
# known_hosts, an image server, a PostgreSQL for the replica tests; writes .lab/lab.json (with
# postgresUrl), .lab/guest.json and .lab/providers.yaml.
# Every daemon is checked by asking it on its socket; one that does not answer is restarted. When
# it fails or refuses, it stops whatever this run started.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
for part in lib packages host network guest-network libvirt ssh image legacy postgres; do
  # shellcheck source=/dev/null
  source "$here/scripts/$part.sh"
done

STARTED_HOSTS=()
STARTED_IMAGE_SERVER=0
STARTED_POSTGRES=0

# What this run started goes again when it does not finish: a refused or failed up.sh leaves
# nothing of its own running.
stop_what_this_run_started() {
  local rc=$? host
  ((rc != 0)) || return 0
  for host in "${STARTED_HOSTS[@]}"; do stop_host "$host"; done
  ((STARTED_IMAGE_SERVER == 0)) || remove_image_server
  ((STARTED_POSTGRES == 0)) || stop_postgres
  exit "$rc"
}

# Another lab (the one-hypervisor layout, or hosts this checkout did not start) would share names,
# addresses and routes with this one: refuse before starting anything.
refuse_foreign_lab() {
  local host
  ! netns_exists "$NS_LEGACY_HV" ||
    die "an old one-hypervisor lab is up (namespace $NS_LEGACY_HV): bring it down with the down.sh of the checkout that started it"
  for host in "${LAB_HOSTS[@]}"; do
    if ! host_init_pid "$host" >/dev/null && host_has_processes "$host"; then
      die "namespace $(host_var "$host" NETNS) runs processes this checkout did not start: bring that lab down with its own down.sh"
    fi
  done
}

write_config() {
  export LAB_DIR LAB_USER NOLV_USER LIBVIRT_SOCKET POOL_DIR POOL_NAME INACTIVE_POOL_NAME BRIDGE \
    IMAGE_SERVER_URL IMAGE_SERVER_VM_URL VM_LINK_ROOT_IP HOST_POOL_DIR HOST_RUN LAB_SRC POSTGRES_URL
  local host field
  for host in "${LAB_HOSTS[@]}"; do
    for field in NETNS HOSTNAME ADDR PORT BRIDGE_ADDR VM_NET; do export "${host^^}_$field"; done
    export "${host^^}_INIT_PID_FILE=$(host_init_pid_file "$host")"
    export "${host^^}_LIBVIRT_VERSION=$(virsh_on "$host" version --daemon | sed -n 's/^Running against daemon: *//p')"
  done
  node "$LAB_SRC/scripts/write-config.mjs"
}

main() {
  require_root
  trap stop_what_this_run_started EXIT
  refuse_foreign_lab
  ensure_packages
  choose_pool_dir
  install -d -m 755 "$LAB_DIR" "$RUN_DIR" "$LOG_DIR" "$HOSTS_DIR"
  ensure_network
  local host
  for host in "${LAB_HOSTS[@]}"; do ensure_host "$host"; done
  ensure_vm_route
  ensure_dhcp
  ensure_libvirt
  ensure_ssh
  ensure_image
  ensure_image_server
  postgres_running || STARTED_POSTGRES=1
  ensure_postgres
  write_config
  log "lab is up: $LAB_DIR/lab.json"
  log "providers config: $LAB_DIR/providers.yaml"
}

main "$@"
