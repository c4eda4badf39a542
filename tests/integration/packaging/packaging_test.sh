#!/usr/bin/env bash
# The Debian packages as an operator meets them: `cpack` builds the five packages, apt-get
# installs them, every file lands where the units and docs say, `systemd-analyze verify`
# accepts the units, the installed topoplaced runs as its service user against its state
# directory and answers the installed CLI, and `apt-get purge` removes every file but the
# ledger's state directory, which is kept on purpose.
#
# Usage: packaging_test.sh BUILD_DIR
# Exit 77 (skipped) without root, without apt-get/dpkg, or when topoplace packages are
# installed already (the test will not replace an operator's install).
set -euo pipefail
build=$1

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root to install packages"
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || skip "no apt-get/dpkg"
packages=(topoplace-daemon topoplace-cli topoplace-agent topoplace-slurm-plugin
          topoplace-k8s-extender)
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    skip "$p is installed on this machine already"
  fi
done

work=$(mktemp -d /tmp/topoplace-packaging.XXXXXX)
daemon_pid=""
users_before=$(getent passwd | cut -d: -f1 | sort)
cleanup() {
  set +e
  if [[ -n $daemon_pid ]]; then kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; fi
  apt-get purge -y -q "${packages[@]}" >/dev/null 2>&1 || true
  rm -rf /var/lib/topoplace "$work"
  # Service users this test made; an earlier install's users stay.
  for u in topoplace topoplace-agent; do
    if ! grep -qx "$u" <<<"$users_before" && getent passwd "$u" >/dev/null; then
      userdel "$u" 2>/dev/null
      if getent group "$u" >/dev/null; then groupdel "$u" 2>/dev/null; fi
    fi
  done
}
trap cleanup EXIT

# 1. Build the packages from this build tree.
(cd "$build" && cpack -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1) ||
  fail "cpack failed: $(tail -20 "$work/cpack.log")"
debs=("$work"/debs/*.deb)
[[ ${#debs[@]} -eq 5 ]] || fail "expected 5 packages, got ${#debs[@]}: ${debs[*]}"
for deb in "${debs[@]}"; do
  depends=$(dpkg-deb -f "$deb" Depends)
  [[ $depends == *libc6* ]] || fail "$deb: Depends not computed from its libraries: $depends"
done

# 2. Install them as an operator would.
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[@]}" \
  >"$work/install.log" 2>&1 || fail "apt-get install failed: $(tail -20 "$work/install.log")"

expect_file() { [[ -e $1 ]] || fail "missing after install: $1"; }
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
for f in /usr/sbin/topoplaced /usr/bin/topoplace /usr/sbin/topoplace-agent \
         /usr/bin/topoplace-k8s-extender "/usr/lib/$multiarch/slurm-wlm/spank_topoplace.so" \
         /usr/lib/systemd/system/topoplaced.service \
         /usr/lib/systemd/system/topoplace-agent.service \
         /usr/lib/systemd/system/topoplace-agent.timer \
         /usr/lib/sysusers.d/topoplace.conf /etc/topoplace/topoplaced.conf \
         /etc/default/topoplace-agent /usr/share/doc/topoplace/slurm/plugstack.conf \
         /usr/share/doc/topoplace/k8s/30-extender.yaml; do
  expect_file "$f"
done
getent passwd topoplace >/dev/null || fail "the daemon's service user was not created"
getent passwd topoplace-agent >/dev/null || fail "the agent's service user was not created"
[[ $(stat -c %U /var/lib/topoplace) == topoplace ]] || fail "/var/lib/topoplace not owned by topoplace"
grep -q "ExecStart=/usr/sbin/topoplaced " /usr/lib/systemd/system/topoplaced.service ||
  fail "the unit does not run the installed binary"
# The plugin loads by its bare name from Slurm's plugin directory (plugstack.conf says so).
grep -q "^required spank_topoplace.so" /usr/share/doc/topoplace/slurm/plugstack.conf ||
  fail "plugstack.conf does not name the plugin as installed"

# 3. The units are valid.
if command -v systemd-analyze >/dev/null; then
  for unit in topoplaced.service topoplace-agent.service topoplace-agent.timer; do
    systemd-analyze verify "/usr/lib/systemd/system/$unit" >"$work/verify.log" 2>&1 ||
      fail "systemd-analyze verify $unit: $(cat "$work/verify.log")"
    # verify prints problems without failing for some of them.
    if grep -v "Cannot find unit\|lldpd.service" "$work/verify.log" | grep -q .; then
      fail "systemd-analyze verify $unit: $(cat "$work/verify.log")"
    fi
  done
else
  echo "note: systemd-analyze is not installed; units not verified"
fi

# 4. The installed daemon, as its service user, on the installed config and state dir;
#    the installed CLI talks to it.
runuser -u topoplace -- /usr/sbin/topoplaced --config /etc/topoplace/topoplaced.conf \
  --db /var/lib/topoplace/topoplaced.db --listen 127.0.0.1:0 \
  --port-file /var/lib/topoplace/port >"$work/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do [[ -s /var/lib/topoplace/port ]] && break; sleep 0.1; done
[[ -s /var/lib/topoplace/port ]] || fail "topoplaced did not start: $(cat "$work/daemon.log")"
server=127.0.0.1:$(cat /var/lib/topoplace/port)
id=$(/usr/bin/topoplace --server "$server" reserve --job tp=8,pp=1,dp=2 --json |
     python3 -c 'import json,sys; print(json.load(sys.stdin)["allocation"]["id"])')
/usr/bin/topoplace --server "$server" commit "$id" --external-id slurm:1 >/dev/null
/usr/bin/topoplace --server "$server" allocations | grep -q "slurm:1" ||
  fail "the installed CLI does not see the committed allocation"
[[ $(stat -c %U /var/lib/topoplace/topoplaced.db) == topoplace ]] ||
  fail "the database is not owned by the service user"
kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""

# 5. Purge: every packaged file is gone; the ledger's state directory stays.
files=$(dpkg -L "${packages[@]}" | sort -u)
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${packages[@]}" >"$work/purge.log" 2>&1 ||
  fail "apt-get purge failed: $(tail -20 "$work/purge.log")"
left=""
while read -r f; do
  [[ -f $f ]] && left+="$f "
done <<<"$files"
[[ -z $left ]] || fail "files left behind after purge: $left"
[[ ! -e /etc/topoplace ]] || fail "/etc/topoplace left after purge: $(ls -la /etc/topoplace)"
[[ -f /var/lib/topoplace/topoplaced.db ]] || fail "purge removed the ledger's state"
echo "PASS: 5 packages installed, verified, served as user topoplace, purged clean"
