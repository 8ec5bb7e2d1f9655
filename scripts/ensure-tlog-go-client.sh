#!/usr/bin/env bash
# Builds the Go side of packages/common/src/tlog's interoperability test (test/tlog-go: golang.org/x/mod's
# sumdb/note and sumdb/tlog, from the Go module proxy) into the machine-wide cache (scripts/go-build-cached.sh),
# so a second run reuses it. Prints the binary's path.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec bash "$here/go-build-cached.sh" "$here/../test/tlog-go" tlog-go tlog-go "the Go tlog client (test/tlog-go)"
