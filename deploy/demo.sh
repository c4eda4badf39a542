#!/usr/bin/env bash
# `make demo`: starts topoplaced on the embedded default (built-in superpod-4su fabric, a
# fresh local database), reserves and commits a few jobs through the CLI, shows the
# allocations and one explanation, releases a job, and stops the daemon cleanly with
# SIGTERM. Leaves no process behind, also when a step fails.
#
# Environment: BUILD (default build), TOPOPLACED and TOPOPLACE (binaries), DEMO_DIR
# (default topoplace-data), DEMO_LISTEN (default 127.0.0.1:0, a free port).
set -euo pipefail

BUILD=${BUILD:-build}
TOPOPLACED=${TOPOPLACED:-$BUILD/api/server/topoplaced}
TOPOPLACE=${TOPOPLACE:-$BUILD/api/cli/topoplace}
DEMO_DIR=${DEMO_DIR:-topoplace-data}
DEMO_LISTEN=${DEMO_LISTEN:-127.0.0.1:0}

mkdir -p "$DEMO_DIR"
# A fresh ledger each run: the database and its watermark go together.
rm -f "$DEMO_DIR"/demo.db "$DEMO_DIR"/demo.db-wal "$DEMO_DIR"/demo.db-shm "$DEMO_DIR"/demo.db.ledger-watermark "$DEMO_DIR"/port

"$TOPOPLACED" --listen "$DEMO_LISTEN" --db "$DEMO_DIR/demo.db" --port-file "$DEMO_DIR/port" \
  --console-listen 127.0.0.1:0 \
  2> "$DEMO_DIR/topoplaced.log" &
daemon=$!
stop_daemon() {
  if kill -0 "$daemon" 2>/dev/null; then
    kill -TERM "$daemon" 2>/dev/null || true
    wait "$daemon" 2>/dev/null || true
  fi
}
trap stop_daemon EXIT

for _ in $(seq 1 300); do
  [[ -s "$DEMO_DIR/port" ]] && break
  if ! kill -0 "$daemon" 2>/dev/null; then
    echo "demo: topoplaced did not start:" >&2
    cat "$DEMO_DIR/topoplaced.log" >&2
    exit 1
  fi
  sleep 0.1
done
[[ -s "$DEMO_DIR/port" ]] || { echo "demo: topoplaced did not start in 30 s" >&2; exit 1; }
server="127.0.0.1:$(cat "$DEMO_DIR/port")"
cat "$DEMO_DIR/topoplaced.log"

tp() {
  echo "\$ topoplace --server $server $*"
  "$TOPOPLACE" --server "$server" "$@"
}
# Reserves a job and prints only its allocation id.
reserve_id() {
  "$TOPOPLACE" --server "$server" reserve --job "$1" --ttl 120 --json |
    sed -n 's/^    "id": "\(alloc-[0-9]*\)",$/\1/p'
}

out=$(tp reserve --job tp=8,pp=4,dp=4,model=70b --ttl 120)
echo "$out"
first=$(echo "$out" | awk '$1 ~ /^alloc-/ {print $1; exit}')
second=$(reserve_id tp=8,pp=2,dp=2)
third=$(reserve_id tp=8,pp=1,dp=8)
echo
tp commit "$first" --external-id slurm:1001
tp commit "$second" --external-id slurm:1002
tp commit "$third" --external-id k8s:default/pg-train
echo
tp allocations
echo
tp explain "$second"
echo
tp release "$third"
echo
tp allocations

# The web console served what the CLI shows (docs/console.md).
console=$(sed -n 's/^topoplaced: web console on \(http[^ ]*\)$/\1/p' "$DEMO_DIR/topoplaced.log")
if [[ -n "$console" ]] && command -v curl > /dev/null; then
  echo
  echo "\$ curl -sSf ${console}api/v1/allocations"
  # -f: an error status fails the demo (set -e) instead of printing its page. Read whole,
  # then cut: a pipe into head could end curl early on a long body.
  body=$(curl -sSf "${console}api/v1/allocations")
  echo "${body:0:300} ..."
fi

trap - EXIT
kill -TERM "$daemon"
if ! wait "$daemon"; then
  echo "demo: topoplaced did not exit cleanly:" >&2
  cat "$DEMO_DIR/topoplaced.log" >&2
  exit 1
fi
echo
echo "demo: topoplaced stopped cleanly; the ledger is in $DEMO_DIR/demo.db"
console_command="make console"
[[ "$DEMO_DIR" == topoplace-data ]] || console_command="make console DEMO_DIR=$DEMO_DIR"
echo "demo: to look at it in a browser, run '$console_command' and open http://127.0.0.1:8470/"
