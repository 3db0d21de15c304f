#!/usr/bin/env bash
# The IAP Catalog benchmark, side by side with the reference peers of ../shared/bench (issue 7).
#
#   sudo bench/run.sh                     # full run: about 40 min (3 rounds x 3 scenarios x 3 servers of 50 s),
#                                         # plus about 11 min once to load the 100,000-product catalog
#   sudo BENCH_QUICK=1 bench/run.sh       # quick look: about 8 min (1 round, 5 s warm-up, 10 s runs)
#
# Run as root from anywhere, with the release build in place (swift build -c release --product iap-server, and
# for the receipts step swift build -c release --product appstore-standin: one --product per command, swift
# build builds only the last one given; never build while it measures). It
#  1. runs the peers' setup.sh (idempotent) and start.sh (PostgreSQL :55432, peers A = FastAPI, B = nginx);
#  2. creates the database $S_DB on the peers' PostgreSQL, migrates it with a copy of the release iap-server
#     (in $S_RUN_DIR, readable by the user bench), loads bench/load.sql (the peers' catalog, 200 apps x 50
#     products + a hot app with 500, through the real lifecycle with history) and makes an admin key;
#  3. starts the service with the peers' start-extra.sh (user bench, own session at BENCH_NICE, like the
#     peers) as "S" on 127.0.0.1:$S_PORT, LOG_LEVEL=warning, rate limits out of the way;
#  4. checks that S answers every identifier list byte for byte as nginx does (bench/tools/check.py);
#  5. runs the peers' rounds.sh over PEERS="A B S=$S_PORT" and scenarios typical, hot, missing (wrk -c64);
#  6. measures transitions/s: POST .../actions alternating submit_change/withdraw, 32 connections
#     (bench/wrk/actions.lua), spread over ACTIONS_APPS apps, then all on one app; then checks that the
#     chains verify and that the new action events equal the version increments; CPU per action of the server
#     and of PostgreSQL (bench/tools/cpu_split.py) and transactions committed per action;
#  6b. measures PostgreSQL's own ceiling for those actions: pgbench makes them with the service's statements,
#     no HTTP server: one action per transaction (bench/ceiling/action.sql), and sixteen read one by one and
#     written by one batch statement, as the service writes concurrent actions (bench/ceiling/batch.sql);
#  7. measures the server's peak RSS (VmHWM) on a 100,000-product catalog (database $S_DB_100K, loaded once
#     and kept), after requesting every app's identifier list once;
# 7b. webhooks (issue 24): a receiver on loopback (nginx, one worker, 204 to every POST, each request's arrival
#     time and webhook-id logged), S restarted on $S_DB allowing plain http to loopback; WEBHOOKS_ENDPOINTS
#     endpoints (every event) registered through the API; lifecycle actions paced at WEBHOOKS_RATE/s for
#     WEBHOOKS_WINDOW s (pgbench -R, or bench/tools/webhooks.py pace: WEBHOOKS_LOAD); then, once every endpoint has caught up, the delivery lag
#     (arrival minus the event's `at`, which the appending statement sets in the committing transaction) p50/p99/
#     max per endpoint and overall, events delivered against events committed, repeats and order
#     (bench/tools/webhooks.py lag), the event rate achieved, from the database, and the server's CPU per event
#     meanwhile (it serves no request). The same events are then delivered again to the same endpoints
#     (redelivery): deliveries/s and the server's CPU per event with nothing else running. Then the actions load of
#     step 6 (ACTIONS_CONNECTIONS clients on ACTIONS_APPS apps) without endpoints and with them, alternating for
#     WEBHOOKS_ROUNDS rounds: committed/s of each and their ratio, and the lag under that load;
# 7c. streams (issue 24): S restarted on $S_DB; STREAMS_COUNT clients follow GET /v1/events as Server-Sent Events
#     (bench/tools/streams.py) while pgbench makes lifecycle actions at STREAMS_RATE/s for STREAMS_WINDOW s; each
#     stream's lag (arrival minus the event's `at`), events missing, repeated or out of order, and the CPU per event
#     of the server (it serves nothing else), of PostgreSQL (the actions' own included) and of the followers;
#  8. purchases (issue 22), on a database of their own ($P_DB, made anew by every run) next to peer P of
#     ../shared/bench/purchases (Apple's Python library; its setup.sh and start.sh): S trusts only the
#     harness's test root; app com.example.bench accepts Sandbox only, with a client key. First the
#     harness's checks made with that key (bench/tools/purchases_check.py: 3 fresh transactions recorded
#     once with the payload's values, the 19 forged bodies refused and none in the ledger), then runs of the
#     harness's run.sh (wrk -c64, bodies never sent before), alternating P and S: req/s, p50/p99, non-2xx;
#     then PostgreSQL alone recording the service's batches of new transactions with pgbench
#     (bench/ceiling/signed.sql, two at once as the service runs them): signed transactions/s;
#  9. receipts: S restarted with the stand-in App Store (appstore-standin serve, 3-6 s per verifyReceipt)
#     and APPSTORE_CONCURRENCY=$RECEIPTS_CONCURRENCY; the harness's run.sh posts receipts the stand-in
#     issued (202 = queued durably: receipts accepted/s), then bench/tools/receipts.py reads from the
#     database how many reach "verified" per second while the backlog lasts, the CPU per receipt verified
#     of the server and of PostgreSQL meanwhile (no intake then), and the server's VmHWM;
#     then the memory per verification in flight: S restarted, the stand-in answering in
#     RECEIPTS_INFLIGHT_LATENCY ms, RECEIPTS_CONCURRENCY receipts posted at once, S's VmRSS with all of them
#     in flight against before (bench/tools/receipts.py inflight);
# 10. prints the ratios and targets (bench/tools/report.py), rewrites the generated part of
#     docs/performance.md, and stops what it started (the peers and PostgreSQL only if it started them).
#
# Knobs (environment; defaults in brackets):
#   BENCH_QUICK=1            ROUNDS=1 WRK_WARMUP=5 WRK_DURATION=10 ACTIONS_DURATION=10, no CPU breakdown,
#                            WEBHOOKS_WINDOW=15 WEBHOOKS_ROUNDS=1
#   ROUNDS [3] WRK_WARMUP [30] WRK_DURATION [20] WRK_* ...   passed to the peers' rounds.sh / run.sh
#   BENCH_PEERS ["A B"]      peers measured next to S (C = Flask may be added)
#   BENCH_STEPS ["check rounds actions ceiling rss webhooks streams purchases receipts"]   which measurements to
#                            run; the catalog (setup, load, S on $S_DB) only for the first seven, peers A and B only
#                            for check and rounds, e.g.
#                            BENCH_STEPS=purchases runs only the signed-transaction comparison with peer P
#   BENCH_CPU_BREAKDOWN [1, 0 if quick]        peers' tools/cpu_breakdown.sh for S, B, A on the typical app
#   ACTIONS_CONNECTIONS [32] ACTIONS_THREADS [2] ACTIONS_DURATION [20] ACTIONS_WARMUP [5]
#   ACTIONS_APPS [32] ACTIONS_PER_APP [100]     the transition benchmark's apps and their products
#   RSS_APPS [200] RSS_PER_APP [500]            the 100,000-product catalog
#   WEBHOOKS_ENDPOINTS [4] WEBHOOKS_RATE [1000] WEBHOOKS_WINDOW [60, 15 if quick] WEBHOOKS_CONNECTIONS [16]
#   WEBHOOKS_ROUNDS [4, 1 if quick]  WEBHOOKS_DRAIN [180] (most seconds to wait for the endpoints to catch up)
#   WEBHOOKS_PORT [18093]    the receiver's port
#   STREAMS_COUNT [32] STREAMS_RATE [500] STREAMS_WINDOW [30]   the streams step's followers, actions/s and seconds
#   WEBHOOKS_LOAD [pgbench]  who makes the paced actions: pgbench (-R, the service's statements:
#                            bench/ceiling/action.sql) or http (bench/tools/webhooks.py pace, through the API, which
#                            with 4 endpoints needs about all of the 2 cores at 1,000/s)
#   PURCHASES_ROUNDS [3, 1 if quick]  runs of P and of S, alternating; PURCHASES_CONNECTIONS [64]
#   PURCHASES_WARMUP [10, 5 if quick] (each server once, then ANALYZE) PURCHASES_DURATION [20, 10 if quick]
#   PURCHASES_CEILING_BATCH [27]  transactions per batch when PostgreSQL alone records the service's batches
#                            (bench/ceiling/signed.sql; about the mean batch of S at 64 connections)
#   PURCHASES_N [300000]     signed transactions the harness's setup.sh makes (each run's ledgers start empty,
#                            so each run of P and S sends bodies its ledger has not seen while they last)
#   RECEIPTS_N [150000]      receipts the stand-in issues once (kept in $S_RUN_DIR with its secret)
#   RECEIPTS_WARMUP [5, 3 if quick] RECEIPTS_DURATION [20, 10 if quick]   the intake run (wrk -c64)
#   RECEIPTS_CONCURRENCY [3000]  APPSTORE_CONCURRENCY (at 4.5 s per call, 3000 / 4.5 = 667/s at most)
#   RECEIPTS_LATENCY [3000-6000] the stand-in's latency (ms)
#   RECEIPTS_SETTLE [15] RECEIPTS_WINDOW [60, 30 if quick]   seconds before and of the verified/s window
#   RECEIPTS_INFLIGHT_LATENCY [8000]  the stand-in's latency (ms) while memory per call in flight is measured
#                            (under APPSTORE_TIMEOUT_SECONDS' 10 s; long enough for all the calls to be in flight)
#   P_DB [iap_purchases]  STANDIN [.build/release/appstore-standin]  STANDIN_PORT [18091]
#   PURCHASES_HARNESS [../shared/bench/purchases]
#   BENCH_FORCE_RELOAD=1     reload both databases (else $S_DB is reloaded when load.sql or its parameters
#                            change, or a migration it was loaded under is gone or renamed; new migrations are
#                            applied to the loaded catalog; $S_DB_100K likewise)
#   BENCH_REUSE_ROUNDS=DIR   with BENCH_STEPS without "rounds": report DIR's rounds with this run's other steps
#   BENCH_KEEP=1             leave S, the peers and PostgreSQL running at the end (to profile: perf record -g -p PID)
#   BENCH_LOCK_WAIT [3600]   seconds to wait for another run of this script to end (one run at a time)
#   BENCH_DOC [docs/performance.md]  "" = do not write it
#   IAP_SERVER [.build/release/iap-server]  S_PORT [18080]  S_DB [iap_catalog]  S_DB_100K [iap_catalog_100k]
#   S_RUN_DIR [/tmp/bench-iap]   PEERS_DIR [../shared/bench/peers]
# Output: everything under $BENCH_RUN_DIR/iap-<UTC time>/ (tables, wrk output, facts.txt, server logs).
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$ROOT/../shared/bench/peers}"
[ -f "$PEERS_DIR/config.sh" ] || { echo "no peers' harness at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
PEERS_DIR="$(cd "$PEERS_DIR" && pwd)"
# shellcheck source=/dev/null
source "$PEERS_DIR/config.sh"
[ "$(id -u)" -eq 0 ] || { echo "run.sh: run as root (the peers' scripts drop to user $BENCH_USER)" >&2; exit 1; }
# One run at a time on this machine: runs share PostgreSQL, the ports and the pid files, and each one's start
# and end stop the others' servers (and PostgreSQL). A second run waits for the first (BENCH_LOCK_WAIT seconds).
# The lock is a file holding the run's pid (not a held descriptor, which the servers started would inherit).
RUN_LOCK="$BENCH_RUN_DIR/run.lock"
mkdir -p "$BENCH_RUN_DIR"
lock_waited=0
until ( set -o noclobber; echo "$$" > "$RUN_LOCK" ) 2>/dev/null; do
  other="$(cat "$RUN_LOCK" 2>/dev/null || true)"
  if [ -n "$other" ] && ! tr '\0' ' ' 2>/dev/null < "/proc/$other/cmdline" | grep -q 'run\.sh'; then
    rm -f "$RUN_LOCK"; continue   # left by a run that ended without removing it
  fi
  [ "$lock_waited" = 0 ] && log "another bench/run.sh is running (pid ${other:-?}); waiting for it to end"
  [ "$lock_waited" -lt "${BENCH_LOCK_WAIT:-3600}" ] || { echo "run.sh: pid $other still runs after ${BENCH_LOCK_WAIT:-3600} s" >&2; exit 1; }
  sleep 5; lock_waited=$((lock_waited + 5))
done

COMMAND=""   # as given, for the report
for v in BENCH_QUICK ROUNDS WRK_WARMUP WRK_DURATION BENCH_PEERS BENCH_STEPS ACTIONS_APPS ACTIONS_CONNECTIONS ACTIONS_DURATION \
         WEBHOOKS_RATE WEBHOOKS_WINDOW WEBHOOKS_ROUNDS WEBHOOKS_LOAD STREAMS_COUNT STREAMS_RATE STREAMS_WINDOW PURCHASES_ROUNDS PURCHASES_DURATION RECEIPTS_DURATION RECEIPTS_CONCURRENCY RECEIPTS_WINDOW; do
  [ -n "${!v:-}" ] && COMMAND+="$v=${!v} "
done
COMMAND+="bench/run.sh"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
  export ROUNDS="${ROUNDS:-1}" WRK_WARMUP="${WRK_WARMUP:-5}" WRK_DURATION="${WRK_DURATION:-10}"
  ACTIONS_DURATION="${ACTIONS_DURATION:-10}"; BENCH_CPU_BREAKDOWN="${BENCH_CPU_BREAKDOWN:-0}"
  PURCHASES_ROUNDS="${PURCHASES_ROUNDS:-1}" PURCHASES_WARMUP="${PURCHASES_WARMUP:-5}"
  PURCHASES_DURATION="${PURCHASES_DURATION:-10}" RECEIPTS_WARMUP="${RECEIPTS_WARMUP:-3}"
  RECEIPTS_DURATION="${RECEIPTS_DURATION:-10}" RECEIPTS_WINDOW="${RECEIPTS_WINDOW:-30}"
  WEBHOOKS_WINDOW="${WEBHOOKS_WINDOW:-15}" WEBHOOKS_ROUNDS="${WEBHOOKS_ROUNDS:-1}"
fi
export ROUNDS="${ROUNDS:-3}" WRK_WARMUP="${WRK_WARMUP:-30}" WRK_DURATION="${WRK_DURATION:-20}"
BENCH_PEERS="${BENCH_PEERS:-A B}"
BENCH_STEPS="${BENCH_STEPS:-check rounds actions ceiling rss webhooks streams purchases receipts}"
BENCH_CPU_BREAKDOWN="${BENCH_CPU_BREAKDOWN:-1}"
ACTIONS_CONNECTIONS="${ACTIONS_CONNECTIONS:-32}" ACTIONS_THREADS="${ACTIONS_THREADS:-2}"
ACTIONS_DURATION="${ACTIONS_DURATION:-20}" ACTIONS_WARMUP="${ACTIONS_WARMUP:-5}"
ACTIONS_APPS="${ACTIONS_APPS:-32}" ACTIONS_PER_APP="${ACTIONS_PER_APP:-100}"
RSS_APPS="${RSS_APPS:-200}" RSS_PER_APP="${RSS_PER_APP:-500}"
WEBHOOKS_ENDPOINTS="${WEBHOOKS_ENDPOINTS:-4}" WEBHOOKS_RATE="${WEBHOOKS_RATE:-1000}" WEBHOOKS_WINDOW="${WEBHOOKS_WINDOW:-60}"
WEBHOOKS_CONNECTIONS="${WEBHOOKS_CONNECTIONS:-16}" WEBHOOKS_ROUNDS="${WEBHOOKS_ROUNDS:-4}"
STREAMS_COUNT="${STREAMS_COUNT:-32}" STREAMS_RATE="${STREAMS_RATE:-500}" STREAMS_WINDOW="${STREAMS_WINDOW:-30}"
WEBHOOKS_DRAIN="${WEBHOOKS_DRAIN:-180}" WEBHOOKS_PORT="${WEBHOOKS_PORT:-18093}" WEBHOOKS_LOAD="${WEBHOOKS_LOAD:-pgbench}"
case "$WEBHOOKS_LOAD" in http|pgbench) ;; *) echo "WEBHOOKS_LOAD: http or pgbench" >&2; exit 2;; esac
PURCHASES_ROUNDS="${PURCHASES_ROUNDS:-3}" PURCHASES_CONNECTIONS="${PURCHASES_CONNECTIONS:-64}"
PURCHASES_CEILING_BATCH="${PURCHASES_CEILING_BATCH:-27}"
PURCHASES_WARMUP="${PURCHASES_WARMUP:-10}" PURCHASES_DURATION="${PURCHASES_DURATION:-20}"
PURCHASES_N="${PURCHASES_N:-300000}" RECEIPTS_N="${RECEIPTS_N:-150000}"
RECEIPTS_WARMUP="${RECEIPTS_WARMUP:-5}" RECEIPTS_DURATION="${RECEIPTS_DURATION:-20}"
RECEIPTS_CONCURRENCY="${RECEIPTS_CONCURRENCY:-3000}" RECEIPTS_LATENCY="${RECEIPTS_LATENCY:-3000-6000}"
RECEIPTS_SETTLE="${RECEIPTS_SETTLE:-15}" RECEIPTS_WINDOW="${RECEIPTS_WINDOW:-60}"
RECEIPTS_INFLIGHT_LATENCY="${RECEIPTS_INFLIGHT_LATENCY:-8000}"
PURCHASES_HARNESS="${PURCHASES_HARNESS:-$PEERS_DIR/../purchases}"
P_DB="${P_DB:-iap_purchases}" STANDIN_PORT="${STANDIN_PORT:-18091}"
IAP_SERVER="${IAP_SERVER:-$ROOT/.build/release/iap-server}"
STANDIN="${STANDIN:-$(dirname "$IAP_SERVER")/appstore-standin}"
S_PORT="${S_PORT:-18080}" S_DB="${S_DB:-iap_catalog}" S_DB_100K="${S_DB_100K:-iap_catalog_100k}"
S_ROLE="${S_ROLE:-iap_bench}"   # the service's login role, a member of the migrations' iap_service
S_RUN_DIR="${S_RUN_DIR:-/tmp/bench-iap}"
BENCH_DOC="${BENCH_DOC-$ROOT/docs/performance.md}"
ACTIONS_PREFIX="com.example.actions"
OUT="$BENCH_RUN_DIR/iap-$(date -u +%Y%m%dT%H%M%SZ)"
FACTS="$OUT/facts.txt"
has_step() { [[ " $BENCH_STEPS " == *" $1 "* ]]; }
# The identifier catalog ($S_DB, S serving it) is loaded and started only for the steps that measure it.
CATALOG=0; for step in check rounds actions ceiling rss webhooks streams; do has_step "$step" && CATALOG=1; done
fact() { printf '%s=%s\n' "$1" "$2" >> "$FACTS"; }
psql_as() {  # DB [psql args...]: psql as the cluster's superuser ($BENCH_PGUSER)
  local db="$1"; shift
  as_bench "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$BENCH_PGHOST" -p "$BENCH_PGPORT" -U "$BENCH_PGUSER" -d "$db" "$@"
}
url_of() { echo "postgres://$1@$BENCH_PGHOST:$BENCH_PGPORT/$2"; }
PRIO=(setsid -w sh -c 'n=$1; shift; echo "$n" > /proc/self/autogroup 2>/dev/null; exec nice -n "$n" "$@"' sh "$BENCH_NICE")

# ------------------------------------------------------------------ what this run starts, and stopping it
running() { local st; st="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" || return 1; [ -n "$st" ] && [ "$st" != Z ]; }
stop_server() {  # NAME: stop $BENCH_RUN_DIR/NAME.pid as the peers' stop.sh does (pid file + marker only)
  local name="$1" f="$BENCH_RUN_DIR/$1.pid" pid marker sig kids i
  [ -s "$f" ] || return 0
  pid="$(cat "$f")"; marker="$(cat "$BENCH_RUN_DIR/$name.marker" 2>/dev/null || true)"
  if [ -n "$marker" ] && running "$pid" && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$marker"; then
    kids="$(cat /proc/"$pid"/task/*/children 2>/dev/null || true)"
    sig=TERM; [ "$marker" = nginx ] && sig=QUIT
    log "stopping $name (pid $pid) with SIG$sig"
    kill -s "$sig" "$pid" 2>/dev/null || true
    for i in $(seq 150); do running "$pid" || break; sleep 0.1; done
    running "$pid" && { log "$name still alive after 15 s: SIGKILL"; kill -s KILL "$pid" 2>/dev/null || true; sleep 0.5; }
    for k in $kids; do running "$k" && kill -s TERM "$k" 2>/dev/null || true; done
  fi
  rm -f "$f" "$BENCH_RUN_DIR/$name.marker"
}
STARTED=()          # peer names (peer-a, peer-b, ...) this run started
STARTED_PG=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ "$(cat "$RUN_LOCK" 2>/dev/null)" = "$$" ] && rm -f "$RUN_LOCK"
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    log "BENCH_KEEP=1: leaving the peers, peer-s (pid ${S_PID:-?}) and PostgreSQL running; $PEERS_DIR/stop.sh stops them"
    exit "$rc"
  fi
  stop_server peer-s
  stop_server peer-standin
  stop_server peer-receiver
  for name in "${STARTED[@]}"; do stop_server "$name"; done
  if [ "$STARTED_PG" = 1 ]; then
    log "stopping PostgreSQL (this run started it)"
    as_bench "$PG_BIN/pg_ctl" -D "$BENCH_PGDATA" -m fast -w -t 60 stop >/dev/null || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$OUT"
: > "$FACTS"
cp "$BENCH_DIR/load.sql" "$OUT/load.sql"   # psql reads this copy: an edit of bench/load.sql meanwhile is harmless
log "output: $OUT"

# ------------------------------------------------------------------ 1. the peers
as_bench "$PG_BIN/pg_ctl" -D "$BENCH_PGDATA" status >/dev/null 2>&1 || STARTED_PG=1
[ -s "$BENCH_PGDATA/PG_VERSION" ] || STARTED_PG=1
before=()
has_step check || has_step rounds || BENCH_PEERS=""   # A and B serve identifier lists only
for p in $BENCH_PEERS; do
  case "$p" in A) n=peer-a m=uvicorn;; B) n=peer-b m=nginx;; C) n=peer-c m=gunicorn;; *) echo "BENCH_PEERS: A, B or C" >&2; exit 2;; esac
  proc_alive "$n" "$m" || before+=("$n")
done
"$PEERS_DIR/setup.sh"
# shellcheck disable=SC2086
[ -z "$BENCH_PEERS" ] || "$PEERS_DIR/start.sh" $BENCH_PEERS
STARTED=("${before[@]}")
# A server left by an earlier run (BENCH_KEEP=1) is replaced: it may run another binary or database.
stop_server peer-s
stop_server peer-standin
stop_server peer-receiver

# ------------------------------------------------------------------ 2. the service's databases
[ -x "$IAP_SERVER" ] || { echo "no release build at $IAP_SERVER (swift build -c release --product iap-server)" >&2; exit 1; }
if has_step receipts && [ ! -x "$STANDIN" ]; then
  echo "no release build at $STANDIN (swift build -c release --product appstore-standin)" >&2; exit 1
fi
src_dir="$(dirname "$IAP_SERVER")"
mkdir -p "$S_RUN_DIR"
for i in 1 2 3; do   # copy the binary and its resource bundles; retry if a build replaces it meanwhile
  rm -rf "$S_RUN_DIR/bin.tmp"; mkdir -p "$S_RUN_DIR/bin.tmp"
  cp -p "$IAP_SERVER" "$S_RUN_DIR/bin.tmp/iap-server"
  for r in "$src_dir"/*.resources; do [ -d "$r" ] && cp -rp "$r" "$S_RUN_DIR/bin.tmp/"; done
  ! has_step receipts || cp -p "$STANDIN" "$S_RUN_DIR/bin.tmp/appstore-standin"
  cmp -s "$IAP_SERVER" "$S_RUN_DIR/bin.tmp/iap-server" && break
  log "the binary changed while being copied (a build?); retrying in 30 s"; sleep 30
done
rm -rf "$S_RUN_DIR/bin"; mv "$S_RUN_DIR/bin.tmp" "$S_RUN_DIR/bin"
chmod -R a+rX "$S_RUN_DIR"
SERVER="$S_RUN_DIR/bin/iap-server"
MIGRATIONS="$( (ls "$S_RUN_DIR"/bin/*_CatalogStore.resources/Migrations 2>/dev/null || true) | tr '\n' ' ' | sed 's/ $//')"
[ -n "$MIGRATIONS" ] || { echo "no CatalogStore resource bundle next to $IAP_SERVER" >&2; exit 1; }
log "server: $IAP_SERVER ($(date -u -r "$IAP_SERVER" +%FT%TZ)), migrations: $MIGRATIONS"

psql_as postgres <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN CREATE ROLE iap_service NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$S_ROLE') THEN CREATE ROLE $S_ROLE LOGIN IN ROLE iap_service; END IF;
END \$\$;
SQL

load_db() {  # DB APPS PER_APP: (re)create, migrate and load DB unless it holds exactly this catalog already
  local db="$1" apps="$2" per_app="$3" params have t0
  params="load=$(grep -v '^ *--' "$OUT/load.sql" | sha256sum | cut -c1-12)"
  params+=" apps=$apps per_app=$per_app ready_pct=$BENCH_READY_PCT hot_app=$BENCH_HOT_APP hot_products=$BENCH_HOT_PRODUCTS"
  params+=" hot_ready_pct=$BENCH_HOT_READY_PCT actions_apps=$ACTIONS_APPS actions_per_app=$ACTIONS_PER_APP"
  have="$(psql_as postgres -Atc "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '$db'")"
  # Loaded by the same load.sql with the same parameters, under migrations that are the first of this build's:
  # the missing ones are applied as they would be in production (forward-only), and the catalog is kept.
  local have_migrations="${have#* migrations=}"
  if [ "${have% migrations=*}" = "$params" ] && [ -n "$have_migrations" ] \
    && [ "${MIGRATIONS#"$have_migrations"}" != "$MIGRATIONS" ] && [ "${BENCH_FORCE_RELOAD:-0}" != 1 ]; then
    log "$db: catalog already loaded ($params, under $have_migrations); migrating only"
    as_bench env DATABASE_URL="$(url_of "$BENCH_PGUSER" "$db")" LOG_LEVEL=warning "$SERVER" migrate >/dev/null
    return
  fi
  log "$db: creating, migrating and loading ($params)"
  psql_as postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  as_bench env DATABASE_URL="$(url_of "$BENCH_PGUSER" "$db")" LOG_LEVEL=warning "$SERVER" migrate >/dev/null
  t0=$(date +%s)
  psql_as "$db" -v apps="$apps" -v per_app="$per_app" -v ready_pct="$BENCH_READY_PCT" \
    -v hot_app="$BENCH_HOT_APP" -v hot_products="$BENCH_HOT_PRODUCTS" -v hot_ready_pct="$BENCH_HOT_READY_PCT" \
    -v actions_prefix="$ACTIONS_PREFIX" -v actions_apps="$ACTIONS_APPS" -v actions_per_app="$ACTIONS_PER_APP" \
    -f - < "$OUT/load.sql" | sed 's/^/  /'
  log "$db: loaded in $(( $(date +%s) - t0 )) s"
  psql_as postgres -c "COMMENT ON DATABASE $db IS '$params migrations=$MIGRATIONS'"
}
admin_key() {  # DB: a new admin key's token
  local token
  token="$(as_bench env DATABASE_URL="$(url_of "$S_ROLE" "$1")" LOG_LEVEL=warning "$SERVER" create-key --role admin --name "bench/run.sh $(date -u +%FT%TZ)")"
  [ -n "$token" ] || { echo "create-key printed no token" >&2; exit 1; }
  echo "$token"
}
if [ "$CATALOG" = 1 ]; then
  load_db "$S_DB" "$BENCH_APPS" "$BENCH_PRODUCTS_PER_APP"
  TOKEN="$(admin_key "$S_DB")"
fi

api() {  # METHOD PATH TOKEN [BODY]: the service's answer; stops the run on anything but a 2xx
  local out status
  out="$(curl -s --max-time 30 -w '\n%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
    -H 'Content-Type: application/json' ${4:+--data-binary "$4"} "http://127.0.0.1:$S_PORT$2")" || true
  status="${out##*$'\n'}"; out="${out%$'\n'*}"
  case "$status" in 2??) printf '%s' "$out";; *) echo "run.sh: $1 $2 answered ${status:-nothing}: $out" >&2; exit 1;; esac
}
start_service() {  # DB [NAME=VALUE...]: start S on DB like the peers (start-extra.sh), with this run's settings
  local db="$1"; shift
  env DATABASE_URL="$(url_of "$S_ROLE" "$db")" LOG_LEVEL=warning LOG_FORMAT=json \
    RATE_LIMIT_PER_SECOND=1000000000 RATE_LIMIT_BURST=1000000000 "$@" \
    "$PEERS_DIR/start-extra.sh" s "$S_PORT" -- "$SERVER" serve --port "$S_PORT"
  S_PID="$(cat "$BENCH_RUN_DIR/peer-s.pid")"
  # start-extra.sh waits for the port to answer, not for this process to: another server left on the port
  # (one started by hand) would answer for it while this one exits at once, and be measured in its place.
  sleep 1
  kill -0 "$S_PID" 2>/dev/null || {
    echo "run.sh: the service exited at start (see $BENCH_RUN_DIR/peer-s.log); is 127.0.0.1:$S_PORT taken by another process?" >&2
    exit 1
  }
}
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
counts() {  # DB: "<apps> <products>" of the peers' part of the catalog (without the actions apps)
  psql_as "$1" -Atc "SELECT count(*), coalesce(sum(product_count), 0) FROM apps WHERE bundle_id NOT LIKE '$ACTIONS_PREFIX%'" | tr '|' ' '
}

# ------------------------------------------------------------------ 3. the service
if [ "$CATALOG" = 1 ]; then
  start_service "$S_DB"
  log "S: pid $S_PID, $(grep -m1 VmRSS "/proc/$S_PID/status" | tr -s ' \t' ' ')"
fi

# ------------------------------------------------------------------ facts about this run
{
  echo "date=$(date -u '+%F %H:%M UTC')"
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "kernel=$(uname -sr)"
  echo "postgres=$("$PG_BIN/postgres" --version)"
  echo "nginx=$( (command -v nginx >/dev/null && nginx -v || /usr/sbin/nginx -v) 2>&1 | sed 's/^nginx version: //')"
  echo "wrk=$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "server=${IAP_SERVER#"$ROOT/"}"
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$( [ -n "$(git -C "$ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ] && echo ' + uncommitted changes')"
  echo "binary_mtime=$(date -u -r "$IAP_SERVER" '+%F %H:%M UTC')"
  echo "nice=$BENCH_NICE"
  echo "command=$COMMAND"
  echo "peers=$BENCH_PEERS S=$S_PORT"
  echo "rounds=$ROUNDS"
  echo "wrk_duration=$WRK_DURATION"
  echo "wrk_warmup=$WRK_WARMUP"
  echo "out_dir=$OUT"
  echo "migrations=$(ls "$S_RUN_DIR"/bin/*_CatalogStore.resources/Migrations | sed 's/_.*//' | tr '\n' ' ' | sed 's/ $//')"
} >> "$FACTS"

# ------------------------------------------------------------------ 4. same answers as the peers
if has_step check; then
  psql_as "$BENCH_PGDB" -Atc "SELECT bundle_id FROM apps ORDER BY bundle_id" > "$OUT/apps.txt"
  check_args=()
  for p in $BENCH_PEERS; do
    case "$p" in A) check_args+=("A=$BENCH_PORT_A");; B) check_args+=("B=$BENCH_PORT_B");; C) check_args+=("C=$BENCH_PORT_C");; esac
  done
  all=()
  [[ " $BENCH_PEERS " == *" B "* ]] && all=(--all "B=$BENCH_PORT_B,S=$S_PORT")
  log "checking S against the peers"
  python3 "$BENCH_DIR/tools/check.py" "$OUT/apps.txt" "$BENCH_TYPICAL_APP" "$BENCH_HOT_APP" "$BENCH_MISSING_APP" \
    "${check_args[@]}" "S=$S_PORT" "${all[@]}" | tee "$OUT/check.txt"
fi

# ------------------------------------------------------------------ 5. identifier lists: rounds
if has_step rounds; then
  peers_arg="$BENCH_PEERS S=$S_PORT"
  log "rounds: PEERS=\"$peers_arg\" ROUNDS=$ROUNDS WRK_WARMUP=$WRK_WARMUP WRK_DURATION=$WRK_DURATION"
  PEERS="$peers_arg" "$PEERS_DIR/rounds.sh" "$OUT/rounds"
  if [ "$BENCH_CPU_BREAKDOWN" = 1 ]; then
    for spec in "S $S_PORT iap-server" "B $BENCH_PORT_B nginx" "A $BENCH_PORT_A uvicorn"; do
      read -r label port marker <<< "$spec"
      [ "$label" = S ] || [[ " $BENCH_PEERS " == *" $label "* ]] || continue
      log "CPU breakdown of $label (typical app, 15 s)"
      res="$(WRK_DURATION=15 "$PEERS_DIR/tools/cpu_breakdown.sh" "http://127.0.0.1:$port/v1/apps/$BENCH_TYPICAL_APP/product-identifiers" "$marker" | tr '\n' ';' | sed 's/;$//; s/;/; /')"
      echo "  $label: $res"
      fact "cpu_breakdown_$label" "$res"
    done
  fi
fi

if ! has_step rounds && [ -n "${BENCH_REUSE_ROUNDS:-}" ]; then
  # Report the rounds (and CPU breakdown) of an earlier run's output directory together with this run's steps.
  cp -r "$BENCH_REUSE_ROUNDS/rounds" "$OUT/rounds"
  grep -E '^(cpu_breakdown_[A-Z]|rounds|wrk_duration|wrk_warmup|peers|date)=' "$BENCH_REUSE_ROUNDS/facts.txt" >> "$FACTS" || true
  echo "command=bench/run.sh (rounds, $BENCH_REUSE_ROUNDS), then $COMMAND (BENCH_REUSE_ROUNDS: the rest)" >> "$FACTS"
  echo "out_dir=$BENCH_REUSE_ROUNDS and $OUT" >> "$FACTS"
fi

# ------------------------------------------------------------------ 6. transitions
# Two layouts: the clients spread over ACTIONS_APPS apps (the target's figure: 32 teams, each on its app), and
# all of them on one app, whose hash chain serializes its actions (each holds the chain head until commit).
write_plan() {  # FILTER: one line per product: app, product, the action it allows now (apps interleaved)
  psql_as "$S_DB" -At -F ' ' -c "
    SELECT app, product_id, CASE state WHEN 'READY_FOR_SALE' THEN 'submit_change' ELSE 'withdraw' END
    FROM products WHERE $1 AND state IN ('READY_FOR_SALE', 'WAITING_FOR_REVIEW')
    ORDER BY row_number() OVER (PARTITION BY app ORDER BY product_id), app" > "$OUT/plan.txt"
  [ -s "$OUT/plan.txt" ] || { echo "no products to act on in $S_DB ($1)" >&2; exit 1; }
}
action_wrk() {  # DURATION: wrk on the actions endpoint (prioritised like the peers' wrk runs)
  BENCH_TOKEN="$TOKEN" timeout -k 5 $(( $1 + 30 )) "${PRIO[@]}" \
    wrk -t"$ACTIONS_THREADS" -c"$ACTIONS_CONNECTIONS" -d"$1s" --timeout 10s -s "$BENCH_DIR/wrk/actions.lua" \
    "http://127.0.0.1:$S_PORT" -- "$OUT/plan.txt" "$ACTIONS_THREADS" 2>&1 || true
}
db_state() {  # FILTER: "<action events> <sum of versions>"
  psql_as "$S_DB" -Atc "SELECT (SELECT count(*) FROM history_events WHERE $1 AND kind = 'action'),
                               (SELECT sum(version) FROM products WHERE $1)" | tr '|' ' '
}
pg_stats() {  # commits and rollbacks of the service's database so far
  psql_as "$S_DB" -Atc "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()" | tr '|' ' '
}
PY="$BENCH_VENV/bin/python"; [ -x "$PY" ] || PY=python3
measure_actions() {  # KEY FILTER WHAT: one measured run; facts KEY_*
  local key="$1" filter="$2" what="$3" ev0 ver0 ev1 ver1 xc0 xr0 xc1 xr1 busy other line events versions app v verify_ok=1
  local server_ms postgres_ms
  write_plan "$filter"
  read -r ev0 ver0 < <(db_state "$filter"); read -r xc0 xr0 < <(pg_stats)
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
  log "transitions ($what): wrk -t$ACTIONS_THREADS -c$ACTIONS_CONNECTIONS -d${ACTIONS_DURATION}s on $(wc -l < "$OUT/plan.txt") products"
  action_wrk "$ACTIONS_DURATION" > "$OUT/$key.txt"
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
  read -r busy other < <("$PY" "$PEERS_DIR/tools/cpuacct.py" diff "$OUT/cpu1" "$OUT/cpu2")
  line="$(grep '^BENCH_ACTIONS ' "$OUT/$key.txt" | tail -1 || true)"
  [ -n "$line" ] || { cat "$OUT/$key.txt" >&2; echo "actions wrk printed no result" >&2; exit 1; }
  declare -A r=()
  for kv in ${line#BENCH_ACTIONS }; do r["${kv%%=*}"]="${kv#*=}"; done
  read -r server_ms postgres_ms < <("$PY" "$BENCH_DIR/tools/cpu_split.py" "$OUT/cpu1" "$OUT/cpu2" "$S_PID" "${r[ok]}")
  sleep 2   # the requests in flight when wrk stopped finish
  read -r ev1 ver1 < <(db_state "$filter"); read -r xc1 xr1 < <(pg_stats)
  cp "$OUT/plan.txt" "$OUT/$key.plan"
  events=$((ev1 - ev0)); versions=$((ver1 - ver0))
  # Every chain written to must verify. Meanwhile another client asks for one app every 0.1 s: how long an
  # auditor's verification, which reads and hashes each event of the chain, holds up other requests.
  local probe t0 verify_s verify_events=0 n
  rm -f "$OUT/$key-verify-probe.txt"
  BENCH_TOKEN="$TOKEN" "$BENCH_DIR/tools/during.sh" "http://127.0.0.1:$S_PORT" --probe-into "$OUT/$key-verify-probe.txt" &
  probe=$!
  t0="$(date +%s.%N)"
  for app in $(cut -d' ' -f1 "$OUT/plan.txt" | sort -u); do
    v="$(curl -s --max-time 120 -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$S_PORT/v1/history/verify?app=$app")"
    echo "$v" > "$OUT/verify-$app.json"
    n="$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(c["events"] for c in d["chains"])); sys.exit(0 if d.get("verified") else 1)' <<< "$v")" \
      || { verify_ok=0; log "the history of $app does NOT verify: $v"; }
    verify_events=$((verify_events + ${n:-0}))
  done
  verify_s="$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')"
  kill "$probe" 2>/dev/null; wait "$probe" 2>/dev/null || true
  {
    echo "${key}_ok_per_s=${r[ok_per_s]}"; echo "${key}_ok=${r[ok]}"; echo "${key}_requests=${r[requests]}"
    echo "${key}_non2xx=${r[non2xx]}"
    echo "${key}_socket_errors=$(( r[err_connect] + r[err_read] + r[err_write] + r[err_timeout] ))"
    echo "${key}_p50_ms=${r[p50_ms]}"; echo "${key}_p99_ms=${r[p99_ms]}"
    echo "${key}_connections=$ACTIONS_CONNECTIONS"; echo "${key}_threads=$ACTIONS_THREADS"
    echo "${key}_duration=$ACTIONS_DURATION"
    echo "${key}_apps=$(cut -d' ' -f1 "$OUT/plan.txt" | sort -u | wc -l)"
    echo "${key}_products=$(wc -l < "$OUT/plan.txt")"
    echo "${key}_events=$events"; echo "${key}_versions=$versions"; echo "${key}_verified=$verify_ok"
    echo "${key}_cpu=$busy/$other"; echo "${key}_server_ms=$server_ms"; echo "${key}_postgres_ms=$postgres_ms"
    echo "${key}_commits=$((xc1 - xc0))"; echo "${key}_rollbacks=$((xr1 - xr0))"
    echo "${key}_verify_events=$verify_events"; echo "${key}_verify_s=$verify_s"
    sort -n "$OUT/$key-verify-probe.txt" 2>/dev/null | awk '{ t[NR] = $1 } END { if (NR) printf "%s_verify_probe_n=%d\n%s_verify_probe_p50_ms=%.1f\n%s_verify_probe_max_ms=%.1f\n", k, NR, k, t[int((NR + 1) / 2)] * 1000, k, t[NR] * 1000 }' k="$key"
  } >> "$FACTS"
  log "transitions ($what): ${r[ok_per_s]}/s committed (${r[ok]} 2xx of ${r[requests]}, p50 ${r[p50_ms]} ms, p99 ${r[p99_ms]} ms);" \
      "$events action events, $versions version increments; chains verify: $([ "$verify_ok" = 1 ] && echo yes || echo NO);" \
      "cpu busy/other $busy/$other %; CPU per action: server $server_ms ms, PostgreSQL $postgres_ms ms"
  [ "$events" = "$versions" ] || log "WARNING: $events history events but $versions version increments"
}
if has_step actions; then
  all_filter="app LIKE '$ACTIONS_PREFIX%'"
  write_plan "$all_filter"
  if [ "$ACTIONS_WARMUP" != 0 ]; then
    log "transitions: warm-up ${ACTIONS_WARMUP} s"
    action_wrk "$ACTIONS_WARMUP" > "$OUT/actions-warmup.txt"; sleep 2
  fi
  measure_actions actions "$all_filter" "$ACTIONS_APPS apps"
  measure_actions actions1 "app = '${ACTIONS_PREFIX}01'" "one app"
fi

# ------------------------------------------------------------------ 6b. PostgreSQL's own ceiling for actions
# The same actions on the same apps, made by pgbench straight on the database with the service's statements and
# no HTTP server: what PostgreSQL alone commits per second on this machine, one action per transaction (the read
# and the write, bench/ceiling/action.sql) and sixteen per transaction (sixteen reads and one batch write, as
# LifecycleBatches writes concurrent actions: bench/ceiling/batch.sql). The service, sharing the cores with
# it, cannot go above the second.
measure_ceiling() {  # KEY PER_TRANSACTION SCRIPT: SCRIPT makes PER_TRANSACTION actions per transaction
  local key="$1" per="$2" script="$3" key_id tps failed busy other
  key_id="$(psql_as "$S_DB" -Atc "SELECT id FROM api_keys ORDER BY created_at DESC LIMIT 1")"
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
  log "ceiling ($per per transaction): pgbench -c$ACTIONS_CONNECTIONS -j$ACTIONS_THREADS -T$ACTIONS_DURATION on $ACTIONS_APPS apps"
  "${PRIO[@]}" "$PG_BIN/pgbench" -h "$BENCH_PGHOST" -p "$BENCH_PGPORT" -U "$BENCH_PGUSER" -M prepared -n \
    -c "$ACTIONS_CONNECTIONS" -j "$ACTIONS_THREADS" -T "$ACTIONS_DURATION" -D apps="$ACTIONS_APPS" \
    -D per_app="$ACTIONS_PER_APP" -D prefix="$ACTIONS_PREFIX" -D key_id="$key_id" -D write=1 -D history=1 \
    -f "$script" "$S_DB" \
    > "$OUT/$key.txt" 2>&1 || { cat "$OUT/$key.txt" >&2; echo "pgbench failed" >&2; exit 1; }
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
  # Only "busy": pgbench's connections end with it, so cpuacct.py would count their backends as other work.
  read -r busy other < <("$PY" "$PEERS_DIR/tools/cpuacct.py" diff "$OUT/cpu1" "$OUT/cpu2")
  tps="$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/$key.txt")"
  failed="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$OUT/$key.txt")"
  [ -n "$tps" ] || { cat "$OUT/$key.txt" >&2; echo "pgbench printed no tps" >&2; exit 1; }
  { echo "${key}_per_s=$(awk -v t="$tps" -v n="$per" 'BEGIN { printf "%.1f", t * n }')"
    echo "${key}_per_transaction=$per"; echo "${key}_failed=${failed:-?}"; echo "${key}_cpu=$busy"
    echo "${key}_connections=$ACTIONS_CONNECTIONS"; echo "${key}_duration=$ACTIONS_DURATION"; } >> "$FACTS"
  log "ceiling ($per per transaction): $(grep "^${key}_per_s=" "$FACTS" | cut -d= -f2) actions/s" \
      "($tps transactions/s, ${failed:-?} failed); machine CPU busy $busy %"
}
if has_step ceiling; then
  measure_ceiling ceiling 1 "$BENCH_DIR/ceiling/action.sql"
  measure_ceiling ceiling16 16 "$BENCH_DIR/ceiling/batch.sql"
fi

# ------------------------------------------------------------------ 7. memory
if [ "$CATALOG" = 1 ]; then
  read -r small_apps small_products < <(counts "$S_DB")
  { echo "rss_small_hwm_kb=$(hwm_kb "$S_PID")"; echo "rss_small_products=$small_products"; echo "rss_small_apps=$small_apps"; } >> "$FACTS"
fi
if has_step rss; then
  load_db "$S_DB_100K" "$RSS_APPS" "$RSS_PER_APP"
  stop_server peer-s
  start_service "$S_DB_100K"
  start_kb="$(rss_kb "$S_PID")"
  read -r big_apps big_products < <(counts "$S_DB_100K")
  psql_as "$S_DB_100K" -Atc "SELECT bundle_id FROM apps ORDER BY bundle_id" > "$OUT/apps-100k.txt"
  python3 - "$S_PORT" "$OUT/apps-100k.txt" <<'PY'
import http.client, sys
port, path = int(sys.argv[1]), sys.argv[2]
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
n = size = 0
for app in (l.strip() for l in open(path) if l.strip()):
    conn.request("GET", f"/v1/apps/{app}/product-identifiers")
    r = conn.getresponse(); body = r.read()
    assert r.status == 200, (app, r.status, body[:200])
    n += 1; size += len(body)
print(f"  requested {n} identifier lists ({size:,} B in all)")
PY
  {
    echo "rss_100k_hwm_kb=$(hwm_kb "$S_PID")"; echo "rss_100k_rss_kb=$(rss_kb "$S_PID")"; echo "rss_100k_start_kb=$start_kb"
    echo "rss_100k_products=$big_products"; echo "rss_100k_apps=$big_apps"; echo "rss_100k_date=$(date -u '+%F %H:%M UTC')"
  } >> "$FACTS"
  log "100k catalog ($big_apps apps, $big_products products): VmHWM $(hwm_kb "$S_PID") kB, VmRSS $(rss_kb "$S_PID") kB (after start: $start_kb kB)"
fi
cp "$BENCH_RUN_DIR/peer-s.log" "$OUT/server.log" 2>/dev/null || true

# ------------------------------------------------------------------ 7b. webhooks: delivery lag, and what they cost the actions
# Issue 24. The receiver is nginx (one worker, started like the peers): it answers 204 to every POST at once
# and logs each request's arrival ($msec, when its body has been read), path and webhook-id (evt_<sequence>) in
# the order the requests complete; an endpoint's deliveries come one at a time, so that is their order. The
# events' `at` (set by the statement that appends each, inside its committing transaction) comes from the
# database; lag = arrival - at. Each phase registers its own endpoints (paths /PHASE/1..N) and deletes them.
WH_DIR="$S_RUN_DIR/receiver"
wh_sql() { psql_as "$S_DB" -Atc "$1"; }
wh_max_sequence() { wh_sql "SELECT coalesce(max(sequence), 0) FROM history_events"; }
paced_actions() {  # SECONDS RATE OUTPUT: pgbench makes the actions apps' lifecycle actions with the service's
  # statements (bench/ceiling/action.sql) at RATE per second (-R) for SECONDS: events at a fraction of the HTTP
  # path's CPU. WEBHOOKS_CONNECTIONS clients.
  "${PRIO[@]}" "$PG_BIN/pgbench" -h "$BENCH_PGHOST" -p "$BENCH_PGPORT" -U "$BENCH_PGUSER" -M prepared -n \
    -c "$WEBHOOKS_CONNECTIONS" -j 1 -T "$1" -R "$2" -D apps="$ACTIONS_APPS" \
    -D per_app="$ACTIONS_PER_APP" -D prefix="$ACTIONS_PREFIX" -D write=1 -D history=1 \
    -D key_id="$(wh_sql "SELECT id FROM api_keys ORDER BY created_at DESC LIMIT 1")" \
    -f "$BENCH_DIR/ceiling/action.sql" "$S_DB" > "$3" 2>&1 \
    || { cat "$3" >&2; echo "pgbench failed" >&2; exit 1; }
}
process_cpu_ms() {  # PID: the CPU time (user + system) the process has used so far, in ms
  sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($12 + $13) * 1000 / hz }'
}
wh_create() {  # PHASE: registers the endpoints http://127.0.0.1:$WEBHOOKS_PORT/PHASE/1..N (every event); WH_IDS
  local n
  WH_IDS=()
  for n in $(seq "$WEBHOOKS_ENDPOINTS"); do
    api POST /v1/webhooks "$TOKEN" "{\"url\":\"http://127.0.0.1:$WEBHOOKS_PORT/$1/$n\"}" > "$OUT/webhook.json"
    WH_IDS+=("$(python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' < "$OUT/webhook.json")")
  done
  rm -f "$OUT/webhook.json"   # it holds the endpoint's secret
  sleep 3   # every endpoint leased and its worker following the history (leases are looked for every second)
}
wh_delete() {
  local id
  for id in "${WH_IDS[@]}"; do api DELETE "/v1/webhooks/$id" "$TOKEN" >/dev/null; done
  WH_IDS=()
}
wh_receiver_cpu_ms() {  # the CPU time the receiver (nginx's master and worker) has used so far, in ms
  local pid hz p
  pid="$(cat "$BENCH_RUN_DIR/peer-receiver.pid")"; hz="$(getconf CLK_TCK)"
  for p in "$pid" $(cat /proc/"$pid"/task/*/children 2>/dev/null); do sed 's/.*) //' "/proc/$p/stat"; done \
    | awk -v hz="$hz" '{ t += $12 + $13 } END { printf "%.0f", t * 1000 / hz }'
}
wh_ids_sql() { printf "'%s'," "${WH_IDS[@]}" | sed 's/,$//'; }
wh_drain() {  # THROUGH: waits (at most WEBHOOKS_DRAIN s) until every endpoint's cursor passed THROUGH; prints seconds
  local t0 now through
  t0="$(date +%s.%N)"
  while :; do
    through="$(wh_sql "SELECT coalesce(min(delivered_through), 0) FROM webhook_endpoints WHERE id IN ($(wh_ids_sql))")"
    now="$(date +%s.%N)"
    [ "$through" -ge "$1" ] && break
    if awk -v a="$now" -v b="$t0" -v l="$WEBHOOKS_DRAIN" 'BEGIN { exit !(a - b > l) }'; then
      log "webhooks: the endpoints did not catch up within $WEBHOOKS_DRAIN s (cursor $through, events through $1)"; break
    fi
    sleep 0.2
  done
  awk -v a="$now" -v b="$t0" 'BEGIN { printf "%.1f", a - b }'
}
wh_lag() {  # KEY PHASE FROM THROUGH: the lag of PHASE's endpoints over the events numbered FROM+1..THROUGH; facts KEY_*
  local key="$1" phase="$2" from="$3" through="$4" line kv endpoint
  wh_sql "SELECT sequence, extract(epoch FROM at) FROM history_events WHERE sequence > $from AND sequence <= $through
          ORDER BY sequence" | tr '|' ' ' > "$OUT/$key-events.txt"
  sleep 2   # the receiver writes its log at least every second
  python3 "$BENCH_DIR/tools/webhooks.py" lag "$WH_DIR/access.log" "$OUT/$key-events.txt" "/$phase" "$WEBHOOKS_ENDPOINTS" \
    > "$OUT/$key-lag.txt"
  while read -r line; do
    endpoint="$(sed 's/.* endpoint=\([^ ]*\).*/\1/' <<< "$line")"
    for kv in ${line#WEBHOOKS_LAG }; do
      [ "${kv%%=*}" = endpoint ] || echo "${key}_lag_${endpoint}_${kv%%=*}=${kv#*=}"
    done
  done < <(grep '^WEBHOOKS_LAG ' "$OUT/$key-lag.txt") >> "$FACTS"
  { echo "${key}_failing=$(wh_sql "SELECT count(*) FROM webhook_endpoints WHERE id IN ($(wh_ids_sql))
                                   AND (failed_attempts > 0 OR disabled_at IS NOT NULL)")"
    echo "${key}_attempts_failed=$(wh_sql "SELECT count(*) FROM webhook_attempts WHERE endpoint_id IN ($(wh_ids_sql))
                                           AND outcome <> 'delivered'")"; } >> "$FACTS"
  sed "s/^/  $phase: /" "$OUT/$key-lag.txt"
}
if has_step webhooks; then
  stop_server peer-s
  start_service "$S_DB" WEBHOOK_ALLOW_LOOPBACK_HTTP=1
  rm -rf "$WH_DIR"; mkdir -p "$WH_DIR/tmp"
  cat > "$WH_DIR/nginx.conf" <<CONF
# The webhooks step's receiver (bench/run.sh): 204 to every request, one access-log line per request.
worker_processes 1;
daemon off;
pid $WH_DIR/nginx.pid;
error_log $WH_DIR/error.log warn;
events { worker_connections 1024; }
http {
    server_tokens off;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    client_body_temp_path $WH_DIR/tmp;
    proxy_temp_path $WH_DIR/tmp;
    fastcgi_temp_path $WH_DIR/tmp;
    uwsgi_temp_path $WH_DIR/tmp;
    scgi_temp_path $WH_DIR/tmp;
    log_format delivery '\$msec \$uri \$http_webhook_id \$status';
    access_log $WH_DIR/access.log delivery buffer=256k flush=1s;
    server {
        listen 127.0.0.1:$WEBHOOKS_PORT;
        location / { return 204; }
    }
}
CONF
  chown -R "$BENCH_USER" "$WH_DIR"
  start_bg peer-receiver nginx "$WH_DIR" "$(command -v nginx || echo /usr/sbin/nginx)" -e "$WH_DIR/error.log" -c "$WH_DIR/nginx.conf"
  for i in $(seq 50); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$WEBHOOKS_PORT/ready")" = 204 ] && break
    sleep 0.1
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$WEBHOOKS_PORT/ready")" = 204 ] \
    || { cat "$WH_DIR/error.log" >&2; echo "the webhook receiver did not start on 127.0.0.1:$WEBHOOKS_PORT" >&2; exit 1; }
  log "webhooks: S (pid $S_PID) allows http to loopback; receiver nginx (pid $(cat "$BENCH_RUN_DIR/peer-receiver.pid")) on" \
      "127.0.0.1:$WEBHOOKS_PORT"
  # Endpoints left by a run stopped midway would get this run's events too (and cost it): deleted first.
  WH_IDS=()
  while read -r id; do [ -z "$id" ] || WH_IDS+=("$id"); done < <(api GET /v1/webhooks "$TOKEN" \
    | python3 -c 'import json, sys; print("\n".join(e["id"] for e in json.load(sys.stdin)["items"]))')
  [ "${#WH_IDS[@]}" = 0 ] || { log "webhooks: deleting ${#WH_IDS[@]} endpoint(s) left by an earlier run"; wh_delete; }
  wh_filter="app LIKE '$ACTIONS_PREFIX%'"
  { echo "webhooks_endpoints=$WEBHOOKS_ENDPOINTS"; echo "webhooks_rate=$WEBHOOKS_RATE"; echo "webhooks_window=$WEBHOOKS_WINDOW"
    echo "webhooks_connections=$WEBHOOKS_CONNECTIONS"; echo "webhooks_rounds=$WEBHOOKS_ROUNDS"
    echo "webhooks_load=$WEBHOOKS_LOAD"; } >> "$FACTS"
  if [ "$ACTIONS_WARMUP" != 0 ]; then
    write_plan "$wh_filter"
    log "webhooks: warm-up ${ACTIONS_WARMUP} s of actions (no endpoints)"
    action_wrk "$ACTIONS_WARMUP" > "$OUT/webhooks-warmup.txt"; sleep 2
  fi

  # The lag at a steady WEBHOOKS_RATE events per second.
  wh_create lag
  write_plan "$wh_filter"
  from="$(wh_max_sequence)"
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
  receiver_ms="$(wh_receiver_cpu_ms)"
  log "webhooks: $WEBHOOKS_ENDPOINTS endpoints; actions paced at $WEBHOOKS_RATE/s for $WEBHOOKS_WINDOW s" \
      "($WEBHOOKS_CONNECTIONS connections, $([ "$WEBHOOKS_LOAD" = pgbench ] && echo "pgbench -R" || echo "bench/tools/webhooks.py pace"))"
  if [ "$WEBHOOKS_LOAD" = pgbench ]; then
    paced_actions "$WEBHOOKS_WINDOW" "$WEBHOOKS_RATE" "$OUT/webhooks-pace.txt"
    line="WEBHOOKS_PACE load=pgbench rate=$WEBHOOKS_RATE connections=$WEBHOOKS_CONNECTIONS"
    line+=" ok=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$OUT/webhooks-pace.txt")"
    line+=" non2xx=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$OUT/webhooks-pace.txt")"
    line+=" late_max_ms=$(sed -n 's/^rate limit schedule lag: avg [0-9.]* (max \([0-9.]*\)).*/\1/p' "$OUT/webhooks-pace.txt")"
  else
    BENCH_TOKEN="$TOKEN" timeout -k 5 $((WEBHOOKS_WINDOW + 60)) "${PRIO[@]}" python3 "$BENCH_DIR/tools/webhooks.py" pace \
      "http://127.0.0.1:$S_PORT" "$OUT/plan.txt" "$WEBHOOKS_RATE" "$WEBHOOKS_WINDOW" "$WEBHOOKS_CONNECTIONS" \
      > "$OUT/webhooks-pace.txt" 2>&1 || true
    line="$(grep '^WEBHOOKS_PACE ' "$OUT/webhooks-pace.txt" | tail -1 || true)"
    [ -n "$line" ] || { cat "$OUT/webhooks-pace.txt" >&2; echo "webhooks.py pace printed no result" >&2; exit 1; }
    line="WEBHOOKS_PACE load=http ${line#WEBHOOKS_PACE }"
  fi
  for kv in ${line#WEBHOOKS_PACE }; do echo "webhooks_pace_$kv"; done >> "$FACTS"
  sleep 1   # the requests in flight commit
  through="$(wh_max_sequence)"
  drained="$(wh_drain "$through")"
  # What the deliveries cost the server: in this phase it serves no request, so its CPU is theirs (and its own
  # background work's), from the load's start until every endpoint caught up; and the receiver's.
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
  receiver_ms=$(( $(wh_receiver_cpu_ms) - receiver_ms ))
  read -r events span < <(wh_sql "SELECT count(*), extract(epoch FROM max(at) - min(at)) FROM history_events
                                  WHERE sequence > $from AND sequence <= $through" | tr '|' ' ')
  { echo "webhooks_events=$events"; echo "webhooks_events_span_s=$span"; echo "webhooks_drain_s=$drained"
    echo "webhooks_events_per_s=$(awk -v n="$events" -v s="$span" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }')"
    echo "webhooks_lag_server_ms=$("$PY" "$BENCH_DIR/tools/cpu_split.py" "$OUT/cpu1" "$OUT/cpu2" "$S_PID" "$events" | cut -d' ' -f1)"
    echo "webhooks_lag_receiver_ms=$(awk -v t="$receiver_ms" -v n="$events" 'BEGIN { printf "%.3f", (n > 0 ? t / n : 0) }')"
  } >> "$FACTS"
  log "webhooks: $(sed 's/^WEBHOOKS_PACE //' <<< "$line")"
  log "webhooks: $events events committed over $span s (from the database); every endpoint caught up $drained s after"
  wh_lag webhooks lag "$from" "$through"
  # The deliveries' own pace, nothing else running: the window's events delivered again to the same endpoints
  # (redelivery from its first event), full pages at once; how long until every endpoint is through them, and the
  # server's CPU per event (one delivery to each endpoint).
  if [ "$events" -gt 0 ]; then
    "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
    for id in "${WH_IDS[@]}"; do api POST "/v1/webhooks/$id/redeliver" "$TOKEN" "{\"from\": $((from + 1))}" >/dev/null; done
    drained="$(wh_drain "$through")"
    "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
    { echo "webhooks_redelivery_s=$drained"
      echo "webhooks_redelivery_per_s=$(awk -v n="$events" -v e="$WEBHOOKS_ENDPOINTS" -v s="$drained" \
        'BEGIN { printf "%.0f", (s > 0 ? n * e / s : 0) }')"
      echo "webhooks_redelivery_server_ms=$("$PY" "$BENCH_DIR/tools/cpu_split.py" "$OUT/cpu1" "$OUT/cpu2" "$S_PID" "$events" | cut -d' ' -f1)"
    } >> "$FACTS"
    log "webhooks: $events events delivered again to $WEBHOOKS_ENDPOINTS endpoints in $drained s"
  fi
  wh_delete

  # The actions of step 6 without endpoints and with them, alternating.
  for round in $(seq "$WEBHOOKS_ROUNDS"); do
    order="off on"; [ $((round % 2)) = 0 ] && order="on off"
    for mode in $order; do
      key="webhooks_${mode}_$round"
      [ "$mode" = off ] || wh_create "actions-$round"
      from="$(wh_max_sequence)"
      receiver_ms="$(wh_receiver_cpu_ms)"
      measure_actions "$key" "$wh_filter" "webhooks $mode, round $round/$WEBHOOKS_ROUNDS"
      if [ "$mode" = on ]; then
        receiver_ms=$(( $(wh_receiver_cpu_ms) - receiver_ms ))
        echo "${key}_receiver_ms=$(awk -v t="$receiver_ms" -v n="$(grep "^${key}_ok=" "$FACTS" | cut -d= -f2)" \
          'BEGIN { printf "%.3f", (n > 0 ? t / n : 0) }')" >> "$FACTS"
        through="$(wh_max_sequence)"
        wh_drain "$through" >/dev/null
        wh_lag "$key" "actions-$round" "$from" "$through"
        wh_delete
      fi
    done
  done
  stop_server peer-receiver
  cp "$WH_DIR/access.log" "$OUT/webhooks-receiver.log" 2>/dev/null || true
  cp "$BENCH_RUN_DIR/peer-s.log" "$OUT/server-webhooks.log" 2>/dev/null || true
fi

# ------------------------------------------------------------------ 7c. streams: followers of the live event stream
# Issue 24's other live route. STREAMS_COUNT clients follow GET /v1/events as Server-Sent Events (admin key, no
# filter) while pgbench makes lifecycle actions at STREAMS_RATE/s for STREAMS_WINDOW s, as in step 7b; then each
# stream's lag (the event's arrival minus its `at`), missing, repeated and out-of-order events
# (bench/tools/streams.py, read by webhooks.py lag), and the server's CPU per event and stream: it serves nothing
# else meanwhile, and with no follower it does no work for the actions at all (the feed polls only for them).
if has_step streams; then
  stop_server peer-s
  start_service "$S_DB"
  from="$(wh_max_sequence)"
  rm -f "$OUT/streams-through"
  BENCH_TOKEN="$TOKEN" "${PRIO[@]}" python3 "$BENCH_DIR/tools/streams.py" follow "http://127.0.0.1:$S_PORT" "$from" \
    "$STREAMS_COUNT" "$OUT/streams-through" "$OUT/streams-arrivals.log" > "$OUT/streams-follow.txt" 2>&1 &
  follower=$!
  sleep 2   # every stream open and waiting
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
  follower_ms="$(process_cpu_ms "$follower")"
  log "streams: $STREAMS_COUNT streams follow the history; actions paced at $STREAMS_RATE/s for $STREAMS_WINDOW s (pgbench -R)"
  paced_actions "$STREAMS_WINDOW" "$STREAMS_RATE" "$OUT/streams-pace.txt"
  sleep 1
  through="$(wh_max_sequence)"
  follower_ms=$(( $(process_cpu_ms "$follower") - follower_ms ))
  echo "$through" > "$OUT/streams-through"
  wait "$follower" || { cat "$OUT/streams-follow.txt" >&2; echo "streams.py follow failed" >&2; exit 1; }
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
  read -r events span < <(wh_sql "SELECT count(*), extract(epoch FROM max(at) - min(at)) FROM history_events
                                  WHERE sequence > $from AND sequence <= $through" | tr '|' ' ')
  wh_sql "SELECT sequence, extract(epoch FROM at) FROM history_events WHERE sequence > $from AND sequence <= $through
          ORDER BY sequence" | tr '|' ' ' > "$OUT/streams-events.txt"
  python3 "$BENCH_DIR/tools/webhooks.py" lag "$OUT/streams-arrivals.log" "$OUT/streams-events.txt" /streams \
    "$STREAMS_COUNT" > "$OUT/streams-lag.txt"
  read -r server_ms postgres_ms < <("$PY" "$BENCH_DIR/tools/cpu_split.py" "$OUT/cpu1" "$OUT/cpu2" "$S_PID" "$events")
  { echo "streams_count=$STREAMS_COUNT"; echo "streams_rate=$STREAMS_RATE"; echo "streams_window=$STREAMS_WINDOW"
    echo "streams_events=$events"; echo "streams_events_per_s=$(awk -v n="$events" -v s="$span" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }')"
    echo "streams_server_ms=$server_ms"; echo "streams_postgres_ms=$postgres_ms"
    echo "streams_server_us_per_stream=$(awk -v t="$server_ms" -v k="$STREAMS_COUNT" 'BEGIN { printf "%.1f", t * 1000 / k }')"
    echo "streams_follower_ms=$(awk -v t="$follower_ms" -v n="$events" 'BEGIN { printf "%.3f", (n > 0 ? t / n : 0) }')"
    sed -n 's/^WEBHOOKS_LAG endpoint=all //p' "$OUT/streams-lag.txt" | tr ' ' '\n' | sed 's/^/streams_lag_/'
    awk '/^WEBHOOKS_LAG endpoint=[0-9]/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] ~ /missing|repeated|out_of_order/) t[kv[1]] += kv[2] } }
         END { for (k in t) print "streams_" k "=" t[k] }' "$OUT/streams-lag.txt"
  } >> "$FACTS"
  log "streams: $events events over $span s; $(cat "$OUT/streams-follow.txt")"
  sed "s/^/  streams: /" "$OUT/streams-lag.txt" | grep 'endpoint=all'
  log "streams: the server's CPU $server_ms ms per event for $STREAMS_COUNT streams ($(grep '^streams_server_us_per_stream=' "$FACTS" | cut -d= -f2) µs per event and stream)"
fi

# ------------------------------------------------------------------ 8. purchases: signed transactions
# On a database of their own, made anew by every run, next to peer P (../shared/bench/purchases, Apple's Python
# library). Both ledgers start empty and both servers from the first body, so that every request of every run
# is a transaction its ledger has not seen (while PURCHASES_N lasts: "new %" says so).
PY_VENV="$BENCH_VENV/bin/python"
purchases_app() {  # BUNDLE STORE_SETTINGS_JSON: the app (and the harness's products), its store settings; prints a client key
  local bundle="$1" product
  api POST /v1/apps "$P_TOKEN" "{\"bundleId\":\"$bundle\",\"name\":\"bench $bundle\"}" >/dev/null
  api PUT "/v1/apps/$bundle/store-settings" "$P_TOKEN" "$2" >/dev/null
  for product in coins100:CONSUMABLE coins500:CONSUMABLE removeads:NON_CONSUMABLE \
                 pro.monthly:AUTO_RENEWABLE_SUBSCRIPTION pro.yearly:AUTO_RENEWABLE_SUBSCRIPTION \
                 seasonpass:NON_RENEWING_SUBSCRIPTION; do
    api POST "/v1/apps/$bundle/products" "$P_TOKEN" \
      "{\"productId\":\"$bundle.${product%%:*}\",\"referenceName\":\"${product%%:*}\",\"type\":\"${product#*:}\"}" >/dev/null
  done
  api POST /v1/keys "$P_TOKEN" "{\"role\":\"client\",\"apps\":[\"$bundle\"],\"name\":\"bench/run.sh $bundle\"}" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}
harness_run() {  # KEY LABEL URL WARMUP [NAME=VALUE...]: the harness's run.sh; facts KEY_* from its table row
  local key="$1" label="$2" url="$3" warm="$4" row; shift 4
  env "$@" WRK_CONNECTIONS="$PURCHASES_CONNECTIONS" WRK_WARMUP="$warm" \
    "$PURCHASES_HARNESS/run.sh" "$url" "$label" > "$OUT/$key.txt" 2>&1 \
    || { cat "$OUT/$key.txt" >&2; echo "the harness's run.sh failed" >&2; exit 1; }
  row="$(grep "^| $label " "$OUT/$key.txt" | tail -1)"
  [ -n "$row" ] || { cat "$OUT/$key.txt" >&2; echo "the harness's run.sh printed no result" >&2; exit 1; }
  # | label | req/s | p50 ms | p99 ms | max ms | requests | non-2xx | sock c/r/w/t | rows gained | new % | cpu busy/other |
  awk -F'|' -v k="$key" '{ gsub(/ /, ""); printf "%s_rps=%s\n%s_p50_ms=%s\n%s_p99_ms=%s\n%s_max_ms=%s\n%s_requests=%s\n%s_non2xx=%s\n%s_socket_errors=%s\n%s_rows=%s\n%s_new_pct=%s\n%s_cpu=%s\n",
    k, $3, k, $4, k, $5, k, $6, k, $7, k, $8, k, $9, k, $10, k, $11, k, $12 }' <<< "$row" >> "$FACTS"
  log "$key: $(sed -n '/^| label/,$p' "$OUT/$key.txt" | tail -n +3 | head -1)"
}
if has_step purchases || has_step receipts; then
  export PURCHASES_N
  # shellcheck source=/dev/null
  source "$PURCHASES_HARNESS/config.sh"
  log "purchases: the harness's setup.sh (PURCHASES_N=$PURCHASES_N) and start.sh (peer P)"
  "$PURCHASES_HARNESS/setup.sh" > "$OUT/purchases-setup.txt" 2>&1 \
    || { cat "$OUT/purchases-setup.txt" >&2; echo "the purchases harness's setup.sh failed" >&2; exit 1; }
  proc_alive peer-p uvicorn || STARTED+=(peer-p)
  "$PURCHASES_HARNESS/start.sh" > "$OUT/purchases-start.txt" 2>&1 \
    || { cat "$OUT/purchases-start.txt" >&2; echo "the purchases harness's start.sh failed" >&2; exit 1; }
  log "$P_DB: creating and migrating (both ledgers start empty: peer P's table is emptied too)"
  psql_as postgres -c "DROP DATABASE IF EXISTS $P_DB WITH (FORCE)" -c "CREATE DATABASE $P_DB"
  as_bench env DATABASE_URL="$(url_of "$BENCH_PGUSER" "$P_DB")" LOG_LEVEL=warning "$SERVER" migrate >/dev/null
  psql_as "$BENCH_PGDB" -c "TRUNCATE $PURCHASES_TABLE"
  mkdir -p "$PURCHASES_DATA/cursors"
  for label in P S R; do echo 0 > "$PURCHASES_DATA/cursors/$label"; done
  P_TOKEN="$(admin_key "$P_DB")"
  P_DSN="postgresql://$BENCH_PGUSER@$BENCH_PGHOST:$BENCH_PGPORT/$P_DB"
  SIGNED_ENV=(APPSTORE_ROOT_CERTIFICATES="$PURCHASES_DATA/chain/root.pem"
              RATE_LIMIT_CLIENT_PER_SECOND=1000000000 RATE_LIMIT_CLIENT_BURST=1000000000)
  echo "purchases_n=$(wc -l < "$PURCHASES_DATA/bodies.jsonl")" >> "$FACTS"
fi

if has_step purchases; then
  stop_server peer-s
  start_service "$P_DB" "${SIGNED_ENV[@]}"
  BENCH_APP_KEY="$(purchases_app "$PURCHASES_BUNDLE" '{"environments":["Sandbox"]}')"
  S_URL="http://127.0.0.1:$S_PORT/v1/apps/$PURCHASES_BUNDLE/purchases"
  log "purchases: S (pid $S_PID) on $P_DB trusts only $PURCHASES_DATA/chain/root.pem; $PURCHASES_BUNDLE accepts Sandbox"
  ok=1
  "$PY_VENV" "$BENCH_DIR/tools/purchases_check.py" signed "$S_URL" "$BENCH_APP_KEY" "$P_DSN" ledger_transactions \
    "$PURCHASES_DATA/chain" "$PURCHASES_HARNESS/gen_transactions.py" | tee "$OUT/purchases-check.txt" || ok=0
  echo "purchases_check=$ok" >> "$FACTS"
  ok=1
  "$PY_VENV" "$BENCH_DIR/tools/purchases_check.py" forged "$S_URL" "$BENCH_APP_KEY" "$P_DSN" ledger_transactions \
    "$PURCHASES_DATA/forged.jsonl" | tee "$OUT/purchases-forged.txt" || ok=0
  { echo "purchases_forged_ok=$ok"; echo "purchases_forged=$(wc -l < "$PURCHASES_DATA/forged.jsonl")"
    echo "purchases_forged_refused=$(grep -c '   refused  ' "$OUT/purchases-forged.txt" || true)"
    echo "purchases_rounds=$PURCHASES_ROUNDS"; echo "purchases_duration=$PURCHASES_DURATION"
    echo "purchases_warmup=$PURCHASES_WARMUP"; echo "purchases_connections=$PURCHASES_CONNECTIONS"; } >> "$FACTS"
  # Both warm up first, then both databases are analyzed, as autovacuum would within its naptime (a minute):
  # the rounds measure ledgers with statistics, not a new database's first minute, whose plans are made
  # without them (sql/0022_ledger_lookup_order.sql). The warm-ups' figures are not reported.
  warm_p=0 warm_s=0
  if [ "$PURCHASES_WARMUP" != 0 ]; then
    log "purchases: warm-up of P and S (${PURCHASES_WARMUP}s each), then ANALYZE of both databases"
    harness_run purchases_warm_P P "$PURCHASES_URL_P" 0 WRK_DURATION="$PURCHASES_WARMUP"
    harness_run purchases_warm_S S "$S_URL" 0 WRK_DURATION="$PURCHASES_WARMUP" \
      PURCHASES_TOKEN="$BENCH_APP_KEY" PURCHASES_TABLE=ledger_transactions BENCH_PGDB="$P_DB"
  fi
  psql_as "$P_DB" -c "ANALYZE" >/dev/null
  psql_as "$BENCH_PGDB" -c "ANALYZE" >/dev/null
  for round in $(seq "$PURCHASES_ROUNDS"); do
    order="P S"; [ $((round % 2)) = 0 ] && order="S P"   # alternate which goes first
    for label in $order; do
      log "purchases: round $round/$PURCHASES_ROUNDS, $label (wrk -c$PURCHASES_CONNECTIONS -d${PURCHASES_DURATION}s)"
      if [ "$label" = P ]; then
        harness_run "purchases_P_$round" P "$PURCHASES_URL_P" "$warm_p" WRK_DURATION="$PURCHASES_DURATION"
        warm_p=0
      else
        # S's CPU per signed transaction, the server's and PostgreSQL's (bench/tools/cpu_split.py), over the run.
        "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
        harness_run "purchases_S_$round" S "$S_URL" "$warm_s" WRK_DURATION="$PURCHASES_DURATION" \
          PURCHASES_TOKEN="$BENCH_APP_KEY" PURCHASES_TABLE=ledger_transactions BENCH_PGDB="$P_DB"
        "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
        read -r server_ms postgres_ms < <("$PY" "$BENCH_DIR/tools/cpu_split.py" "$OUT/cpu1" "$OUT/cpu2" "$S_PID" \
          "$(sed -n "s/^purchases_S_${round}_requests=//p" "$FACTS" | tail -1)")
        { echo "purchases_S_${round}_server_ms=$server_ms"; echo "purchases_S_${round}_postgres_ms=$postgres_ms"; } >> "$FACTS"
        warm_s=0
      fi
    done
  done
  echo "purchases_s_hwm_kb=$(hwm_kb "$S_PID")" >> "$FACTS"
  cp "$BENCH_RUN_DIR/peer-s.log" "$OUT/server-purchases.log" 2>/dev/null || true
  # PostgreSQL alone, the service's batches (bench/ceiling/signed.sql): PURCHASES_CEILING_BATCH new transactions
  # per batch, as many batches at once as the service runs (2), no HTTP server and no verification; S is idle.
  log "purchases: PostgreSQL alone, batches of $PURCHASES_CEILING_BATCH (pgbench -c2 -T$PURCHASES_DURATION, bench/ceiling/signed.sql)"
  key_id="$(psql_as "$P_DB" -Atc "SELECT id FROM api_keys WHERE role = 'client' AND apps = ARRAY['$PURCHASES_BUNDLE'] LIMIT 1")"
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
  "${PRIO[@]}" "$PG_BIN/pgbench" -h "$BENCH_PGHOST" -p "$BENCH_PGPORT" -U "$BENCH_PGUSER" -M prepared -n -c 2 -j 2 \
    -T "$PURCHASES_DURATION" -D app="$PURCHASES_BUNDLE" -D product="$PURCHASES_BUNDLE.removeads" -D key_id="$key_id" \
    -D size="$PURCHASES_CEILING_BATCH" -f "$BENCH_DIR/ceiling/signed.sql" "$P_DB" \
    > "$OUT/purchases-ceiling.txt" 2>&1 || { cat "$OUT/purchases-ceiling.txt" >&2; echo "pgbench failed" >&2; exit 1; }
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
  read -r busy other < <("$PY" "$PEERS_DIR/tools/cpuacct.py" diff "$OUT/cpu1" "$OUT/cpu2")
  tps="$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/purchases-ceiling.txt")"
  [ -n "$tps" ] || { cat "$OUT/purchases-ceiling.txt" >&2; echo "pgbench printed no tps" >&2; exit 1; }
  { echo "purchases_ceiling_per_s=$(awk -v t="$tps" -v n="$PURCHASES_CEILING_BATCH" 'BEGIN { printf "%.1f", t * n }')"
    echo "purchases_ceiling_batch=$PURCHASES_CEILING_BATCH"; echo "purchases_ceiling_cpu=$busy"; } >> "$FACTS"
  log "purchases: PostgreSQL alone $(grep "^purchases_ceiling_per_s=" "$FACTS" | cut -d= -f2) signed transactions/s" \
      "($tps batches/s); machine CPU busy $busy %"
fi

# ------------------------------------------------------------------ 9. receipts: intake, and verified end to end
# S restarted (its VmHWM is then the receipts' alone) with the stand-in App Store as both verifyReceipt
# endpoints, answering after RECEIPTS_LATENCY ms; receipts of an app of their own (Production, so one call each).
if has_step receipts; then
  # One connection to the App Store per verification in flight: the server and the stand-in each need that many.
  [ "$(ulimit -n)" -ge $((RECEIPTS_CONCURRENCY + 4096)) ] || ulimit -n $((RECEIPTS_CONCURRENCY + 4096)) 2>/dev/null \
    || log "receipts: WARNING: open files limited to $(ulimit -n), under APPSTORE_CONCURRENCY + 4096"
  secret="$S_RUN_DIR/standin.secret"
  [ -s "$secret" ] || head -c 32 /dev/urandom > "$secret"
  chown "root:$BENCH_USER" "$secret"; chmod 640 "$secret"
  RECEIPTS_BUNDLE="com.example.receipts"
  start_standin() {  # LATENCY: the stand-in App Store, answering after LATENCY ms
    "$PEERS_DIR/start-extra.sh" standin "$STANDIN_PORT" -- "$S_RUN_DIR/bin/appstore-standin" serve \
      --port "$STANDIN_PORT" --latency "$1" --secret-file "$secret" --log-level warning
  }
  start_standin "$RECEIPTS_LATENCY"
  receipts="$S_RUN_DIR/receipts.jsonl"
  params="n=$RECEIPTS_N bundle=$RECEIPTS_BUNDLE secret=$(sha256sum "$secret" | cut -c1-16)"
  if [ "$(cat "$receipts.params" 2>/dev/null)" != "$params" ] || [ ! -s "$receipts" ]; then
    log "receipts: the stand-in issues $RECEIPTS_N receipts (once; kept in $receipts)"
    "$PY_VENV" "$BENCH_DIR/tools/receipts.py" issue "http://127.0.0.1:$STANDIN_PORT" "$RECEIPTS_N" "$receipts.tmp" \
      "$RECEIPTS_BUNDLE"
    mv "$receipts.tmp" "$receipts"; chmod 644 "$receipts"; echo "$params" > "$receipts.params"
  fi
  stop_server peer-s
  receipts_service() {
    start_service "$P_DB" "${SIGNED_ENV[@]}" \
      APPSTORE_VERIFY_RECEIPT_PRODUCTION_URL="http://127.0.0.1:$STANDIN_PORT/verifyReceipt" \
      APPSTORE_VERIFY_RECEIPT_SANDBOX_URL="http://127.0.0.1:$STANDIN_PORT/sandbox/verifyReceipt" \
      APPSTORE_CONCURRENCY="$RECEIPTS_CONCURRENCY"
  }
  receipts_service
  RECEIPTS_KEY="$(purchases_app "$RECEIPTS_BUNDLE" '{"environments":["Production","Sandbox"],"sharedSecret":"bench-shared-secret"}')"
  log "receipts: S (pid $S_PID, APPSTORE_CONCURRENCY=$RECEIPTS_CONCURRENCY, open files $(ulimit -n)); stand-in (pid" \
      "$(cat "$BENCH_RUN_DIR/peer-standin.pid")) answering in $RECEIPTS_LATENCY ms"
  { echo "receipts_concurrency=$RECEIPTS_CONCURRENCY"; echo "receipts_latency=$RECEIPTS_LATENCY"
    echo "receipts_connections=$PURCHASES_CONNECTIONS"
    echo "receipts_duration=$RECEIPTS_DURATION"; echo "receipts_warmup=$RECEIPTS_WARMUP"; } >> "$FACTS"
  log "receipts: intake (wrk -c$PURCHASES_CONNECTIONS -d${RECEIPTS_DURATION}s after ${RECEIPTS_WARMUP}s and ANALYZE)"
  if [ "$RECEIPTS_WARMUP" != 0 ]; then   # as for signed transactions: measured with statistics
    harness_run receipts_warm R "http://127.0.0.1:$S_PORT/v1/apps/$RECEIPTS_BUNDLE/purchases" 0 \
      WRK_DURATION="$RECEIPTS_WARMUP" PURCHASES_BODIES="$receipts" PURCHASES_TOKEN="$RECEIPTS_KEY" \
      PURCHASES_TABLE=purchase_submissions BENCH_PGDB="$P_DB"
  fi
  psql_as "$P_DB" -c "ANALYZE" >/dev/null
  harness_run receipts_intake R "http://127.0.0.1:$S_PORT/v1/apps/$RECEIPTS_BUNDLE/purchases" 0 \
    WRK_DURATION="$RECEIPTS_DURATION" PURCHASES_BODIES="$receipts" PURCHASES_TOKEN="$RECEIPTS_KEY" \
    PURCHASES_TABLE=purchase_submissions BENCH_PGDB="$P_DB"
  log "receipts: verified per second, from the database ($RECEIPTS_SETTLE s to settle, then $RECEIPTS_WINDOW s)"
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu1"
  "$PY_VENV" "$BENCH_DIR/tools/receipts.py" watch "$P_DSN" "$RECEIPTS_BUNDLE" "$S_PID" "$RECEIPTS_SETTLE" \
    "$RECEIPTS_WINDOW" | tee "$OUT/receipts-verified.txt"
  "$PY" "$PEERS_DIR/tools/cpuacct.py" snap "$(id -u "$BENCH_USER")" > "$OUT/cpu2"
  line="$(grep '^RECEIPTS_RESULT ' "$OUT/receipts-verified.txt" | tail -1)"
  [ -n "$line" ] || { echo "receipts.py printed no result" >&2; exit 1; }
  for kv in ${line#RECEIPTS_RESULT }; do echo "receipts_$kv"; done >> "$FACTS"
  # No intake runs while the worker verifies here: the CPU of these seconds is the verified receipts'.
  read -r server_ms postgres_ms < <("$PY" "$BENCH_DIR/tools/cpu_split.py" "$OUT/cpu1" "$OUT/cpu2" "$S_PID" \
    "$(grep -o 'verified_during=[0-9]*' <<< "$line" | cut -d= -f2)")
  { echo "receipts_verified_server_ms=$server_ms"; echo "receipts_verified_postgres_ms=$postgres_ms"; } >> "$FACTS"
  curl -s --max-time 10 "http://127.0.0.1:$STANDIN_PORT/standin/verifications" | head -c 2000 > "$OUT/standin-verifications.json" || true
  cp "$BENCH_RUN_DIR/peer-s.log" "$OUT/server-receipts.log" 2>/dev/null || true
  cp "$BENCH_RUN_DIR/peer-standin.log" "$OUT/standin.log" 2>/dev/null || true
  # Memory per verification in flight: a fresh S, every call in flight at once (receipts issued for this, none
  # of them sent before), the stand-in holding each answer for RECEIPTS_INFLIGHT_LATENCY ms.
  log "receipts: memory per verification in flight ($RECEIPTS_CONCURRENCY at once, stand-in at $RECEIPTS_INFLIGHT_LATENCY ms)"
  "$PY_VENV" "$BENCH_DIR/tools/receipts.py" issue "http://127.0.0.1:$STANDIN_PORT" "$RECEIPTS_CONCURRENCY" \
    "$S_RUN_DIR/receipts-inflight.jsonl" "$RECEIPTS_BUNDLE"
  stop_server peer-s
  stop_server peer-standin
  start_standin "$RECEIPTS_INFLIGHT_LATENCY"
  receipts_service
  "$PY_VENV" "$BENCH_DIR/tools/receipts.py" inflight "http://127.0.0.1:$S_PORT/v1/apps/$RECEIPTS_BUNDLE/purchases" \
    "$RECEIPTS_KEY" "$S_RUN_DIR/receipts-inflight.jsonl" "$RECEIPTS_CONCURRENCY" "$P_DSN" "$RECEIPTS_BUNDLE" "$S_PID" \
    | tee "$OUT/receipts-inflight.txt"
  line="$(grep '^INFLIGHT_RESULT ' "$OUT/receipts-inflight.txt" | tail -1)"
  [ -n "$line" ] || { echo "receipts.py inflight printed no result" >&2; exit 1; }
  for kv in ${line#INFLIGHT_RESULT }; do echo "receipts_inflight_$kv"; done >> "$FACTS"
fi

# ------------------------------------------------------------------ 10. report
echo
mkdir -p "$OUT/rounds"; touch "$OUT/rounds/results.tsv"
python3 "$BENCH_DIR/tools/report.py" "$OUT/rounds/results.tsv" "$FACTS" ${BENCH_DOC:+"$BENCH_DOC"} | tee "$OUT/report.txt"
log "done; raw output in $OUT"
