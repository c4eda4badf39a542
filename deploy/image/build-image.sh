#!/usr/bin/env bash
# Builds the topoplace container image (deploy/image/Containerfile) from the Debian
# packages in DEB_DIR, tagged topoplace:VERSION, with the first container tool that can
# build here (podman, buildah, docker). Exit 3 with the reason when none can.
#
# Usage: build-image.sh DEB_DIR VERSION
set -euo pipefail
debs=$1
version=$2
context=$(mktemp -d /tmp/topoplace-image.XXXXXX)
trap 'rm -rf "$context"' EXIT
cp "$(dirname "$0")/Containerfile" "$context/"
cp "$debs"/topoplace-*.deb "$context/"

if command -v podman >/dev/null; then
  exec podman build -t "topoplace:$version" -f "$context/Containerfile" "$context"
elif command -v buildah >/dev/null; then
  exec buildah bud -t "topoplace:$version" -f "$context/Containerfile" "$context"
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  exec docker build -t "topoplace:$version" -f "$context/Containerfile" "$context"
fi
reason="no container tool can build here: podman and buildah are not installed"
if command -v docker >/dev/null; then
  reason+=", and docker is only a client ($(docker info 2>&1 | grep -m1 -i 'cannot connect\|error' || echo 'no engine'))"
fi
echo "build-image: $reason. The packages are in $debs; the recipe is deploy/image/Containerfile." >&2
exit 3
