#!/usr/bin/env bash
# Prepares the W3C-CCG DID Resolution test suite (w3c-ccg/did-resolution-mocha-test-suite, BSD 3-Clause,
# Digital Bazaar) at a pinned commit in the machine-wide cache (ANCHOR_CACHE_DIR, default ~/.cache/anchor), with
# its test dependencies (mocha, chai, ajv) from npm. Its two GitHub-only helpers are replaced by stand-ins: the
# implementation registry reads the one resolver under test from $DID_SUITE_CONFIG, and the report-matrix
# helpers do nothing (mocha's spec reporter prints the results). Run by services/node/test/w3c-did-resolution-suite.test.ts.
# DID_RESOLUTION_SUITE_GIT names another clone to fetch the commit from (default: GitHub). Prints the suite's directory.
set -euo pipefail

commit=2649fdf719beadbd3c684d358eea23c3c2e514fe
dir="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}/did-resolution-suite-${commit:0:12}"
marker="$dir/.installed"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [ -f "$marker" ]; then
  echo "$dir"
  exit 0
fi

rm -rf "$dir"
git init -q "$dir"
git -C "$dir" fetch -q --depth 1 \
  "${DID_RESOLUTION_SUITE_GIT:-https://github.com/w3c-ccg/did-resolution-mocha-test-suite.git}" "$commit"
git -C "$dir" checkout -q FETCH_HEAD
cd "$dir"
# The suite's own package.json names the GitHub-only helpers; the run needs only these, pinned.
cat > package.json <<'JSON'
{ "name": "did-resolution-suite-run", "private": true, "type": "module" }
JSON
npm install --no-audit --no-fund --no-save mocha@11.7.0 chai@5.2.1 ajv@8.18.0 >&2
mkdir -p node_modules/vc-test-suite-implementations node_modules/mocha-w3c-interop-reporter
echo '{ "name": "vc-test-suite-implementations", "type": "module", "main": "index.js" }' \
  > node_modules/vc-test-suite-implementations/package.json
cat > node_modules/vc-test-suite-implementations/index.js <<'JS'
import { readFileSync } from 'node:fs';
export function filterByTag() {
  const settings = JSON.parse(readFileSync(process.env.DID_SUITE_CONFIG, 'utf8'));
  return { match: new Map([['anchor node', { settings }]]) };
}
JS
echo '{ "name": "mocha-w3c-interop-reporter", "type": "module", "main": "index.js" }' \
  > node_modules/mocha-w3c-interop-reporter/package.json
echo 'export const helpers = { setupMatrix() {}, setupRow() {} };' > node_modules/mocha-w3c-interop-reporter/index.js
touch "$marker"
echo "$dir"
