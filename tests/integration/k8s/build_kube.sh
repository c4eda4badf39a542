#!/usr/bin/env bash
# kube-apiserver, kube-scheduler and kube-controller-manager from the k8s.io/kubernetes
# module at the version the wrapper module tests/integration/k8s/kube/go.mod pins (its
# replace lines point the staging modules, k8s.io/api and the rest, at their published
# versions), built once by build_go_tools.sh into /var/cache/topoplace/kube-VERSION, with
# the version stamped as Kubernetes' own release build does (a fresh machine: about 15
# minutes on 2 cores).
#
#   tests/integration/k8s/build_kube.sh            # prints the bin dir on stdout
#   TOPOPLACE_KUBE_CACHE=/some/dir build_kube.sh   # another cache
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' "$here/kube/go.mod")
[[ $version =~ ^v1\.([0-9]+)\.[0-9]+$ ]] ||
  { echo "build_kube: no k8s.io/kubernetes release in $here/kube/go.mod" >&2; exit 1; }
# What kube-apiserver --version and /version report.
stamp="-X k8s.io/component-base/version.gitVersion=$version"
stamp+=" -X k8s.io/component-base/version.gitMajor=1"
stamp+=" -X k8s.io/component-base/version.gitMinor=${BASH_REMATCH[1]}"
stamp+=" -X k8s.io/component-base/version.gitTreeState=clean"
TOPOPLACE_TOOLS_CACHE=${TOPOPLACE_KUBE_CACHE:-} exec "$here/build_go_tools.sh" kube \
  k8s.io/kubernetes "$stamp"
