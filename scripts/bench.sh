#!/usr/bin/env bash
# `npm run bench`: installs what the benchmark needs, then measures nordprop's loads of the
# national-profile sample registers against a raw COPY and ogr2ogr, and writes BENCHMARKS.md.
# Flags go to bench/run.ts: the sample is the national profile (`--scale 0.1` for a proportional
# tenth); `npm run bench -- --parcels 3000 --runs 1` is a quick smoke run
# (it writes its report under .data/bench/, not BENCHMARKS.md). `npm run bench -- --changed-night`
# measures a changed night against a first load instead (see below).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(nordprop_root)"

ensure_toolchain
ensure_apt_package gdal-bin ogr2ogr
ensure_apt_package wrk wrk

# The compiled benchmark (dist/, like the worker it starts), not tsx: realistic numbers.
# The machine's .env is not read: the benchmark sets every setting it depends on.
# `npm run bench -- --changed-night [...]`: a first load against a changed next night, per
# source and for the whole refresh, at 0.05 x national by default (bench/changed-night.ts);
# it writes its own section of BENCHMARKS.md.
if [[ "${1:-}" == --changed-night ]]; then
  shift
  NORDPROP_ENV_FILE='' exec node dist/bench/changed-night.js "$@"
fi
NORDPROP_ENV_FILE='' exec node dist/bench/run.js "$@"
