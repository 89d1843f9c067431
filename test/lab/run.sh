#!/usr/bin/env bash
# `npm run lab`: brings the lab up, builds the app when the build is missing or older than the
# sources, then serves it on :3000 (foreground) with the lab's providers config plus the real guest
# image (`debian`), so a Proxy made from the dashboard boots and becomes Ready.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=/dev/null
source "$here/scripts/lib.sh"

# The build is stale when any source the app is built from is newer than it.
build_is_stale() {
  [[ -f $REPO_DIR/.next/BUILD_ID ]] || return 0
  local newer
  newer=$(find "$REPO_DIR/app" "$REPO_DIR/components" "$REPO_DIR/server" "$REPO_DIR/public" \
    "$REPO_DIR"/*.ts "$REPO_DIR"/*.mjs "$REPO_DIR"/*.json -newer "$REPO_DIR/.next/BUILD_ID" \
    -type f ! -name next-env.d.ts ! -name '*.tsbuildinfo' -print -quit 2>/dev/null)
  [[ -n $newer ]]
}

# The providers config to serve with: the lab's plus the guest image, built once (about 90 s from
# Debian's archive, then cached in /var/cache/kvm2lab). If the build fails the app still comes up,
# offering the empty `lab` image alone.
app_providers_config() {
  local image
  log "building the guest image, or finding it cached (test/lab/guest-image/build.sh)"
  if image=$(bash "$here/guest-image/build.sh") && node "$here/scripts/write-app-config.mjs" "$image"; then
    return 0
  fi
  log "the guest image could not be built (see above): serving with the lab's image alone"
  echo "$LAB_DIR/providers.yaml"
}

main() {
  bash "$here/up.sh"
  cd "$REPO_DIR"
  local config
  config=$(app_providers_config)
  if build_is_stale; then
    log "building the app (npx next build)"
    npx next build
  fi
  mkdir -p "$LAB_DIR/data"
  log "serving on http://localhost:3000 (loopback only) with PROVIDERS_CONFIG=$config"
  PROVIDERS_CONFIG="$config" DATA_DIR="$LAB_DIR/data" exec npx next start -H 127.0.0.1 -p 3000
}

main "$@"
