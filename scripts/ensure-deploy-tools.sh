#!/usr/bin/env bash
# Makes the tools that check the deployment files available: `docker-compose` (Debian's package: reads and
# validates the compose file; the compose-as-processes test resolves it with `docker-compose config`) and a
# kustomize renderer for the Kubernetes manifests: `kubectl kustomize` when kubectl is installed, else
# kustomize built from the Go module proxy into the machine-wide cache (ANCHOR_CACHE_DIR, default
# ~/.cache/anchor). Prints the kustomize command to use on its last line. A second run installs nothing.
set -euo pipefail

if ! command -v docker-compose >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "docker-compose is not installed; installing Debian's package" >&2
    export DEBIAN_FRONTEND=noninteractive
    # One index refresh per machine: ensure-rabbitmq.sh may have done it already.
    [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
    apt-get install -y -qq --no-install-recommends docker-compose >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends docker-compose >/dev/null; }
  elif [ "${CI:-}" = "true" ]; then
    echo "FATAL: docker-compose is missing and cannot be installed (needs root and apt-get)" >&2
    exit 1
  fi
fi

if command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then
  echo "kubectl kustomize"
  exit 0
fi

version=v5.5.0
cache="${ANCHOR_CACHE_DIR:-$HOME/.cache/anchor}/kustomize-$version"
if [ ! -x "$cache/kustomize" ]; then
  export PATH="$PATH:/usr/local/go/bin"
  if ! command -v go >/dev/null 2>&1; then
    echo "FATAL: neither kubectl nor go is installed; one is needed to render the Kubernetes manifests" >&2
    exit 1
  fi
  echo "building kustomize $version from the Go module proxy" >&2
  mkdir -p "$cache"
  GOBIN="$cache" CGO_ENABLED=0 nice -n 10 go install "sigs.k8s.io/kustomize/kustomize/v5@$version" >&2
fi
echo "$cache/kustomize build"
