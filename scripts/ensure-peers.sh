#!/usr/bin/env bash
# Installs the npm peers of `npm run bench -- peers` (bench/peers/package.json, every version pinned, resolved by
# its own package-lock.json) into bench/peers/node_modules, and prints that directory. `npm ci` runs only when
# the lock file changed since the last install here (a stamp beside the modules), so a second run reuses it.
# The workspace's `npm ci` never installs these: `npm test` neither needs nor runs the peers.
set -euo pipefail
cd "$(dirname "$0")/../bench/peers"

key=$(sha256sum package-lock.json | cut -c1-16)
stamp=node_modules/.anchor-peers-$key
if [ -f "$stamp" ]; then
  echo "$PWD/node_modules"
  exit 0
fi
echo "installing the npm peers (bench/peers/package-lock.json)" >&2
# Install scripts stay off: every peer is plain JavaScript, and nothing here needs a native build.
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2
touch "$stamp"
echo "$PWD/node_modules"
