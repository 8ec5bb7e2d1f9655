#!/usr/bin/env bash
# Installs schemathesis (the OpenAPI fuzzer run against each service's /openapi.json by
# test/integration/src/openapi-fuzz.test.ts) into a venv in a machine-wide cache (ANCHOR_CACHE_DIR, default
# ~/.cache/anchor) named by a hash of scripts/schemathesis-requirements.txt, where every package is pinned, so a
# second run on the same machine reuses it from any clone (CI clones afresh) and a changed list makes a new one.
# Packages come from PyPI through pip. Prints the path of the schemathesis executable.
set -euo pipefail
cd "$(dirname "$0")/.."

requirements="$PWD/scripts/schemathesis-requirements.txt"
key=$(sha256sum "$requirements" | cut -c1-16)
venv="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}/schemathesis-$key"
marker="$venv/.installed"

mkdir -p "$(dirname "$venv")"
# A venv cannot be moved once made (its scripts name their own path), so concurrent runs take turns on a lock
# instead of building beside it; the marker is written last, so a half-made venv is made again.
exec 9>"$venv.lock"
flock 9

if [ -f "$marker" ] && [ -x "$venv/bin/schemathesis" ]; then
  echo "$venv/bin/schemathesis"
  exit 0
fi

python=""
for candidate in python3 python; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    python="$candidate"
    break
  fi
done
if [ -z "$python" ]; then
  echo "FATAL: python3 >= 3.10 with venv and ensurepip is needed to install schemathesis (apt-get install python3-venv)" >&2
  exit 1
fi

echo "installing schemathesis into $venv with $("$python" --version) from scripts/schemathesis-requirements.txt" >&2
started=$(date +%s)
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" >&2
"$venv/bin/pip" check --disable-pip-version-check >&2
touch "$marker"
echo "installed $("$venv/bin/schemathesis" --version) in $(($(date +%s) - started)) s" >&2
echo "$venv/bin/schemathesis"
