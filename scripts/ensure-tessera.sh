#!/usr/bin/env bash
# Builds bench/peers/tessera (the Tessera peer of `npm run bench -- peers`: transparency-dev's Tessera library,
# pinned in its go.mod, with POSIX storage, behind a minimal HTTP front of ours) and prints the binary's path,
# cached in ~/.cache/anchor/tessera (scripts/go-build-cached.sh).
set -euo pipefail
here="$(dirname "$0")"
exec bash "$here/go-build-cached.sh" "$here/../bench/peers/tessera" tessera tessera-peer "the Tessera peer (bench/peers/tessera)"
