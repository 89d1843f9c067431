#!/usr/bin/env bash
# `npm test`: the formatting check, the Debian packages every test needs (before any test: unit tests read seeds with
# isoinfo/blkid), unit tests, then the lab (brought up here, idempotently), lab integration and browser
# tests, the security tests, the real-guest tests, then the lab tear-down test. Prints `N passed, N failed` from vitest's JSON reports.
set -uo pipefail
cd "$(dirname "$0")/.."

reports=.lab/reports
rm -rf "$reports" && mkdir -p "$reports"

status=0
run() { # run NAME VITEST_ARGS...: one vitest run with its own JSON report
  local name=$1; shift
  npx vitest run "$@" --reporter=default --reporter=json --outputFile.json="$reports/$name.json" || status=1
}

# The tree is formatted by Prettier (npm run format); a change that is not fails the run, saying so.
if ! npx prettier --check . --log-level warn; then
  echo "formatting: the files above are not formatted; run npm run format" >&2
  status=1
fi

if ! bash test/lab/install-packages.sh; then
  # Unit tests still run: the ones needing a missing tool fail naming its Debian package.
  echo "the Debian packages the tests need could not be installed" >&2
  status=1
fi
run unit --project unit
if bash test/lab/up.sh; then
  run lab --project lab --project e2e
  run security --project security
  # A real guest OS under software emulation (minutes): its own step, since every app it starts
  # sweeps orphans on the lab's hypervisors (another test's domains, from its store's view).
  run guest --project guest
  run teardown --project teardown
else
  echo "the lab did not come up: lab, browser and tear-down tests cannot run" >&2
  status=1
fi

node test/count-results.mjs "$reports" || status=1
exit $status
