#!/usr/bin/env bash
# The README's second command (`npm test`): installs what the suite needs, then runs it against
# the real PostgreSQL/PostGIS and a real Temporal dev server (started by the suite itself).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(nordprop_root)"

ensure_toolchain
ensure_apt_package proj-bin cs2cs
# GDAL reads the sample GeoPackages in a test (an independent reader of the files we write).
ensure_apt_package gdal-bin ogrinfo
# The ops console's test drives Debian's Chromium headless (test/api/ops).
ensure_apt_package chromium chromium
# The API benchmark's test runs the benchmark itself, which drives its load with wrk (bench/api-load.ts).
ensure_apt_package wrk wrk
# The tests are TypeScript too: type-check them with the code (vitest alone only strips types).
npx tsc -p tsconfig.test.json
# No import runs up a floor (README "Layout", .dependency-cruiser.cjs).
npm run --silent lint:imports
exec npx vitest run "$@"
