#!/usr/bin/env bash
# PostgreSQL's time per verified receipt, without the server, the stand-in or the network: batches of verified
# outcomes written by purchases_record_verified (sql/0027, a statement per step) and by 0023's version of it
# (loaded beside it as purchases_record_verified_0023, a transaction at a time), one pgbench client each,
# alternating, every batch a transaction of its own (docs/performance.md, "Receipts: verified outcomes a
# statement per step").
#
#   bench/outcomes/run.sh            # SIZES="4 8 16" RECEIPTS=3200 ROUNDS=2
#
# Needs a built iap-server (swift build -c release --product iap-server) to apply the migrations.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIZES=${SIZES:-4 8 16}
RECEIPTS=${RECEIPTS:-3200}   # per batch size, version and round
ROUNDS=${ROUNDS:-2}
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
	"${PSQL[@]}" -v size="$size" -v count=$((2 * ROUNDS * RECEIPTS / size)) -f "$ROOT/bench/outcomes/load.sql"
done
"${PSQL[@]}" -c "VACUUM ANALYZE"

SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"; "$ROOT/scripts/postgres" stop "$DATA"' EXIT
echo "SELECT count(*) FROM :fn((SELECT items FROM outcome_batches WHERE size = :size AND n = (SELECT nextval('next_batch'))));" > "$SCRIPT"
declare -A total=()
run() {  # FUNCTION SIZE: ms per receipt
	local latency
	latency=$(pgbench -n -c 1 -t $((RECEIPTS / $2)) -f "$SCRIPT" -D fn="$1" -D size="$2" -h 127.0.0.1 -p "$PORT" -U postgres outcomes 2>&1 \
		| awk '/latency average/ { print $4 }')
	awk -v l="$latency" -v s="$2" 'BEGIN { printf "%.3f", l / s }'
}
for size in $SIZES; do
	"${PSQL[@]}" -c "SELECT setval('next_batch', 1, false)" > /dev/null
	for round in $(seq 1 "$ROUNDS"); do
		order="purchases_record_verified purchases_record_verified_0023"
		(( round % 2 == 0 )) && order="purchases_record_verified_0023 purchases_record_verified"
		line="batches of $size, round $round:"
		for fn in $order; do
			ms=$(run "$fn" "$size")
			total[$fn/$size]=$(awk -v a="${total[$fn/$size]:-0}" -v b="$ms" 'BEGIN { print a + b }')
			line+=" $fn $ms ms"
		done
		echo "$line"
	done
	printf 'batches of %s: %.3f ms per receipt (0027) against %.3f ms (0023)\n' "$size" \
		"$(awk -v t="${total[purchases_record_verified/$size]}" -v r="$ROUNDS" 'BEGIN { print t / r }')" \
		"$(awk -v t="${total[purchases_record_verified_0023/$size]}" -v r="$ROUNDS" 'BEGIN { print t / r }')"
done
