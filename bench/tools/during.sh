#!/bin/bash
# What a long request costs the others: runs COMMAND while another client asks the service for one app
# (GET /v1/apps?limit=1) every 0.1 s, then prints how long COMMAND took and those requests' p50, p90 and max.
#
#   BENCH_TOKEN=<key> bench/tools/during.sh http://127.0.0.1:18080 -- curl -s -o /dev/null -H "Authorization: Bearer <key>" \
#     -H "Accept: application/x-ndjson" "http://127.0.0.1:18080/v1/history?app=com.example.bench"
#
# Output: DURING seconds=<s> probes=<n> p50_ms=<ms> p90_ms=<ms> max_ms=<ms>
#
# `during.sh BASE --probe-into FILE` only asks, until killed, appending each answer's seconds to FILE (bench/run.sh
# does so while it verifies the chains).
set -euo pipefail
base="$1"; shift
[ -n "${BENCH_TOKEN:-}" ] || { echo "during.sh: BENCH_TOKEN (a key that can list apps) is required" >&2; exit 2; }
probe_into() {
  while :; do
    curl -s -o /dev/null -w '%{time_total}\n' --max-time 30 -H "Authorization: Bearer $BENCH_TOKEN" \
      "$base/v1/apps?limit=1" >> "$1" || true
    sleep 0.1
  done
}
if [ "${1:-}" = "--probe-into" ]; then probe_into "$2"; fi
[ "${1:-}" = "--" ] && shift
times="$(mktemp)"; trap 'rm -f "$times"' EXIT
probe_into "$times" &
probe=$!
start="$(date +%s.%N)"
"$@" || { kill "$probe"; echo "during.sh: the command failed" >&2; exit 1; }
end="$(date +%s.%N)"
kill "$probe"; wait "$probe" 2>/dev/null || true
sort -n "$times" | awk -v s="$(awk -v a="$end" -v b="$start" 'BEGIN { printf "%.2f", a - b }')" '
  { t[NR] = $1 }
  END { p90 = int(NR * 0.9); if (p90 < 1) p90 = 1
        printf "DURING seconds=%s probes=%d p50_ms=%.1f p90_ms=%.1f max_ms=%.1f\n", s, NR,
        t[int((NR + 1) / 2)] * 1000, t[p90] * 1000, t[NR] * 1000 }'
