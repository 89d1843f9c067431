# Debian packages the lab needs; installs only what is missing.

missing_packages() {
  local pkg status
  for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || echo "$pkg"
  done
}

ensure_packages() {
  local missing
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) && return 0
  command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get to install them"
  log "installing ${missing[*]}"
  # Without systemd, package scripts would start libvirtd/sshd/dbus through their init scripts,
  # in the root namespace and with the system's configs. policy-rc.d forbids that for the install;
  # the lab starts its own daemons afterwards.
  local own_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  local rc=0
  DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    rc=$?
  ((own_policy)) && rm -f /usr/sbin/policy-rc.d
  ((rc == 0)) || die "apt-get failed ($rc) installing ${missing[*]}"
}
