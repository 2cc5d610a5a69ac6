#!/usr/bin/env bash
# Local Temporal dev server (Temporal CLI built from source, SQLite in .data/temporal/,
# Web UI on http://127.0.0.1:8233).  Usage: scripts/temporal-dev.sh start|stop|restart|status
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "${1:-}" in
  start)   temporal_dev_start ;;
  stop)    temporal_dev_stop ;;
  restart) temporal_dev_stop; temporal_dev_start ;;
  status)  temporal_dev_status ;;
  *)
    echo "usage: $0 start|stop|restart|status" >&2
    echo "  env: TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (port+1000), TEMPORAL_START_TIMEOUT (60)" >&2
    exit 2 ;;
esac
