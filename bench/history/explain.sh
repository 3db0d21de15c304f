#!/usr/bin/env bash
# Loads EVENTS (default 5,000,000) history events into a private PostgreSQL and shows the plans and timings
# of the history queries the API runs, with EXPLAIN (ANALYZE, BUFFERS).
#
#   bench/history/explain.sh            # EVENTS=5000000 APPS=1000 PRODUCTS=50
#
# Needs a built iap-server (swift build -c release --product iap-server) to apply the migrations.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
EVENTS=${EVENTS:-5000000}
APPS=${APPS:-1000}
PRODUCTS=${PRODUCTS:-50}
DATA="$ROOT/.data/bench-history"
PORT=${PORT:-$("$ROOT/scripts/postgres" free-port)}
SERVER="$ROOT/.build/release/iap-server"
[[ -x $SERVER ]] || SERVER="$ROOT/.build/debug/iap-server"

"$ROOT/scripts/postgres" start "$DATA" "$PORT"
trap '"$ROOT/scripts/postgres" stop "$DATA"' EXIT
psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -c "DROP DATABASE IF EXISTS history_scale" -c "CREATE DATABASE history_scale"
URL="postgres://postgres@127.0.0.1:$PORT/history_scale"
DATABASE_URL=$URL "$SERVER" migrate --log-level warning
PSQL=(psql -X -h 127.0.0.1 -p "$PORT" -U postgres -d history_scale -v ON_ERROR_STOP=1)
echo "loading $EVENTS events over $APPS apps x $PRODUCTS products"
time "${PSQL[@]}" -q -v events="$EVENTS" -v apps="$APPS" -v products="$PRODUCTS" -f "$ROOT/bench/history/load.sql"
"${PSQL[@]}" -c "SELECT count(*) AS events, pg_size_pretty(pg_total_relation_size('history_events')) AS size FROM history_events"

explain() {
	echo
	echo "== $1"
	"${PSQL[@]}" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) $2"
}
# The queries as the API issues them (HistoryRepository), with their parameters filled in.
explain "one product's history, oldest first (GET /v1/apps/{app}/products/{id}/history)" \
	"SELECT * FROM history_events WHERE app = 'com.scale.app42' AND product_id = 'product.7' ORDER BY sequence LIMIT 51"
explain "one product's events up to an instant (GET product?asOf=)" \
	"SELECT * FROM history_events WHERE app = 'com.scale.app42' AND product_id = 'product.7' AND at <= now() ORDER BY sequence"
# /v1/history runs one statement whose filters are parameters that are NULL when unused; PostgreSQL plans it
# with the values given, so the unused ones fold away. This is that statement (HistoryRepository.query).
HISTORY_QUERY='SELECT * FROM history_events
WHERE ($1::text[] IS NULL OR app = ANY($1::text[])) AND ($2::text IS NULL OR app = $2::text)
  AND ($3::text IS NULL OR product_id = $3::text) AND ($4::uuid IS NULL OR actor_key_id = $4::uuid)
  AND ($5::text IS NULL OR actor_name = $5::text)
  AND ($6::review_action IS NULL OR action = $6::review_action) AND ($7::history_kind IS NULL OR kind = $7::history_kind)
  AND ($8::review_state IS NULL OR from_state = $8::review_state OR to_state = $8::review_state)
  AND ($9::timestamptz IS NULL OR at >= $9::timestamptz) AND ($10::timestamptz IS NULL OR at < $10::timestamptz)
  AND ($11::xid8 IS NULL OR txid < $11::xid8)
  AND ($12::bigint IS NULL OR ($13::bool AND sequence < $12::bigint) OR (NOT $13::bool AND sequence > $12::bigint))
ORDER BY sequence DESC LIMIT $14::bigint'
history() {
	echo
	echo "== $1"
	"${PSQL[@]}" -c "PREPARE history AS $HISTORY_QUERY" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE history($2)"
}
history "GET /v1/history?app=&productId= (newest first, first page)" \
	"NULL, 'com.scale.app42', 'product.7', NULL, NULL, NULL, NULL, NULL, NULL, NULL, '100000', NULL, true, 51"
history "GET /v1/history?app= (newest first, a later page)" \
	"NULL, 'com.scale.app42', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '100000', 4000000, true, 51"
history "GET /v1/history?actor=NAME (newest first)" \
	"NULL, NULL, NULL, NULL, 'loader 3', NULL, NULL, NULL, NULL, NULL, '100000', NULL, true, 51"
history "GET /v1/history (everything, newest first), for a key limited to two apps" \
	"ARRAY['com.scale.app1','com.scale.app2'], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '100000', NULL, true, 51"
history "GET /v1/history?state=IN_REVIEW&since= (rare filter over a time window)" \
	"NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'IN_REVIEW', '2026-01-01T00:10:00Z', '2026-01-01T00:20:00Z', '100000', NULL, true, 51"

# The export's memory: the server streams every event (EVENTS of them) as CSV and as NDJSON to a reader as
# fast as curl takes them, while its resident set is sampled every 100 ms. The figure that matters is the
# growth of the peak over the resident set after a warm-up request.
[[ ${EXPORT:-1} == 1 ]] || exit 0
SERVER_PORT=$("$ROOT/scripts/postgres" free-port)
KEY=$(DATABASE_URL=$URL "$SERVER" create-key --role auditor --name "bench auditor" --log-level warning)
DATABASE_URL=$URL LOG_LEVEL=warning RATE_LIMIT_PER_SECOND=1000000 "$SERVER" serve --port "$SERVER_PORT" >/dev/null &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; "$ROOT/scripts/postgres" stop "$DATA"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$SERVER_PORT/v1/health/ready" >/dev/null && break; sleep 0.1; done
rss() { awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status"; }
export_events() { # format (text/csv or application/x-ndjson)
	curl -sf -H "Authorization: Bearer $KEY" -H "Accept: $1" "http://127.0.0.1:$SERVER_PORT/v1/history?order=oldest" -o "$DATA/export.out" &
	local reader=$! peak=0 now
	while kill -0 $reader 2>/dev/null; do
		now=$(rss); ((now > peak)) && peak=$now
		sleep 0.1
	done
	wait $reader
	echo "$peak"
}
curl -sf -H "Authorization: Bearer $KEY" "http://127.0.0.1:$SERVER_PORT/v1/history?limit=200" >/dev/null
for format in text/csv application/x-ndjson; do
	before=$(rss)
	start=$(date +%s.%N)
	peak=$(export_events "$format")
	seconds=$(echo "$(date +%s.%N) - $start" | bc)
	lines=$(wc -l <"$DATA/export.out")
	bytes=$(stat -c %s "$DATA/export.out")
	echo
	echo "== export $format: $lines lines, $((bytes / 1048576)) MiB in ${seconds}s;" \
		"server RSS $((before / 1024)) MiB before, peak $((peak / 1024)) MiB (growth $(((peak - before) / 1024)) MiB)"
done
