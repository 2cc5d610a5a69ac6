#!/usr/bin/env bash
# The README's first command (`npm run demo`): installs what is missing, starts the local stack
# (PostgreSQL/PostGIS, Temporal dev server, a worker), writes the sample registers, runs the
# nightly refresh over them and prints its summary. Run it again and it does no work twice.
# `npm run stop` (demo.sh stop) stops the worker, the API and the Temporal dev server it started.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root="$(nordprop_root)"
cd "$root"

case "${1:-}" in
  '') ;;
  stop) demo_stop; exit ;;
  *) echo "usage: $0 [stop]" >&2; exit 2 ;;
esac

ensure_toolchain
temporal_dev_start

# On this machine the sample registers are the sources' inputs: remember that for later
# `nordprop` commands (the environment still wins over .env).
if ! grep -qs '^NORDPROP_INPUT_DIR=' .env; then
  echo "NORDPROP_INPUT_DIR=.data/sample" >>.env
  echo "==> .env: sources read the sample registers in .data/sample"
fi

# The ops console (/ops on the API) needs an operator secret: make one for this machine.
if [[ -z "${NORDPROP_OPS_TOKEN:-}" ]] && ! grep -qs '^NORDPROP_OPS_TOKEN=' .env; then
  echo "NORDPROP_OPS_TOKEN=$(node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("base64url"))')" >>.env
  echo "==> .env: an operator secret for the ops console (NORDPROP_OPS_TOKEN)"
fi

nordprop() { node "$root/bin/nordprop.js" "$@"; }
nordprop setup
demo_worker_start
nordprop schedule create
nordprop sample --out .data/sample --parcels "${NORDPROP_SAMPLE_PARCELS:-5000}"
nordprop refresh --wait

# The REST API over the store, in the background like the worker (log in .data/api.log).
demo_api_start

# Show the coordinate lookup on the first sample address of each country.
for country in NO SE; do
  read -r lat lon < <(psql -X -q "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/nordprop}" -tA -F ' ' \
    -c "SELECT round(ST_Y(geom)::numeric, 6), round(ST_X(geom)::numeric, 6) FROM address WHERE country = '$country' ORDER BY address_id LIMIT 1")
  echo
  echo "\$ nordprop lookup --country $country --lat $lat --lon $lon"
  nordprop lookup --country "$country" --lat "$lat" --lon "$lon"
done
echo
echo "Temporal UI:  http://127.0.0.1:${TEMPORAL_UI_PORT:-8233}"
echo "Run ledger:   node bin/nordprop.js runs"
echo "Ops console:  http://127.0.0.1:${PORT:-8080}/ops  (any user name; the password is NORDPROP_OPS_TOKEN in .env)"
echo "REST API:     http://127.0.0.1:${PORT:-8080}  (description: /openapi.yaml; credentials: node bin/nordprop.js clients create --scopes \"properties.read\" --json; docs/api.md)"
