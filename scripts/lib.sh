# shellcheck shell=bash
# scripts/lib.sh: shared helpers for nordprop's scripts. Source it, don't run it:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Every ensure_* / *_start / *_stop function is idempotent: when there is nothing
# to do it does nothing and says so in at most one short line. Progress lines
# start with "==> " and go to stderr, so a function can be used inside $(...)
# without its messages being captured. Failures print "==> ERROR: ..." and
# return non-zero (they never `exit`, and they work under `set -euo pipefail`).
# This file does not change the caller's shell options.
#
# Environment knobs (all optional):
#   TEMPORAL_PORT (7233)  TEMPORAL_UI_PORT (TEMPORAL_PORT+1000, so 8233)
#   TEMPORAL_START_TIMEOUT (60 s)
#   SERVICE_STAMP         version stamp for background_service_start
#   SERVICE_READY_PATTERN (ERE) / SERVICE_READY_TIMEOUT (60 s): background_service_start
#                         also waits for a matching line in the new process's log
#   NORDPROP_FORCE_BUILD=1  run tsc even when no source looks newer than dist/

if [[ -n "${_NORDPROP_LIB_LOADED:-}" ]]; then
  return 0
fi
_NORDPROP_LIB_LOADED=1

_NP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
_NP_TEMPORAL_CLI_VERSION="v1.5.1"
_NP_SEARCH_ATTRIBUTES=(NordpropSource=Keyword NordpropCountry=Keyword NordpropRunId=Keyword NordpropOutcome=Keyword)

_np_say() { printf '==> %s\n' "$*" >&2; }
_np_err() { printf '==> ERROR: %s\n' "$*" >&2; return 1; }

# Serialise one piece of work across concurrent scripts (same work tree).
# Usage: _np_locked NAME CMD...  (runs CMD in a subshell holding .data/locks/NAME.lock)
_np_locked() {
  local name=$1; shift
  local dir="$_NP_ROOT/.data/locks"
  mkdir -p "$dir" || return 1
  (
    flock -w 1800 9 || { _np_err "timed out waiting for lock $dir/$name.lock"; exit 1; }
    "$@"
  ) 9>"$dir/$name.lock"
}

# True when something accepts TCP connections on 127.0.0.1:PORT.
_np_port_open() {
  # shellcheck disable=SC2016  # $1 is expanded by the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

# True when PID is alive and was started no later than PIDFILE was written
# (guards against acting on a recycled pid).
_np_pid_is_ours() {
  local pid=$1 pidfile=$2 etimes start written
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  [[ "$(ps -o stat= -p "$pid" 2>/dev/null)" != Z* ]] || return 1
  etimes="$(ps -o etimes= -p "$pid" 2>/dev/null | tr -d ' ')"
  [[ -n "$etimes" ]] || return 1
  start=$(( $(date +%s) - etimes ))
  written="$(stat -c %Y "$pidfile" 2>/dev/null)" || return 1
  (( start <= written + 5 ))
}

# Prints the pid recorded in PIDFILE if that process is alive and ours; else fails.
_np_running_pid() {
  local pidfile=$1 pid
  [[ -f "$pidfile" ]] || return 1
  pid="$(head -n1 "$pidfile" 2>/dev/null | tr -d '[:space:]')"
  _np_pid_is_ours "$pid" "$pidfile" || return 1
  printf '%s\n' "$pid"
}

# Start CMD... detached (own session, stdin from /dev/null, output appended to
# LOGFILE), from directory DIR, writing its real pid to PIDFILE.
_np_spawn_detached() {
  local dir=$1 pidfile=$2 logfile=$3; shift 3
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$logfile")" || return 1
  rm -f "$pidfile"
  (
    cd "$dir" || exit 1
    # setsid may fork, so the child writes its own pid; exec keeps that pid.
    # shellcheck disable=SC2016  # expanded by the inner bash
    # 9>&-: never pass an _np_locked lock descriptor on to a long-lived process.
    setsid nohup bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$pidfile" "$@" \
      </dev/null >>"$logfile" 2>&1 9>&- &
  )
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s "$pidfile" ]] && return 0
    sleep 0.1
  done
  _np_err "process did not record its pid in $pidfile"
}

# Stop the process (group) recorded in PIDFILE: TERM, wait up to TIMEOUT s, then KILL.
_np_stop_pidfile() {
  local pidfile=$1 timeout=$2 pid pgid target i
  pid="$(_np_running_pid "$pidfile")" || { rm -f "$pidfile"; return 1; }
  pgid="$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')" || true
  target="$pid"
  [[ "$pgid" == "$pid" ]] && target="-$pid"   # its own group: stop children too
  kill -TERM -- "$target" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    _np_say "pid $pid still alive after ${timeout}s, sending KILL"
    kill -KILL -- "$target" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$pidfile"
  return 0
}

# Absolute form of a path given relative to the caller's working directory.
_np_abspath() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

_np_find_go() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then
    printf '%s\n' /usr/local/go/bin/go
  else
    return 1
  fi
}

# ---------------------------------------------------------------------------

# Sets NORDPROP_ROOT and prints the repository root (the directory above scripts/).
nordprop_root() {
  NORDPROP_ROOT="$_NP_ROOT"
  export NORDPROP_ROOT
  printf '%s\n' "$NORDPROP_ROOT"
}

# PostgreSQL reachable on 127.0.0.1:5432; starts the local cluster if needed.
ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    _np_say "PostgreSQL is up on 127.0.0.1:5432"
    return 0
  fi
  command -v pg_isready >/dev/null 2>&1 \
    || { _np_err "pg_isready not found: install the PostgreSQL client (apt-get install postgresql-client)"; return 1; }
  local conf version=""
  for conf in /etc/postgresql/*/main/postgresql.conf; do
    [[ -f "$conf" ]] || continue
    version="$(basename "$(dirname "$(dirname "$conf")")")"   # highest version wins (glob sorts)
  done
  [[ -n "$version" ]] \
    || { _np_err "PostgreSQL is not reachable on 127.0.0.1:5432 and no local cluster was found under /etc/postgresql"; return 1; }
  _np_say "PostgreSQL not reachable: starting local cluster $version/main"
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
  fi
  local i
  for ((i = 0; i < 30; i++)); do
    if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
      _np_say "PostgreSQL $version is up on 127.0.0.1:5432"
      return 0
    fi
    sleep 1
  done
  _np_err "PostgreSQL did not become ready on 127.0.0.1:5432 within 30 s (see /var/log/postgresql/postgresql-$version-main.log; start it with: pg_ctlcluster --skip-systemctl-redirect $version main start)"
}

_np_psql() { psql -X -q -h 127.0.0.1 -p 5432 -U postgres -d postgres -tAc "$1"; }

# Runs CMD... with its output in .data/logs/apt.log; shows the tail only on failure.
_np_quiet() {
  local log=$_NP_ROOT/.data/logs/apt.log
  mkdir -p "$(dirname "$log")" || return 1
  printf '=== %s %s\n' "$(date -Is)" "$*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    return 1
  fi
}

_np_apt_update_once() {
  [[ -n "${NORDPROP_APT_UPDATED:-}" ]] && return 0
  _np_say "apt-get update"
  _np_quiet env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -q update \
    || { _np_err "apt-get update failed"; return 1; }
  NORDPROP_APT_UPDATED=1
  export NORDPROP_APT_UPDATED
}

_np_apt_install() {
  _np_apt_update_once || return 1
  _np_say "apt-get install -y $* (output in .data/logs/apt.log)"
  _np_quiet env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -q install -y "$@" \
    || { _np_err "apt-get install -y $* failed"; return 1; }
}

# The postgis extension is available in the local server; installs it from Debian if not.
ensure_postgis() {
  local have num major
  have="$(_np_psql "SELECT 1 FROM pg_available_extensions WHERE name='postgis'")" \
    || { _np_err "cannot query PostgreSQL on 127.0.0.1:5432 (run ensure_postgres first)"; return 1; }
  if [[ -n "$have" ]]; then
    _np_say "PostGIS is available"
    return 0
  fi
  num="$(_np_psql "SHOW server_version_num")" || return 1
  major=$(( num / 10000 ))
  if [[ "$(id -u)" != 0 ]]; then
    _np_err "PostGIS is not installed for PostgreSQL $major; run: sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql-$major-postgis-3"
    return 1
  fi
  _np_say "PostGIS missing: installing postgresql-$major-postgis-3"
  _np_apt_install "postgresql-$major-postgis-3" || return 1
  have="$(_np_psql "SELECT 1 FROM pg_available_extensions WHERE name='postgis'")" || return 1
  [[ -n "$have" ]] || { _np_err "postgresql-$major-postgis-3 installed but the server does not list postgis"; return 1; }
  _np_say "PostGIS is available"
}

# ensure_apt_package PKG BIN: installs Debian package PKG when command BIN is missing.
ensure_apt_package() {
  local pkg=${1:?usage: ensure_apt_package PKG BIN} bin=${2:?usage: ensure_apt_package PKG BIN}
  if command -v "$bin" >/dev/null 2>&1; then
    _np_say "$bin is present ($pkg)"
    return 0
  fi
  if [[ "$(id -u)" != 0 ]]; then
    _np_err "$bin not found; run: sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y $pkg"
    return 1
  fi
  _np_say "$bin missing: installing $pkg"
  _np_apt_install "$pkg" || return 1
  hash -r
  command -v "$bin" >/dev/null 2>&1 || { _np_err "installed $pkg but $bin is still not on PATH"; return 1; }
}

_np_npm_ci() {
  local root=$_NP_ROOT stamp=$_NP_ROOT/node_modules/.nordprop-lock.sha256 sum out rc=0
  sum="$(sha256sum "$root/package-lock.json" | cut -d' ' -f1)" || return 1
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then
    _np_say "node_modules is up to date"
    return 0
  fi
  _np_say "npm ci (node_modules missing or package-lock.json changed)"
  out="$(mktemp)" || return 1
  (cd "$root" && npm ci --no-audit --no-fund) >"$out" 2>&1 || rc=$?
  if (( rc == 0 )); then
    grep -v -e '^npm warn' -e '^$' "$out" >&2 || true
  else
    tail -n 30 "$out" >&2
  fi
  rm -f "$out"
  (( rc == 0 )) || { _np_err "installing node_modules failed"; return 1; }
  printf '%s\n' "$sum" >"$stamp"
}

# Everything the project's commands need: PostgreSQL with PostGIS, node_modules, dist/ and
# the Temporal CLI (the demo, test and bench scripts all start with this).
ensure_toolchain() {
  ensure_postgres && ensure_postgis && ensure_node_modules && ensure_build && ensure_temporal_cli
}

# node_modules matches package-lock.json (stamp: node_modules/.nordprop-lock.sha256).
ensure_node_modules() {
  [[ -f "$_NP_ROOT/package-lock.json" ]] || { _np_err "no package-lock.json in $_NP_ROOT"; return 1; }
  _np_locked npm _np_npm_ci
}

_np_tsc() {
  local root=$_NP_ROOT stamp=$_NP_ROOT/dist/.nordprop-build.stamp marker newer=""
  if [[ -z "${NORDPROP_FORCE_BUILD:-}" && -f "$stamp" ]]; then
    # Any source/config file (or directory, for deletions) newer than the last good build?
    # (test/ is outside tsconfig "include": vitest compiles it itself.)
    newer="$(cd "$root" && find . \
      \( -path ./node_modules -o -path ./dist -o -path ./.git -o -path ./.data -o -path ./.tools -o -path ./data -o -path ./test \) -prune -o \
      \( -type d -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.js' -o -name '*.json' \) \
      -newer "$stamp" -print -quit 2>/dev/null)" || true
    if [[ -z "$newer" && ! "$root/node_modules/.nordprop-lock.sha256" -nt "$stamp" ]]; then
      _np_say "dist/ is up to date"
      return 0
    fi
  fi
  [[ -x "$root/node_modules/.bin/tsc" ]] \
    || { _np_err "TypeScript is not installed (node_modules/.bin/tsc missing): run ensure_node_modules"; return 1; }
  _np_say "tsc -p tsconfig.json (incremental)"
  mkdir -p "$root/dist" || return 1
  marker="$(mktemp "$root/dist/.nordprop-build.XXXXXX")" || return 1   # mtime = build start
  if (cd "$root" && node_modules/.bin/tsc -p tsconfig.json >&2); then
    mv -f "$marker" "$stamp"
  else
    rm -f "$marker" "$stamp"
    _np_err "TypeScript build failed"
    return 1
  fi
}

# dist/ is compiled from the current sources (tsc incremental; skipped entirely
# when no file is newer than the last successful build).
ensure_build() {
  _np_locked build _np_tsc
}

# Prints a short hash of dist/ (for SERVICE_STAMP).
nordprop_dist_stamp() {
  [[ -d "$_NP_ROOT/dist" ]] || { printf '%s\n' no-dist; return 0; }
  (cd "$_NP_ROOT" && find dist -type f \( -name '*.js' -o -name '*.json' \) -print0 2>/dev/null \
    | sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-16)
}

_np_build_temporal_cli() {
  local root=$_NP_ROOT bin=$_NP_ROOT/.tools/bin/temporal go waited=0 stage
  # A build started by hand (outside these scripts) may be writing the binary right now.
  while [[ ! -x "$bin" ]] && pgrep -f "go install github.com/temporalio/cli/cmd/temporal" >/dev/null 2>&1; do
    (( waited == 0 )) && _np_say "another 'go install' of the Temporal CLI is running: waiting for it (up to 20 min)"
    (( waited >= 1200 )) && { _np_err "gave up waiting for the other Temporal CLI build"; return 1; }
    sleep 5; waited=$(( waited + 5 ))
  done
  if [[ -x "$bin" ]]; then
    _np_say "Temporal CLI: $bin"
    return 0
  fi
  go="$(_np_find_go)" || { _np_err "Go not found (PATH or /usr/local/go/bin): it is needed to build the Temporal CLI"; return 1; }
  _np_say "building Temporal CLI $_NP_TEMPORAL_CLI_VERSION with $go (go install; takes several minutes on 2 cores)"
  mkdir -p "$root/.tools/bin" || return 1
  stage="$(mktemp -d "$root/.tools/bin/.build.XXXXXX")" || return 1
  local t0=$SECONDS
  # Built into a staging dir, then renamed: the binary appears whole or not at all.
  if CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=mod GOBIN="$stage" \
      "$go" install "github.com/temporalio/cli/cmd/temporal@$_NP_TEMPORAL_CLI_VERSION" >&2 \
     && mv -f "$stage/temporal" "$bin"; then
    rmdir "$stage" 2>/dev/null || true
    _np_say "Temporal CLI built in $(( SECONDS - t0 )) s: $bin"
  else
    rm -rf "$stage"
    _np_err "building the Temporal CLI failed (needs Go >= 1.25 and the Go module proxy)"
    return 1
  fi
}

# .tools/bin/temporal exists (built from the Go module if not); exports TEMPORAL_CLI.
ensure_temporal_cli() {
  local bin=$_NP_ROOT/.tools/bin/temporal
  if [[ -x "$bin" ]]; then
    _np_say "Temporal CLI: $bin"
  else
    _np_locked temporal-cli _np_build_temporal_cli || return 1
  fi
  TEMPORAL_CLI="$bin"
  export TEMPORAL_CLI
}

# State (SQLite file, log, pid) of the dev server on port $1: .data/temporal for the
# default port 7233, .data/temporal-PORT for any other, so servers never share files.
_np_temporal_dir() {
  if [[ "$1" == 7233 ]]; then
    printf '%s\n' "$_NP_ROOT/.data/temporal"
  else
    printf '%s\n' "$_NP_ROOT/.data/temporal-$1"
  fi
}

# UI port: $TEMPORAL_UI_PORT, else frontend port + 1000 (8233 for 7233), as the CLI does.
_np_temporal_ui_port() {
  local port=${TEMPORAL_PORT:-7233}
  printf '%s\n' "${TEMPORAL_UI_PORT:-$(( port + 1000 ))}"
}

_np_temporal_ready() {
  local port=$1
  _np_port_open "$port" || return 1
  "$TEMPORAL_CLI" operator namespace describe --namespace default \
    --address "127.0.0.1:$port" --command-timeout 3s >/dev/null 2>&1
}

# Adds any of our search attributes missing on a server we did not start.
_np_temporal_search_attributes() {
  local port=$1 list sa name type
  list="$("$TEMPORAL_CLI" operator search-attribute list --address "127.0.0.1:$port" \
    --command-timeout 5s 2>/dev/null)" || return 0
  for sa in "${_NP_SEARCH_ATTRIBUTES[@]}"; do
    name=${sa%%=*} type=${sa#*=}
    [[ "$list" == *"$name"* ]] && continue
    _np_say "adding search attribute $name ($type)"
    "$TEMPORAL_CLI" operator search-attribute create --name "$name" --type "$type" \
      --address "127.0.0.1:$port" --command-timeout 10s >/dev/null \
      || { _np_err "could not create search attribute $name"; return 1; }
  done
}

_np_temporal_start() {
  local root=$_NP_ROOT port=${TEMPORAL_PORT:-7233} ui_port
  ui_port="$(_np_temporal_ui_port)"
  local timeout=${TEMPORAL_START_TIMEOUT:-60}
  local dir
  dir="$(_np_temporal_dir "$port")"
  local pidfile=$dir/server.pid logfile=$dir/server.log
  local ui="http://127.0.0.1:$ui_port" t0 sa started

  if _np_port_open "$port" || _np_running_pid "$pidfile" >/dev/null; then
    # Served already (by us, a colleague, or a server still starting): reuse it.
    t0=$SECONDS
    until _np_temporal_ready "$port"; do
      if (( SECONDS - t0 >= timeout )); then
        _np_err "port $port is in use (or pid file $pidfile is live) but no Temporal frontend answers for namespace default within $timeout s"
        return 1
      fi
      sleep 1
    done
    _np_temporal_search_attributes "$port" || return 1
    _np_port_open "$ui_port" || ui="none on port $ui_port"
    _np_say "Temporal dev server already running on 127.0.0.1:$port (UI $ui)"
    return 0
  fi

  mkdir -p "$dir" || return 1
  local args=(server start-dev
    --db-filename "$dir/temporal.sqlite"
    --ip 127.0.0.1 --port "$port" --ui-port "$ui_port"
    --log-level warn
    --sqlite-pragma journal_mode=WAL --sqlite-pragma synchronous=OFF
    --dynamic-config-value frontend.enableUpdateWorkflowExecution=true
    --dynamic-config-value frontend.enableUpdateWorkflowExecutionAsyncAccepted=true
    --dynamic-config-value frontend.enableServerVersionCheck=false
    # One history shard reads its transfer queue 20 times a second by default: every task then
    # waited for the next 50 ms tick (lib/temporal/dev-server.ts DISPATCH_WITHOUT_DELAY).
    --dynamic-config-value history.transferProcessorMaxPollRPS=1000)
  for sa in "${_NP_SEARCH_ATTRIBUTES[@]}"; do
    args+=(--search-attribute "$sa")
  done
  _np_say "starting Temporal dev server on 127.0.0.1:$port (log $logfile)"
  printf '=== %s start-dev pid-file %s\n' "$(date -Is)" "$pidfile" >>"$logfile"
  t0=$SECONDS started=${EPOCHREALTIME/,/.}
  _np_spawn_detached "$root" "$pidfile" "$logfile" "$TEMPORAL_CLI" "${args[@]}" || return 1
  while (( SECONDS - t0 < timeout )); do
    if ! _np_running_pid "$pidfile" >/dev/null; then
      tail -n 30 "$logfile" >&2
      rm -f "$pidfile"
      _np_err "Temporal dev server exited during startup (log: $logfile)"
      return 1
    fi
    if _np_temporal_ready "$port"; then
      _np_say "Temporal dev server ready in $(awk -v a="$started" -v b="${EPOCHREALTIME/,/.}" 'BEGIN{printf "%.1f", b-a}') s on 127.0.0.1:$port; UI $ui"
      return 0
    fi
    sleep 0.2
  done
  tail -n 30 "$logfile" >&2
  _np_err "Temporal dev server not ready after $timeout s (log: $logfile); it is left running (pid $(cat "$pidfile" 2>/dev/null))"
}

# Temporal dev server answering on 127.0.0.1:$TEMPORAL_PORT (started detached if
# nothing listens there); exports TEMPORAL_CLI and TEMPORAL_ADDRESS (if unset).
temporal_dev_start() {
  if [[ -x "$_NP_ROOT/.tools/bin/temporal" ]]; then
    TEMPORAL_CLI="$_NP_ROOT/.tools/bin/temporal"
    export TEMPORAL_CLI
  else
    ensure_temporal_cli || return 1
  fi
  _np_locked temporal-server _np_temporal_start || return 1
  TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-127.0.0.1:${TEMPORAL_PORT:-7233}}"
  export TEMPORAL_ADDRESS
}

# Stops the dev server that temporal_dev_start started on $TEMPORAL_PORT (via its pid file).
temporal_dev_stop() {
  local port=${TEMPORAL_PORT:-7233} pidfile pid
  pidfile="$(_np_temporal_dir "$port")/server.pid"
  if ! pid="$(_np_running_pid "$pidfile")"; then
    rm -f "$pidfile"
    _np_say "Temporal dev server on port $port is not running (no live pid in $pidfile)"
    return 0
  fi
  _np_say "stopping Temporal dev server on port $port (pid $pid)"
  _np_stop_pidfile "$pidfile" 20
}

# Says whether the dev server runs; returns 0 when the frontend port is served.
temporal_dev_status() {
  local port=${TEMPORAL_PORT:-7233} pid pidfile
  pidfile="$(_np_temporal_dir "$port")/server.pid"
  if pid="$(_np_running_pid "$pidfile")"; then
    if _np_port_open "$port"; then
      _np_say "Temporal dev server running (pid $pid) on 127.0.0.1:$port; UI http://127.0.0.1:$(_np_temporal_ui_port)"
      return 0
    fi
    _np_say "Temporal dev server pid $pid alive but port $port not open (starting?)"
    return 1
  fi
  if _np_port_open "$port"; then
    _np_say "port $port is served, not by a server these scripts started"
    return 0
  fi
  _np_say "Temporal dev server on port $port is stopped"
  return 1
}

_np_service_start() {
  local name=$1 pidfile=$2 logfile=$3; shift 3
  local stampfile=$pidfile.stamp want=${SERVICE_STAMP:-} have="" pid
  if pid="$(_np_running_pid "$pidfile")"; then
    [[ -f "$stampfile" ]] && have="$(cat "$stampfile")"
    if [[ "$have" == "$want" ]]; then
      _np_say "$name already running (pid $pid)"
      return 0
    fi
    _np_say "$name: version stamp changed (${have:-none} -> ${want:-none}), restarting pid $pid"
    _np_stop_pidfile "$pidfile" 30
  fi
  rm -f "$pidfile" "$stampfile"
  mkdir -p "$(dirname "$logfile")" || return 1
  local offset
  offset=$(( $(stat -c %s "$logfile" 2>/dev/null || echo 0) + 1 ))
  printf '=== %s start %s stamp=%s: %s\n' "$(date -Is)" "$name" "${want:-none}" "$*" >>"$logfile"
  _np_spawn_detached "$_NP_ROOT" "$pidfile" "$logfile" "$@" || return 1
  printf '%s\n' "$want" >"$stampfile"
  pid="$(cat "$pidfile")"
  sleep 2
  if ! _np_running_pid "$pidfile" >/dev/null; then
    tail -c "+$offset" "$logfile" | tail -n 40 >&2   # this start's output only
    rm -f "$pidfile" "$stampfile"
    _np_err "$name exited within 2 s (log: $logfile)"
    return 1
  fi
  if [[ -n "${SERVICE_READY_PATTERN:-}" ]]; then
    # Optional: wait for a line in this start's output (e.g. the worker's "worker polling").
    local t0=$SECONDS limit=${SERVICE_READY_TIMEOUT:-60}
    until tail -c "+$offset" "$logfile" | grep -Eq -- "$SERVICE_READY_PATTERN"; do
      if ! _np_running_pid "$pidfile" >/dev/null || (( SECONDS - t0 >= limit )); then
        tail -c "+$offset" "$logfile" | tail -n 40 >&2
        _np_stop_pidfile "$pidfile" 10 || true
        rm -f "$pidfile" "$stampfile"
        _np_err "$name did not log /$SERVICE_READY_PATTERN/ within $limit s; stopped it (log: $logfile)"
        return 1
      fi
      sleep 0.5
    done
    _np_say "$name ready in $(( SECONDS - t0 + 2 )) s (pid $pid, log $logfile)"
    return 0
  fi
  _np_say "$name started (pid $pid, log $logfile)"
}

# background_service_start NAME PIDFILE LOGFILE CMD...: starts CMD detached from
# the repo root unless it already runs with the same $SERVICE_STAMP (a different
# stamp restarts it). Fails, showing the log tail, if CMD dies within 2 s (or, with
# SERVICE_READY_PATTERN set, does not log a matching line in time).
background_service_start() {
  (( $# >= 4 )) || { _np_err "usage: background_service_start NAME PIDFILE LOGFILE CMD..."; return 1; }
  local name=$1 pidfile logfile key
  pidfile="$(_np_abspath "$2")" logfile="$(_np_abspath "$3")"   # CMD runs from the repo root
  shift 3
  key="service-$(printf '%s' "$pidfile" | sha256sum | cut -c1-12)"
  _np_locked "$key" _np_service_start "$name" "$pidfile" "$logfile" "$@"
}

# background_service_stop PIDFILE: stops the process group recorded in PIDFILE.
background_service_stop() {
  local pidfile=${1:?usage: background_service_stop PIDFILE} pid
  pidfile="$(_np_abspath "$pidfile")"
  if ! pid="$(_np_running_pid "$pidfile")"; then
    rm -f "$pidfile" "$pidfile.stamp"
    _np_say "not running ($pidfile)"
    return 0
  fi
  _np_say "stopping pid $pid ($pidfile)"
  _np_stop_pidfile "$pidfile" 30
  rm -f "$pidfile.stamp"
}

# ---------------------------------------------------------------------------
# The demo's services (`npm run demo` starts them, `npm run stop` stops them).

# demo_worker_start [PIDFILE [LOGFILE]]: the pipeline worker in the background (default
# .data/worker.pid, .data/worker.log), ready once it polls (within SERVICE_READY_TIMEOUT, 180 s). node is given the worker's
# young-generation flag itself: without it bin/nordprop.js re-execs node with the flag and
# waits, and PIDFILE would name that wrapper, not the worker (killing it orphaned the worker).
demo_worker_start() {
  local pidfile=${1:-$_NP_ROOT/.data/worker.pid} logfile=${2:-$_NP_ROOT/.data/worker.log}
  SERVICE_STAMP="$(nordprop_dist_stamp)" SERVICE_READY_PATTERN='worker polling' SERVICE_READY_TIMEOUT="${SERVICE_READY_TIMEOUT:-180}" \
    background_service_start worker "$pidfile" "$logfile" node --max-semi-space-size=64 bin/nordprop.js worker
}

# demo_api_start [PIDFILE [LOGFILE]]: the REST API in the background (default .data/api.pid, .data/api.log).
demo_api_start() {
  local pidfile=${1:-$_NP_ROOT/.data/api.pid} logfile=${2:-$_NP_ROOT/.data/api.log}
  SERVICE_STAMP="$(nordprop_dist_stamp)" SERVICE_READY_PATTERN='nordprop API listening' \
    background_service_start api "$pidfile" "$logfile" node bin/nordprop.js api
}

# demo_stop: stops what the demo started, each through its pid file (a process these scripts
# did not start is left alone): the API, the worker, then the Temporal dev server on
# $TEMPORAL_PORT (7233).
demo_stop() {
  background_service_stop "$_NP_ROOT/.data/api.pid" || return 1
  background_service_stop "$_NP_ROOT/.data/worker.pid" || return 1
  temporal_dev_stop
}
