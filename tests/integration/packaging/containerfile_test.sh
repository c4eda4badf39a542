#!/usr/bin/env bash
# The container recipe is checked by structure, since this machine kind has no container
# engine (docker is a client only; podman and buildah are not installed): the rules a
# linter such as hadolint would apply, and agreement with what the packaging and the
# Kubernetes manifests expect.
#
# Usage: containerfile_test.sh SOURCE_DIR VERSION
set -euo pipefail
src=$1
version=$2
file=$src/deploy/image/Containerfile
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -f $file ]] || fail "no $file"

# Instructions only (comments and continuation lines folded away).
body=$(grep -v '^\s*#' "$file" | sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta')
grep -qE '^FROM debian:12(-slim)?$' <<<"$body" || fail "base image must be Debian 12: $(grep '^FROM' <<<"$body")"
[[ $(grep -c '^FROM' <<<"$body") -eq 1 ]] || fail "one stage expected"
! grep -qiE '\b(curl|wget|pip|npm|go get|git clone)\b' <<<"$body" || fail "downloads at build time"
! grep -qE '^ADD ' <<<"$body" || fail "use COPY, not ADD"
grep -qE 'apt-get install -y --no-install-recommends' <<<"$body" || fail "apt-get install must be -y --no-install-recommends"
grep -qE 'rm -rf [^&]*/var/lib/apt/lists' <<<"$body" || fail "apt lists not removed in the same layer"
user=$(grep '^USER' <<<"$body" | tail -1 | awk '{print $2}')
[[ -n $user && $user != root && $user != 0 ]] || fail "the image must not run as root (USER: '$user')"
grep -q 'u topoplace ' "$src/deploy/systemd/topoplace.sysusers.conf" ||
  fail "USER $user is not the user the daemon package creates"
for pkg in topoplace-daemon topoplace-cli topoplace-k8s-extender topoplace-agent; do
  grep -q "$pkg"'_\*\.deb' <<<"$body" || fail "$pkg is not installed from the packages"
done
grep -qE '^ENTRYPOINT \["/usr/sbin/topoplaced"\]' <<<"$body" || fail "entrypoint is not the packaged daemon"
# The manifests run the image this recipe makes, with binaries the packages install.
for m in 20-topoplaced.yaml 21-topoplaced-ha.yaml 30-extender.yaml 35-agent-daemonset.yaml; do
  grep -q "image: topoplace:$version" "$src/deploy/k8s/$m" || fail "$m does not use topoplace:$version"
done
echo "PASS: Containerfile structure"
