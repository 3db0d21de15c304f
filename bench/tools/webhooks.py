"""The webhooks step of bench/run.sh (issue 24): a paced load of lifecycle actions, and the delivery lag.

Usage (python3, standard library only):
  webhooks.py pace URL PLAN RATE SECONDS CONNECTIONS
      POSTs /v1/apps/{app}/products/{id}/actions at RATE requests per second for SECONDS, over CONNECTIONS
      keep-alive connections (the key in $BENCH_TOKEN). PLAN is run.sh's plan file ("<app> <product> <first
      action>" per line); product k belongs to connection k % CONNECTIONS, which walks its products round-robin
      and flips a product's action after each 2xx, so no two requests for one product are ever in flight and
      every request is a legal transition. Open loop: request n is due at start + n / RATE and is sent then by
      the first free connection (late when all are busy: the lateness is reported). Prints one line
      `WEBHOOKS_PACE key=value ...`.
  webhooks.py lag LOG EVENTS PREFIX ENDPOINTS
      The delivery lag of the endpoints whose URL paths are PREFIX/1 .. PREFIX/ENDPOINTS. LOG is the receiver's
      access log (nginx, `$msec $uri $http_webhook_id $status` per line, in the order the requests completed);
      EVENTS has one line per history event committed in the measured window, "<sequence> <at as Unix seconds>"
      (its `at`, set by the statement that appends it, in the committing transaction). For each endpoint: the
      window's events delivered (first arrival of each), missing, repeated, arrived out of sequence order, and
      the lag (arrival minus `at`) p50 / p99 / max; then over all endpoints. Prints one line per endpoint and one
      for all, `WEBHOOKS_LAG endpoint=N|all key=value ...`.
"""
import asyncio
import os
import sys
import time


# ------------------------------------------------------------------ pace

async def pace(url, plan, rate, seconds, connections):
    host, _, port = url.removeprefix("http://").rstrip("/").partition(":")
    port = int(port or 80)
    token = os.environ.get("BENCH_TOKEN") or sys.exit("webhooks.py pace: BENCH_TOKEN is not set")
    owned = [[] for _ in range(connections)]
    with open(plan) as fh:
        for k, line in enumerate(l for l in fh if l.strip()):
            app, product, first = line.split()
            owned[k % connections].append([f"/v1/apps/{app}/products/{product}/actions", first])
    owned = [o for o in owned if o]
    bodies = {a: f'{{"action":"{a}"}}'.encode() for a in ("submit_change", "withdraw")}
    flip = {"submit_change": "withdraw", "withdraw": "submit_change"}
    counts = {"sent": 0, "ok": 0, "non2xx": 0, "errors": 0}
    late, statuses = [], {}
    start = time.monotonic() + 0.2
    end = start + seconds
    interval = 1.0 / rate
    next_due = [0]

    async def client(products):
        reader, writer = await asyncio.open_connection(host, port)
        i = 0
        try:
            while True:
                n = next_due[0]
                next_due[0] += 1
                due = start + n * interval
                if due >= end:
                    return
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                else:
                    late.append(-wait)
                path, action = products[i]
                body = bodies[action]
                writer.write((f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
                              f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
                counts["sent"] += 1
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = 0
                for h in head.split(b"\r\n")[1:]:
                    name, _, value = h.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if length:
                    await reader.readexactly(length)
                if 200 <= status < 300:
                    counts["ok"] += 1
                    products[i][1] = flip[action]
                else:
                    counts["non2xx"] += 1
                    statuses[status] = statuses.get(status, 0) + 1
                i = (i + 1) % len(products)
        except (OSError, asyncio.IncompleteReadError):
            counts["errors"] += 1
        finally:
            writer.close()

    await asyncio.gather(*(client(p) for p in owned))
    elapsed = time.monotonic() - start
    late.sort()
    late_p99 = late[int(0.99 * (len(late) - 1))] * 1000 if late else 0.0
    print(f"WEBHOOKS_PACE rate={rate} connections={len(owned)} sent={counts['sent']} ok={counts['ok']} "
          f"non2xx={counts['non2xx']} errors={counts['errors']} duration_s={elapsed:.3f} "
          f"ok_per_s={counts['ok'] / elapsed:.1f} late={len(late)} late_p99_ms={late_p99:.1f} "
          f"statuses={','.join(f'{k}:{v}' for k, v in sorted(statuses.items())) or '-'}")


# ------------------------------------------------------------------ lag

def percentile(sorted_values, p):
    """Nearest rank: the smallest value with at least p % of the values at or below it."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def lag(log, events, prefix, endpoints):
    at = {}
    with open(events) as fh:
        for line in fh:
            if line.strip():
                seq, when = line.split()
                at[int(seq)] = float(when)
    paths = {f"{prefix}/{n}": n for n in range(1, endpoints + 1)}
    arrivals = {n: [] for n in paths.values()}   # (sequence, arrival) in the order the requests completed
    with open(log) as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 4 or parts[1] not in paths or not parts[2].startswith("evt_") or not parts[3].startswith("2"):
                continue
            arrivals[paths[parts[1]]].append((int(parts[2][4:]), float(parts[0])))
    low, high = (min(at), max(at)) if at else (0, -1)
    every = []
    for n in sorted(arrivals):
        first, repeated, out_of_order, last = {}, 0, 0, 0
        for seq, when in arrivals[n]:
            if seq in first:
                repeated += 1
                continue
            if seq < last:
                out_of_order += 1
            last = seq
            first[seq] = when
        lags = sorted((first[s] - at[s]) * 1000 for s in at if s in first)
        stray = sum(1 for s in first if low <= s <= high and s not in at)   # delivered, not committed: never
        every += lags
        print(f"WEBHOOKS_LAG endpoint={n} committed={len(at)} delivered={len(lags)} missing={len(at) - len(lags)} "
              f"repeated={repeated} out_of_order={out_of_order} stray={stray} p50_ms={percentile(lags, 50):.1f} "
              f"p99_ms={percentile(lags, 99):.1f} max_ms={(lags[-1] if lags else float('nan')):.1f}")
    every.sort()
    print(f"WEBHOOKS_LAG endpoint=all committed={len(at) * endpoints} delivered={len(every)} "
          f"p50_ms={percentile(every, 50):.1f} p99_ms={percentile(every, 99):.1f} "
          f"max_ms={(every[-1] if every else float('nan')):.1f}")


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "pace":
        url, plan, rate, seconds, connections = sys.argv[2:]
        asyncio.run(pace(url, plan, float(rate), float(seconds), int(connections)))
    elif len(sys.argv) == 6 and sys.argv[1] == "lag":
        log, events, prefix, endpoints = sys.argv[2:]
        lag(log, events, prefix, int(endpoints))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
