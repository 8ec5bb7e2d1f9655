#!/usr/bin/env bash
# Builds every image of a deployment from deploy/docker/Dockerfile (one target each: the four services and the
# kms-init and federation-init jobs), tags each <registry>/<name>:<tag> and pushes it. The names are the ones
# deploy/k8s/overlays/production rewrites anchor-network/* to. Usage: scripts/push-images.sh <registry> <tag>,
# e.g. scripts/push-images.sh registry.example.com/anchor 0.1.0. DRY_RUN=1 prints the commands instead.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <registry, e.g. registry.example.com/anchor> <tag, e.g. 0.1.0>" >&2
  exit 2
fi
registry="${1%/}"
tag="$2"
case "$tag" in latest | '') echo "give a version tag, not '$tag' (the overlays pin versions)" >&2; exit 2 ;; esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
run() { if [ "${DRY_RUN:-}" = 1 ]; then echo "$*"; else "$@"; fi; }

for target in node vct-log kms vcs kms-init federation-init; do
  image="$registry/$target:$tag"
  run docker build --file "$root/deploy/docker/Dockerfile" --target "$target" --tag "$image" "$root"
  run docker push "$image"
done
