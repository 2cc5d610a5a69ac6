#!/usr/bin/env bash
# `npm run bench:check`: the load-time regression check. Installs what it needs, builds dist/,
# then loads every source of both countries from the national-profile sample at a small scale
# (default 0.05, about ten minutes on two cores) and compares each source's times with the run
# recorded in bench/regression-baseline.json; exits 1 on a source more than 2x slower.
# Flags go to bench/regression-check.ts (`npm run bench:check -- --help`); `-- --record`
# records the run as the new baseline and writes its table into BENCHMARKS.md.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(nordprop_root)"

ensure_toolchain
ensure_apt_package gdal-bin ogr2ogr

# The compiled code (dist/, like the worker it starts), not tsx: realistic numbers.
# The machine's .env is not read: the check sets every setting it depends on.
NORDPROP_ENV_FILE='' exec node dist/bench/regression-check.js "$@"
