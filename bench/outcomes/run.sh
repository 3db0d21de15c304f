#!/usr/bin/env bash
# PostgreSQL's time per verified receipt, without the server, the stand-in or the network: batches of verified
# outcomes written by purchases_record_verified (sql/0027, a statement per step) and by 0023's version of it
# (loaded beside it as purchases_record_verified_0023, a transaction at a time), one pgbench client each,
# alternating, every batch a transaction of its own. Prints per receipt pgbench's latency (wall: the commit's
# WAL flush included) and the CPU the cluster's processes spent (docs/performance.md, "Receipts: verified
# outcomes a statement per step").
#
#   bench/outcomes/run.sh            # SIZES="4 8 16" RECEIPTS=3200 ROUNDS=4 WARMUP=20
#
# Needs a built iap-server (swift build -c release --product iap-server) to apply the migrations.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIZES=${SIZES:-4 8 16}
RECEIPTS=${RECEIPTS:-3200}   # per batch size, version and round
ROUNDS=${ROUNDS:-4}
WARMUP=${WARMUP:-20}         # batches per batch size and version first, not counted
DATA="$ROOT/.data/bench-outcomes"
PORT=${PORT:-$("$ROOT/scripts/postgres" free-port)}
SERVER=${SERVER:-$ROOT/.build/release/iap-server}
[[ -x $SERVER ]] || SERVER="$ROOT/.build/debug/iap-server"

"$ROOT/scripts/postgres" start "$DATA" "$PORT"
trap '"$ROOT/scripts/postgres" stop "$DATA"' EXIT
psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -c "DROP DATABASE IF EXISTS outcomes" -c "CREATE DATABASE outcomes"
URL="postgres://postgres@127.0.0.1:$PORT/outcomes"
DATABASE_URL=$URL "$SERVER" migrate --log-level warning
PSQL=(psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d outcomes -v ON_ERROR_STOP=1)

# 0023's function under another name: from its CREATE to the next function's.
sed -n '/^CREATE OR REPLACE FUNCTION purchases_record_verified(items jsonb)/,/^CREATE OR REPLACE FUNCTION purchases_record_notification/p' \
	"$ROOT/Sources/CatalogStore/Migrations/0023_set_wise_intake.sql" | sed '$d' \
	| sed 's/FUNCTION purchases_record_verified(items jsonb)/FUNCTION purchases_record_verified_0023(items jsonb)/' \
	| "${PSQL[@]}"
for size in $SIZES; do
	"${PSQL[@]}" -v size="$size" -v count=$((2 * ROUNDS * RECEIPTS / size + 2 * WARMUP)) -f "$ROOT/bench/outcomes/load.sql"
done
# Autovacuum would run in some runs and not others: the tables written are vacuumed once, here.
for table in purchase_submissions submission_receipts ledger_transactions ledger_sources account_signals \
	history_events history_chains; do
	"${PSQL[@]}" -c "ALTER TABLE $table SET (autovacuum_enabled = false)"
done
"${PSQL[@]}" -c "VACUUM ANALYZE" -c "CHECKPOINT"

SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"; "$ROOT/scripts/postgres" stop "$DATA"' EXIT
echo "SELECT count(*) FROM :fn((SELECT items FROM outcome_batches WHERE size = :size AND n = (SELECT nextval('next_batch'))));" > "$SCRIPT"
declare -A total=() cpu=()
cluster_ticks() {  # CPU ticks of the cluster's processes so far: the postmaster's, its children's, and those that ended
	local master
	master=$(head -1 "$DATA/postmaster.pid")
	{ cut -d' ' -f14-17 "/proc/$master/stat"
	  for child in $(pgrep -P "$master"); do cut -d' ' -f14-15 "/proc/$child/stat" 2>/dev/null || true; done
	} | tr ' ' '\n' | awk '{ t += $1 } END { print t }'
}
TICK_MS=$(awk -v hz="$(getconf CLK_TCK)" 'BEGIN { print 1000 / hz }')
run() {  # FUNCTION SIZE: "wall-ms cpu-ms" per receipt
	local latency before after
	before=$(cluster_ticks)
	latency=$(pgbench -n -c 1 -t $((RECEIPTS / $2)) -f "$SCRIPT" -D fn="$1" -D size="$2" -h 127.0.0.1 -p "$PORT" -U postgres outcomes 2>&1 \
		| awk '/latency average/ { print $4 }')
	sleep 0.2  # the backend has ended and been counted
	after=$(cluster_ticks)
	awk -v l="$latency" -v s="$2" -v t=$((after - before)) -v ms="$TICK_MS" -v n="$RECEIPTS" \
		'BEGIN { printf "%.3f %.3f\n", l / s, t * ms / n }'
}
for size in $SIZES; do
	"${PSQL[@]}" -c "SELECT setval('next_batch', 1, false)" > /dev/null
	for fn in purchases_record_verified purchases_record_verified_0023; do
		pgbench -n -c 1 -t "$WARMUP" -f "$SCRIPT" -D fn="$fn" -D size="$size" -h 127.0.0.1 -p "$PORT" -U postgres outcomes > /dev/null 2>&1
	done
	for round in $(seq 1 "$ROUNDS"); do
		order="purchases_record_verified purchases_record_verified_0023"
		(( round % 2 == 0 )) && order="purchases_record_verified_0023 purchases_record_verified"
		line="batches of $size, round $round:"
		for fn in $order; do
			read -r ms cpu_ms < <(run "$fn" "$size")
			total[$fn/$size]=$(awk -v a="${total[$fn/$size]:-0}" -v b="$ms" 'BEGIN { print a + b }')
			cpu[$fn/$size]=$(awk -v a="${cpu[$fn/$size]:-0}" -v b="$cpu_ms" 'BEGIN { print a + b }')
			line+=" $fn $ms ms (CPU $cpu_ms ms)"
		done
		echo "$line"
	done
	mean() { awk -v t="$1" -v r="$ROUNDS" 'BEGIN { printf "%.3f", t / r }'; }
	echo "batches of $size, per receipt: 0027 $(mean "${total[purchases_record_verified/$size]}") ms" \
		"(CPU $(mean "${cpu[purchases_record_verified/$size]}") ms) against 0023 $(mean "${total[purchases_record_verified_0023/$size]}")" \
		"ms (CPU $(mean "${cpu[purchases_record_verified_0023/$size]}") ms)"
done
