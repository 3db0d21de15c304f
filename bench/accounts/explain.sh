#!/usr/bin/env bash
# Loads TRANSACTIONS (default 1,000,000) ledger transactions of one app bought by ACCOUNTS (default 100,000)
# accounts, and as many again for each of OTHER_APPS (default 1) other apps, into a private PostgreSQL, and shows
# the plans and timings of one account's reads with EXPLAIN (ANALYZE, BUFFERS): the query
# GET /v1/apps/{bundleId}/accounts/{accountToken} runs (AccountRepository.Transactions), by either form of the
# token, and the window ledger_signals reads for manyStoreAccounts.
#
#   bench/accounts/explain.sh            # TRANSACTIONS=1000000 ACCOUNTS=100000 OTHER_APPS=1
#
# Needs a built iap-server (debug or release) to apply the migrations. Nothing else runs: the figures are
# PostgreSQL's, the database's part of the request.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TRANSACTIONS=${TRANSACTIONS:-1000000}
ACCOUNTS=${ACCOUNTS:-100000}
OTHER_APPS=${OTHER_APPS:-1}
DATA="$ROOT/.data/bench-accounts"
PORT=${PORT:-$("$ROOT/scripts/postgres" free-port)}
SERVER=${SERVER:-$ROOT/.build/release/iap-server}
[[ -x $SERVER ]] || SERVER="$ROOT/.build/debug/iap-server"

"$ROOT/scripts/postgres" start "$DATA" "$PORT"
trap '"$ROOT/scripts/postgres" stop "$DATA"' EXIT
psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -c "DROP DATABASE IF EXISTS accounts_scale" -c "CREATE DATABASE accounts_scale"
URL="postgres://postgres@127.0.0.1:$PORT/accounts_scale"
DATABASE_URL=$URL "$SERVER" migrate --log-level warning
PSQL=(psql -X -h 127.0.0.1 -p "$PORT" -U postgres -d accounts_scale -v ON_ERROR_STOP=1)
echo "loading $TRANSACTIONS transactions of $ACCOUNTS accounts, and as many for each of $OTHER_APPS other apps"
time "${PSQL[@]}" -q -v transactions="$TRANSACTIONS" -v accounts="$ACCOUNTS" -v other_apps="$OTHER_APPS" \
	-f "$ROOT/bench/accounts/load.sql"
"${PSQL[@]}" -c "SELECT app, count(*) AS transactions, count(DISTINCT account_key) AS accounts
                 FROM ledger_transactions GROUP BY app ORDER BY app" \
	-c "SELECT pg_size_pretty(pg_total_relation_size('ledger_transactions')) AS ledger,
               pg_size_pretty(pg_relation_size('ledger_transactions_by_account')) AS account_index"

# Account 42's two forms, as the server would hand them out.
UUID=$("${PSQL[@]}" -At -c "SELECT iap_uuid_v4_of(substring(sha256('account 42'::bytea) from 1 for 16))")
USERNAME=$("${PSQL[@]}" -At -c "SELECT regexp_replace(encode(sha256('account 42'::bytea), 'hex'), '(.{8})(?!\$)', '\1-', 'g')")
# The statement of AccountRepository.Transactions, prepared as PostgresNIO prepares it; the key is computed by
# the server from the token (either form gives the same key).
ACCOUNT_QUERY='SELECT t.*, (SELECT p.type::text FROM products p WHERE p.app = t.app AND p.product_id = t.product_id) AS current_type
FROM ledger_transactions t
WHERE t.app = $1 AND t.account_key = $2
ORDER BY t.purchase_date DESC, t.environment DESC, t.transaction_id DESC'
explain() {
	echo
	echo "== $1"
	"${PSQL[@]}" -c "PREPARE account(text, uuid) AS $ACCOUNT_QUERY" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE account($2)"
}
explain "GET /v1/apps/com.scale.accounts/accounts/$UUID (cold: first execution)" "'com.scale.accounts', '$UUID'"
explain "the same, by the applicationUsername $USERNAME (the same key)" \
	"'com.scale.accounts', iap_account_key('$USERNAME')"
echo
echo "== 1,000 executions for 1,000 different accounts (timing of the statement alone, psql \\timing)"
"${PSQL[@]}" -q -c "PREPARE account(text, uuid) AS $ACCOUNT_QUERY" -c '\timing on' \
	-c "DO \$\$ DECLARE a integer; n integer; BEGIN
	      FOR a IN 1..1000 LOOP
	        EXECUTE 'SELECT count(*) FROM (SELECT t.*, (SELECT p.type::text FROM products p WHERE p.app = t.app AND p.product_id = t.product_id) FROM ledger_transactions t WHERE t.app = \$1 AND t.account_key = \$2 ORDER BY t.purchase_date DESC, t.environment DESC, t.transaction_id DESC) AS r'
	          INTO n USING 'com.scale.accounts', iap_uuid_v4_of(substring(sha256(('account ' || (a * 97))::bytea) from 1 for 16));
	      END LOOP; END \$\$"
echo
echo "== manyStoreAccounts' window for one account (ledger_signals, at a new purchase)"
"${PSQL[@]}" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
	SELECT array_agg(DISTINCT t.app_transaction_id ORDER BY t.app_transaction_id)
	FROM ledger_transactions t
	WHERE t.app = 'com.scale.accounts' AND t.account_key = '$UUID' AND t.environment = 'Production'
	  AND t.purchase_date > timestamptz '2026-04-01' - interval '720 hours' AND t.purchase_date <= timestamptz '2026-04-01'
	  AND t.transaction_id <> '0' AND t.app_transaction_id IS NOT NULL"
