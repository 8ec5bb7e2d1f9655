#!/usr/bin/env bash
# Builds test/ferretdb (FerretDB embedded with its SQLite backend: the MongoDB-wire server the MongoDB suites run
# against) into test/ferretdb/bin/ferretdb-test, only when that binary is missing or older than its sources, so a
# second run reuses it. Modules come from the Go module proxy into Go's module cache; Go's build cache makes a
# rebuild after a source change quick. Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/../test/ferretdb"

binary=bin/ferretdb-test
sources=(main.go go.mod go.sum)

up_to_date() {
  [ -x "$binary" ] || return 1
  for source in "${sources[@]}"; do
    [ "$source" -nt "$binary" ] && return 1
  done
  return 0
}

if up_to_date; then
  echo "$PWD/$binary"
  exit 0
fi

export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  echo "FATAL: go is not installed; it is needed to build the FerretDB test server (test/ferretdb)" >&2
  exit 1
fi

echo "building the FerretDB test server (test/ferretdb) with $(go version | cut -d' ' -f3)" >&2
started=$(date +%s)
mkdir -p bin
# FerretDB's SQLite backend is pure Go (modernc.org/sqlite): no C toolchain needed. The temporary name is this
# shell's own, so test processes building at the same moment do not write over each other.
GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -trimpath -o "$binary.$$.tmp" .
mv "$binary.$$.tmp" "$binary"
echo "built $binary in $(($(date +%s) - started)) s" >&2
echo "$PWD/$binary"
