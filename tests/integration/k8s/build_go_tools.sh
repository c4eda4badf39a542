#!/usr/bin/env bash
# Builds the `tool` commands of one of the tests' Go modules (tests/integration/k8s/NAME/
# go.mod, go.sum committed beside it) with a Go of at least 1.26 (deploy/go-toolchain.sh),
# modules through the Go module proxy, into a cache outside the repo that later runs reuse:
# /var/cache/topoplace/NAME-VERSION/bin (or ~/.cache/topoplace), VERSION that of MODULE in
# go.mod. One build at a time per cache.
#
#   build_go_tools.sh kube k8s.io/kubernetes [LDFLAGS]   # prints the bin dir on stdout
#   build_go_tools.sh helm helm.sh/helm/v4 '-X helm.sh/helm/v4/internal/version.version={version}'
#
# In LDFLAGS, {version} stands for MODULE's version.
#
# Environment: TOPOPLACE_TOOLS_CACHE (the bin dir's parent, instead of NAME-VERSION),
# GOMODCACHE and GOCACHE (default: go-mod and go-build beside it).
set -euo pipefail

name=$1 module_path=$2 ldflags=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
module="$here/$name"
version=$(awk -v m="$module_path" '$1 == m { print $2; exit }' "$module/go.mod")
[[ -n $version ]] || { echo "build_go_tools: $module_path is not in $module/go.mod" >&2; exit 1; }
ldflags=${ldflags//\{version\}/$version}
mapfile -t packages < <(awk '/^tool \($/ { in_tool = 1; next } in_tool && /^\)/ { in_tool = 0 }
  in_tool { print $1 } /^tool [^(]/ { print $2 }' "$module/go.mod")
((${#packages[@]} > 0)) || { echo "build_go_tools: no tool lines in $module/go.mod" >&2; exit 1; }
if [[ -z ${TOPOPLACE_TOOLS_CACHE:-} ]]; then
  root=/var/cache/topoplace
  if ! mkdir -p "$root" 2>/dev/null || [[ ! -w $root ]]; then
    root=${XDG_CACHE_HOME:-$HOME/.cache}/topoplace
  fi
  TOPOPLACE_TOOLS_CACHE=$root/$name-$version
fi
cache=$TOPOPLACE_TOOLS_CACHE
bin="$cache/bin"

have_all() {
  for p in "${packages[@]}"; do [[ -x "$bin/$(basename "$p")" ]] || return 1; done
}

if have_all; then
  echo "$bin"
  exit 0
fi
mkdir -p "$cache"
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
echo "build_go_tools: building ${packages[*]} ($module_path $version) with $("$go" env GOVERSION)" >&2
GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=local GOMODCACHE="${GOMODCACHE:-$(dirname "$cache")/go-mod}" \
  GOCACHE="${GOCACHE:-$(dirname "$cache")/go-build}" \
  "$go" build -C "$module" -ldflags "$ldflags" -o "$work/bin/" "${packages[@]}" >&2
mkdir -p "$bin"
for p in "${packages[@]}"; do mv "$work/bin/$(basename "$p")" "$bin/"; done
echo "$bin"
