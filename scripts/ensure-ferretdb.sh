#!/usr/bin/env bash
# Builds test/ferretdb (FerretDB embedded with its SQLite backend: the MongoDB-wire server the MongoDB suites run
# against) and prints the binary's path. The binary lives in a machine-wide cache keyed by a hash of its sources
# (ANCHOR_CACHE_DIR, default ~/.cache/anchor), so a second run on the same machine reuses it, from this checkout
# or from a fresh clone (CI clones anew), and a source change builds a new one. Modules come from the Go module
# proxy into Go's module cache; Go's build cache makes a rebuild after a source change quick.
set -euo pipefail
cd "$(dirname "$0")/../test/ferretdb"

sources=(main.go go.mod go.sum)
key=$(cat "${sources[@]}" | sha256sum | cut -c1-16)
cache="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}/ferretdb"
binary="$cache/ferretdb-test-$key"

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  echo "FATAL: go is not installed; it is needed to build the FerretDB test server (test/ferretdb)" >&2
  exit 1
fi

echo "building the FerretDB test server (test/ferretdb) with $(go version | cut -d' ' -f3)" >&2
started=$(date +%s)
mkdir -p "$cache"
# FerretDB's SQLite backend is pure Go (modernc.org/sqlite): no C toolchain needed. The temporary name is this
# shell's own, so test processes building at the same moment do not write over each other.
GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -trimpath -o "$binary.$$.tmp" .
mv "$binary.$$.tmp" "$binary"
echo "built $binary in $(($(date +%s) - started)) s" >&2
echo "$binary"
