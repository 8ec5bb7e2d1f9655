#!/usr/bin/env bash
# Makes Debian's haproxy available for the replica suites (packages/testing/src/replicas puts one in front of
# three replicas of a service): installs the package when the binary is missing (one `apt-get update` first)
# and prints the binary's path. It does not start a daemon: each suite runs its own haproxy on loopback ports.
# With CI=true a missing haproxy that cannot be installed is fatal; elsewhere it is a warning.
set -euo pipefail

fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "FATAL: $1; CI=true: the replica suites must run in CI" >&2
    exit 1
  fi
  echo "WARNING: $1; replica suites will be skipped (allowed only outside CI)" >&2
  exit 0
}

find_haproxy() { command -v haproxy 2>/dev/null || { [ -x /usr/sbin/haproxy ] && echo /usr/sbin/haproxy; }; }

if [ -z "$(find_haproxy || true)" ]; then
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "haproxy is not installed and cannot be installed here (needs root and apt-get)"
  fi
  echo "haproxy is not installed; installing Debian's package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d in containers keeps the package from starting its own daemon; it is not needed anyway.
  apt-get install -y -qq --no-install-recommends haproxy >/dev/null
fi
binary="$(find_haproxy || true)"
[ -n "$binary" ] || fail "haproxy is still missing after the install"
echo "$binary"
