#!/usr/bin/env bash
# `make console`: serves the web console on the demo's own database (what `make demo` left:
# its fabric, allocations and link health) until Ctrl-C. Open the address it prints.
#
# Environment: BUILD (default build), TOPOPLACED (binary), DEMO_DIR (default
# topoplace-data), CONSOLE_LISTEN (default 127.0.0.1:8470), LISTEN (the daemon's gRPC
# address, default 127.0.0.1:0: a free port).
set -euo pipefail

BUILD=${BUILD:-build}
TOPOPLACED=${TOPOPLACED:-$BUILD/api/server/topoplaced}
DEMO_DIR=${DEMO_DIR:-topoplace-data}
CONSOLE_LISTEN=${CONSOLE_LISTEN:-127.0.0.1:8470}
LISTEN=${LISTEN:-127.0.0.1:0}

if [[ ! -f "$DEMO_DIR/demo.db" ]]; then
  echo "console: no database in $DEMO_DIR/demo.db; run 'make demo' first" >&2
  exit 1
fi
echo "console: http://$CONSOLE_LISTEN/ serves $DEMO_DIR/demo.db (Ctrl-C stops it)"
exec "$TOPOPLACED" --db "$DEMO_DIR/demo.db" --listen "$LISTEN" --console-listen "$CONSOLE_LISTEN"
