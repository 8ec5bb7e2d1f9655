#!/usr/bin/env bash
# Installs schemathesis (the OpenAPI fuzzer run against each service's /openapi.json by
# test/integration/src/openapi-fuzz.test.ts) into a venv under .cache/schemathesis-venv, with every package pinned
# in scripts/schemathesis-requirements.txt, only when that venv was not made from exactly that list, so a second
# run reuses it. Packages come from PyPI through pip. Prints the path of the schemathesis executable.
set -euo pipefail
cd "$(dirname "$0")/.."

requirements="$PWD/scripts/schemathesis-requirements.txt"
venv="$PWD/.cache/schemathesis-venv"
marker="$venv/.installed-$(sha256sum "$requirements" | cut -c1-16)"

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
