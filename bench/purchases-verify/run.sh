#!/usr/bin/env bash
# Signed-transaction verification, measured and checked (docs/performance.md, "Signed transactions:
# verification"). Not a load test: it calls PurchaseCore's SignedDataVerifier in a loop, in one process.
#
#   bench/purchases-verify/run.sh [DATA_DIR]
#
# DATA_DIR holds what ../shared/bench/purchases writes (chain/root.pem, transactions.jws, forged.jsonl):
# by default /tmp/purchases-bench-data when setup.sh has made it, else a private set made here with the
# benchmark's own gen_chain.py and gen_transactions.py (Python's `cryptography` needed) in
# /tmp/purchases-verify-data. Then, with the release build of purchases-verify:
#  1. check: every transaction of DATA_DIR verifies with its root as the only trusted root, and every line of
#     its forged corpus is refused (the refusal printed per line); exit 1 otherwise;
#  2. measure: µs of wall and CPU time per verification, cold (a new cache each time: three certificates
#     parsed, the chain verified) and warm (the chain cached), its parts (ES256, JSON), and two tasks at once.
# Knobs: COUNT [2000] transactions measured, ROUNDS [10] warm passes, PURCHASES_DIR
# [../shared/bench/purchases], SKIP_BUILD=1 to use the release binary as it is.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PURCHASES_DIR="${PURCHASES_DIR:-$ROOT/../shared/bench/purchases}"
DATA="${1:-}"
if [ -z "$DATA" ]; then
  if [ -s /tmp/purchases-bench-data/transactions.jws ] && [ -s /tmp/purchases-bench-data/forged.jsonl ]; then
    DATA=/tmp/purchases-bench-data
  else
    DATA=/tmp/purchases-verify-data
    if [ ! -s "$DATA/forged.jsonl" ]; then
      [ -f "$PURCHASES_DIR/gen_chain.py" ] || { echo "run.sh: no purchases harness at $PURCHASES_DIR (set PURCHASES_DIR)" >&2; exit 1; }
      python3 -c 'import cryptography' 2>/dev/null \
        || { echo "run.sh: no data: give DATA_DIR, run $PURCHASES_DIR/setup.sh, or install Python's cryptography" >&2; exit 1; }
      python3 "$PURCHASES_DIR/gen_chain.py" "$DATA/chain"
      python3 "$PURCHASES_DIR/gen_transactions.py" "$DATA" "${COUNT:-2000}"
      python3 "$PURCHASES_DIR/gen_transactions.py" "$DATA" --forged
    fi
  fi
fi
cd "$ROOT"
[ "${SKIP_BUILD:-0}" = 1 ] || swift build -c release --product purchases-verify
BIN="$ROOT/.build/release/purchases-verify"
"$BIN" check --data "$DATA"
echo
"$BIN" measure --data "$DATA" --count "${COUNT:-2000}" --rounds "${ROUNDS:-10}"
