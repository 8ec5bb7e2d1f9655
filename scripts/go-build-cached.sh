#!/usr/bin/env bash
# Builds the Go program in DIR (its .go files, go.mod and go.sum) into a machine-wide cache keyed by a hash of those
# sources (ANCHOR_CACHE_DIR, default ~/.cache/anchor) and prints the binary's path: a second run on the same machine
# reuses it, from this checkout or a fresh clone, and a source change builds a new one. Modules come from the Go
# module proxy into Go's module cache; Go's build cache makes a rebuild after a source change quick.
#
#   scripts/go-build-cached.sh DIR CACHE-NAME BINARY-PREFIX "what it is, for messages"
set -euo pipefail
dir=$1 name=$2 prefix=$3 what=$4
cd "$dir"

# Every Go file of the program (test/tlog-go has two), so a change to any one builds a new binary.
sources=(*.go go.mod go.sum)
key=$(cat "${sources[@]}" | sha256sum | cut -c1-16)
cache="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}/$name"
binary="$cache/$prefix-$key"

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  echo "FATAL: go is not installed; it is needed to build $what" >&2
  exit 1
fi

echo "building $what with $(go version | cut -d' ' -f3)" >&2
started=$(date +%s)
mkdir -p "$cache"
# Pure Go (CGO off): no C toolchain needed. The temporary name is this shell's own, so processes building at the
# same moment do not write over each other.
GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -trimpath -o "$binary.$$.tmp" .
mv "$binary.$$.tmp" "$binary"
echo "built $binary in $(($(date +%s) - started)) s" >&2
echo "$binary"
