#!/usr/bin/env bash
# Builds bench/peers/tessera (the Tessera peer of `npm run bench -- peers`: transparency-dev's Tessera library,
# pinned in its go.mod, with POSIX storage) and prints the binary's path. The binary lives in a machine-wide cache
# keyed by a hash of its sources (ANCHOR_CACHE_DIR, default ~/.cache/anchor), so a second run reuses it and a
# source change builds a new one. Modules come from the Go module proxy into Go's module cache.
set -euo pipefail
cd "$(dirname "$0")/../bench/peers/tessera"

sources=(main.go go.mod go.sum)
key=$(cat "${sources[@]}" | sha256sum | cut -c1-16)
cache="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}/tessera"
binary="$cache/tessera-peer-$key"

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  echo "FATAL: go is not installed; it is needed to build the Tessera peer (bench/peers/tessera)" >&2
  exit 1
fi

echo "building the Tessera peer (bench/peers/tessera) with $(go version | cut -d' ' -f3)" >&2
started=$(date +%s)
mkdir -p "$cache"
GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -trimpath -o "$binary.$$.tmp" .
mv "$binary.$$.tmp" "$binary"
echo "built $binary in $(($(date +%s) - started)) s" >&2
echo "$binary"
