#!/usr/bin/env bash
# Builds test/ferretdb (FerretDB embedded with its SQLite backend: the MongoDB-wire server the MongoDB suites run
# against) and prints the binary's path, cached in ~/.cache/anchor/ferretdb keyed by a hash of its sources
# (scripts/go-build-cached.sh), so a second run on the same machine reuses it, from this checkout or from a fresh
# clone (CI clones anew). FerretDB's SQLite backend is pure Go (modernc.org/sqlite): no C toolchain needed.
set -euo pipefail
here="$(dirname "$0")"
exec bash "$here/go-build-cached.sh" "$here/../test/ferretdb" ferretdb ferretdb-test "the FerretDB test server (test/ferretdb)"
