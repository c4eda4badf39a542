#!/usr/bin/env bash
# Prints the path of a Go command of at least the version the tests' Go modules need
# (tests/integration/k8s/kube/go.mod: Kubernetes v1.36 wants Go 1.26), installing one
# when the machine has none. Debian 12 packages Go 1.19 only, so the toolchain comes the
# way the go command itself fetches one (GOTOOLCHAIN): the golang.org/toolchain module
# from the Go module proxy, checked against the SHA-256 pinned here, unpacked into
# /var/cache/topoplace (or ~/.cache/topoplace) once per machine.
#
#   go=$(deploy/go-toolchain.sh)   # e.g. /usr/local/go/bin/go
#
# Environment: GOPROXY (its first entry; default https://proxy.golang.org),
# TOPOPLACE_CACHE (default /var/cache/topoplace).
set -euo pipefail

want_minor=26
version=go1.26.8
# sha256sum of v0.0.1-go1.26.8.linux-amd64.zip as proxy.golang.org served it on 2026-12-02.
sha256=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7

# Whether GO runs and is go1.N with N >= want_minor.
new_enough() {
  local v
  v=$("$1" env GOVERSION 2>/dev/null) || return 1
  [[ $v =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] >= want_minor))
}

for candidate in "$(command -v go || true)" /usr/local/go/bin/go; do
  if [[ -n $candidate && -x $candidate ]] && new_enough "$candidate"; then
    echo "$candidate"
    exit 0
  fi
done

cache=${TOPOPLACE_CACHE:-/var/cache/topoplace}
if ! mkdir -p "$cache" 2>/dev/null || [[ ! -w $cache ]]; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/topoplace
  mkdir -p "$cache"
fi
module=golang.org/toolchain@v0.0.1-$version.linux-amd64
go="$cache/$module/bin/go"
if [[ -x $go ]] && new_enough "$go"; then
  echo "$go"
  exit 0
fi
[[ $(uname -m) == x86_64 ]] || { echo "go-toolchain: no Go >= 1.$want_minor and no pinned toolchain for $(uname -m)" >&2; exit 1; }
exec 9>"$cache/.go-toolchain.lock"
flock 9
if [[ ! -x $go ]]; then
  proxy=${GOPROXY:-https://proxy.golang.org}
  proxy=${proxy%%,*}
  zip="$cache/$version.zip"
  echo "go-toolchain: fetching $module from $proxy" >&2
  curl -fsS -o "$zip.part" "$proxy/golang.org/toolchain/@v/v0.0.1-$version.linux-amd64.zip"
  echo "$sha256  $zip.part" | sha256sum -c --quiet - ||
    { echo "go-toolchain: $module does not match its pinned SHA-256" >&2; rm -f "$zip.part"; exit 1; }
  rm -rf "${cache:?}/$module"
  unzip -q "$zip.part" "$module/*" -d "$cache"
  rm -f "$zip.part"
fi
new_enough "$go" || { echo "go-toolchain: $go does not run" >&2; exit 1; }
echo "$go"
