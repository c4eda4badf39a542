#!/usr/bin/env bash
# Builds kube-apiserver and kube-scheduler v1.20.2 from Debian's own `kubernetes` source
# package (the newest that builds with Debian's Go 1.19), following
# /work/shared/recipes/REAL-PEERS.md §3, with one upstream fix applied: 1.20.0-1.20.x
# never hand the extenders to the scheduling framework, so an extender's preempt verb is
# never called (kubernetes/kubernetes#102971, fixed by #103019 and cherry-picked to
# release-1.20 as #103030); the fix passes them with frameworkruntime.WithExtenders. The binaries land in a cache outside the repo and
# are reused when present; a fresh machine builds them in about 4 minutes on 2 cores.
#
#   tests/integration/k8s/build_kube.sh            # prints the bin dir on stdout
#   TOPOPLACE_KUBE_CACHE=/some/dir build_kube.sh   # another cache
#
# Needs: golang-1.19-go rsync golang-github-modern-go-reflect2-dev dpkg-dev and the Debian
# source archive reachable through apt. Nothing is written under /etc/apt or the repo.
set -euo pipefail

cache=${TOPOPLACE_KUBE_CACHE:-/var/cache/topoplace/kube-v1.20.2-pr103019}
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

work="$cache/work"
rm -rf "$work"
mkdir -p "$work/sources.list.d" "$work/lists/partial" "$work/src"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

# deb822 sources of this system, as deb-src, in a private directory.
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -e "$f" ]] || continue
  sed 's/^Types:.*$/Types: deb-src/' "$f" >"$work/sources.list.d/$(basename "$f")"
done
if [[ -s /etc/apt/sources.list ]]; then
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$work/sources.list.d/legacy.list"
fi
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources.list.d"
          -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)

echo "build_kube: fetching Debian's kubernetes source package" >&2
apt-get "${apt_opts[@]}" update -qq >&2
(cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only kubernetes >&2)
orig=$(ls "$work"/src/kubernetes_*.orig.tar.gz | head -n 1)
tar -C "$work/src" -xzf "$orig"
tree=$(ls -d "$work"/src/kubernetes-1.20.*/ | head -n 1)

# The vendored reflect2 1.0.1 crashes under Go >= 1.18; Debian's copy works.
rsync -a --delete /usr/share/gocode/src/github.com/modern-go/reflect2/ \
  "$tree/vendor/github.com/modern-go/reflect2/"

# kubernetes#103019: the framework gets the extenders, so preemption calls them.
factory="$tree/pkg/scheduler/factory.go"
grep -q 'frameworkruntime.WithPodNominator(nominator),' "$factory" ||
  { echo "build_kube: $factory is not the expected v1.20 source" >&2; exit 1; }
sed -i 's/^\(\t*\)frameworkruntime.WithPodNominator(nominator),$/&\n\1frameworkruntime.WithExtenders(extenders),/' \
  "$factory"
grep -q 'frameworkruntime.WithExtenders(extenders),' "$factory" ||
  { echo "build_kube: could not apply kubernetes#103019 to $factory" >&2; exit 1; }

echo "build_kube: building ${binaries[*]} (several minutes on 2 cores)" >&2
(cd "$tree" && PATH=/usr/lib/go-1.19/bin:$PATH GOFLAGS=-mod=vendor GOCACHE="$work/gocache" \
  make WHAT="cmd/kube-apiserver cmd/kube-scheduler" >&2)

mkdir -p "$bin.tmp"
for b in "${binaries[@]}"; do
  cp "$tree/_output/local/bin/linux/amd64/$b" "$bin.tmp/$b"
done
rm -rf "$bin"
mv "$bin.tmp" "$bin"
echo "$bin"
