#!/usr/bin/env bash
# Builds kube-apiserver and kube-scheduler from the k8s.io/kubernetes module at the version
# the wrapper module tests/integration/k8s/kube/go.mod pins (its replace lines point the
# staging modules, k8s.io/api and the rest, at their published versions; go.sum holds
# every checksum), with a Go of at least 1.26 (deploy/go-toolchain.sh). Modules come
# through the Go module proxy; the binaries land in a cache outside the repo and are
# reused when present: a fresh machine downloads and builds once (about 10 minutes on 2
# cores).
#
#   tests/integration/k8s/build_kube.sh            # prints the bin dir on stdout
#   TOPOPLACE_KUBE_CACHE=/some/dir build_kube.sh   # another cache
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
module="$here/kube"
version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$module/go.mod")
[[ $version =~ ^v1\.([0-9]+)\.[0-9]+$ ]] ||
  { echo "build_kube: no k8s.io/kubernetes version in $module/go.mod" >&2; exit 1; }
minor=${BASH_REMATCH[1]}
if [[ -z ${TOPOPLACE_KUBE_CACHE:-} ]]; then
  root=/var/cache/topoplace
  if ! mkdir -p "$root" 2>/dev/null || [[ ! -w $root ]]; then
    root=${XDG_CACHE_HOME:-$HOME/.cache}/topoplace
  fi
  TOPOPLACE_KUBE_CACHE=$root/kube-$version
fi
cache=$TOPOPLACE_KUBE_CACHE
bin="$cache/bin"
binaries=(kube-apiserver kube-scheduler)

have_all() {
  for b in "${binaries[@]}"; do [[ -x "$bin/$b" ]] || return 1; done
}

if have_all; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
# One build at a time per cache (parallel ctest runs, several engineers).
exec 9>"$cache/.lock"
flock 9
if have_all; then
  echo "$bin"
  exit 0
fi

go=$("$here/../../../deploy/go-toolchain.sh")
work="$cache/work"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
echo "build_kube: building ${binaries[*]} $version with $("$go" env GOVERSION) (several minutes on 2 cores)" >&2
# The version the binaries report (kube-apiserver --version, /version), as Kubernetes'
# own release build stamps it.
stamp="-X k8s.io/component-base/version.gitVersion=$version"
stamp+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
stamp+=" -X k8s.io/component-base/version.gitTreeState=clean"
packages=()
for b in "${binaries[@]}"; do packages+=("k8s.io/kubernetes/cmd/$b"); done
GOFLAGS=-mod=readonly GOTOOLCHAIN=local GOMODCACHE="${GOMODCACHE:-$(dirname "$cache")/go-mod}" \
  GOCACHE="${GOCACHE:-$(dirname "$cache")/go-build}" \
  "$go" build -C "$module" -ldflags "$stamp" -o "$work/bin/" "${packages[@]}" >&2
mkdir -p "$bin"
for b in "${binaries[@]}"; do mv "$work/bin/$b" "$bin/$b"; done
echo "$bin"
