#!/usr/bin/env bash
# Installs the Debian packages every test needs (the lab's list in scripts/lib.sh: libvirt, QEMU,
# genisoimage for the seed tests' isoinfo, chromium for the browser tests, ...). test/run-all.sh
# runs it before the first test step, so unit tests that read seeds with isoinfo/blkid find them on
# a fresh machine too; up.sh runs it again (a no-op once installed).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=/dev/null
source "$here/scripts/lib.sh"
# shellcheck source=/dev/null
source "$here/scripts/packages.sh"

mapfile -t missing < <(missing_packages)
((${#missing[@]} == 0)) && exit 0
[[ $(id -u) -eq 0 ]] || die "missing Debian packages: ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
ensure_packages
