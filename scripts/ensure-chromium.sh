#!/usr/bin/env bash
# Makes Debian's chromium available for the explorer's browser tests (packages/explorer/test: playwright-core
# drives it headless; nothing is downloaded at test time): installs the package when the binary is missing
# (one `apt-get update` first) and prints the binary's path.
# With CI=true a missing chromium that cannot be installed is fatal; elsewhere it is a warning.
set -euo pipefail

fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "FATAL: $1; CI=true: the explorer's browser tests must run in CI" >&2
    exit 1
  fi
  echo "WARNING: $1; the explorer's browser tests will be skipped (allowed only outside CI)" >&2
  exit 0
}

find_chromium() { command -v chromium 2>/dev/null || { [ -x /usr/bin/chromium ] && echo /usr/bin/chromium; }; }

if [ -z "$(find_chromium || true)" ]; then
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "chromium is not installed and cannot be installed here (needs root and apt-get)"
  fi
  echo "chromium is not installed; installing Debian's package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
binary="$(find_chromium || true)"
[ -n "$binary" ] || fail "chromium is still missing after the install"
echo "$binary"
