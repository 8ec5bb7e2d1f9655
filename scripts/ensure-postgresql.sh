#!/usr/bin/env bash
# Makes Debian's PostgreSQL server binaries available for the did:plc peer of `npm run bench -- peers` and prints
# their directory (/usr/lib/postgresql/<major>/bin): installs Debian's `postgresql` package when initdb is missing
# (one `apt-get update` first). It starts nothing: the bench runs a private cluster (initdb in a temporary
# directory, loopback only) as the `postgres` user the package creates, and removes it at the end.
set -euo pipefail

bin_dir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

if dir=$(bin_dir); then
  echo "$dir"
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "FATAL: PostgreSQL is not installed and cannot be installed here (needs root and apt-get)" >&2
  exit 1
fi
echo "PostgreSQL is not installed; installing Debian's package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends postgresql >/dev/null
dir=$(bin_dir) || {
  echo "FATAL: Debian's postgresql package installed no initdb" >&2
  exit 1
}
echo "$dir"
