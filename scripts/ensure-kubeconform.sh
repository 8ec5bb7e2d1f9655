#!/usr/bin/env bash
# Makes kubeconform and the Kubernetes schemas it validates against available offline: kubeconform built from
# the Go module proxy, and one standalone strict schema per kind written from the OpenAPI document of the
# Kubernetes release below (the k8s.io/kubernetes module's api/openapi-spec/swagger.json, through the same
# proxy; scripts/k8s-json-schemas.mjs). Both cached machine-wide (ANCHOR_CACHE_DIR, default ~/.cache/anchor);
# a second run installs nothing. Prints the kubeconform command to use on its last line (files or - follow).
set -euo pipefail

kubeconform_version=v0.6.7
kubernetes_version=v1.31.4
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}"
bin="$cache/kubeconform-$kubeconform_version"
schemas="$cache/k8s-schemas-$kubernetes_version"
export PATH="$PATH:/usr/local/go/bin"

need_go() {
  command -v go >/dev/null 2>&1 || { echo "FATAL: go is needed to build kubeconform and fetch the Kubernetes schemas" >&2; exit 1; }
}

if [ ! -x "$bin/kubeconform" ]; then
  need_go
  echo "building kubeconform $kubeconform_version from the Go module proxy" >&2
  mkdir -p "$bin"
  GOBIN="$bin" CGO_ENABLED=0 nice -n 10 go install "github.com/yannh/kubeconform/cmd/kubeconform@$kubeconform_version" >&2
fi

if [ ! -f "$schemas/.complete" ]; then
  need_go
  echo "writing the Kubernetes $kubernetes_version schemas from its OpenAPI document" >&2
  modules="$(mktemp -d "$cache/k8s-module.XXXXXX")"
  trap 'chmod -R u+w "$modules" 2>/dev/null; rm -rf "$modules"' EXIT
  dir="$(GOMODCACHE="$modules" GOFLAGS=-modcacherw go mod download -json "k8s.io/kubernetes@$kubernetes_version" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).Dir))')"
  rm -rf "$schemas.partial"
  node "$root/scripts/k8s-json-schemas.mjs" "$dir/api/openapi-spec/swagger.json" "$schemas.partial" >&2
  touch "$schemas.partial/.complete"
  rm -rf "$schemas"
  mv "$schemas.partial" "$schemas"
fi
echo "$bin/kubeconform -strict -summary -schema-location $schemas/{{.ResourceKind}}{{.KindSuffix}}.json"
