"""Receipts for the benchmark's receipt steps, and the end-to-end measurement of their verification.

Usage (the harness's venv Python: psycopg):
  receipts.py issue STANDIN_URL N OUT BUNDLE
      N receipts issued by the stand-in (POST /standin/receipts: Production, one consumable and, every
      third, a monthly subscription), each as a request body {"accountToken": <new UUID>, "receipt": ...}
      per line of OUT (the form the harness's wrk/purchases.lua posts). Receipts stay valid for any
      stand-in serving with the same --secret-file.
  receipts.py watch DSN APP PID SETTLE WINDOW
      The receipts of APP reaching `verified` per second, read from the database: one line per second for
      SETTLE + WINDOW seconds, then `RECEIPTS_RESULT key=value ...`: verified_per_s over the window from
      SETTLE s on (the first seconds let the worker reach its pace) while receipts were still waiting
      (queued or retrying: a worker with nothing left to lease is not measured), window_s its length and
      starved=1 if the waiting ones ran out before its end; the backlog (waiting and verifying) at the
      window's start and end, invalid and failed ones, and the server's VmHWM / VmRSS (PID's
      /proc/PID/status) at the end.
  receipts.py inflight URL TOKEN BODIES N DSN APP PID
      The server's memory per verification in flight: its VmRSS, then the last N bodies of BODIES (bodies it
      has not seen: each must be answered 202) posted to URL at once on 16 connections (with a stand-in that
      holds its answers for seconds, so that all of them are in flight together), the largest VmRSS while APP
      has N submissions `verifying`, then `INFLIGHT_RESULT n=... idle_kb=... rss_kb=... per_call_kb=...`:
      (rss - idle) / n, an upper bound (it includes what taking the receipts in left behind).
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid

import psycopg


def fan_out(work, k):
    """work(start, step) on k threads at once (start 0..k-1, step k), until all have ended."""
    threads = [threading.Thread(target=work, args=(i, k)) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def issue(standin_url, n, out, bundle):
    u = urllib.parse.urlsplit(standin_url)
    n, lock, done, lines = int(n), threading.Lock(), [0], [None] * int(n)
    failures = []

    def work(start, step):
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        for i in range(start, n, step):
            order = {"bundleId": bundle, "environment": "Production",
                     "products": [f"{bundle}.coins100"] + ([f"{bundle}.pro.monthly"] if i % 3 == 0 else [])}
            conn.request("POST", "/standin/receipts", body=json.dumps(order),
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            body = r.read()
            if r.status != 201:
                failures.append(f"HTTP {r.status} {body[:200]!r}")
                return
            lines[i] = json.dumps({"accountToken": str(uuid.uuid4()), "receipt": json.loads(body)["receipt"]},
                                  separators=(",", ":"))
            with lock:
                done[0] += 1

    t0 = time.time()
    fan_out(work, 8)
    if failures:
        sys.exit(f"receipts.py issue: the stand-in refused: {failures[0]}")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    size = sum(len(line) for line in lines) / n
    print(f"receipts.py issue: {n} receipts in {time.time() - t0:.1f} s, mean body {size:.0f} B -> {out}")


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


COUNTS = """SELECT count(*) FILTER (WHERE status = 'verified'),
                   count(*) FILTER (WHERE status IN ('queued', 'retrying')),
                   count(*) FILTER (WHERE status = 'verifying'),
                   count(*) FILTER (WHERE status = 'invalid'),
                   count(*) FILTER (WHERE status = 'failed')
            FROM purchase_submissions WHERE app = %s AND kind = 'receipt'"""


def watch(dsn, app, pid, settle, window):
    settle, window = int(settle), int(window)
    samples = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        t0 = time.monotonic()
        for second in range(settle + window + 1):
            while time.monotonic() < t0 + second:
                time.sleep(0.01)
            verified, waiting, leased, invalid, failed = conn.execute(COUNTS, [app]).fetchone()
            now = time.monotonic() - t0
            rate = (verified - samples[-1][1]) / (now - samples[-1][0]) if samples else 0.0
            samples.append((now, verified, waiting, leased))
            print(f"  t={second:3d} s  verified {verified:7d} ({rate:6.0f}/s)  waiting {waiting:7d}  verifying "
                  f"{leased:5d}  invalid {invalid}  failed {failed}  VmRSS {status_kb(pid, 'VmRSS') / 1024:.1f} MB",
                  flush=True)
    end = len(samples) - 1
    while end > settle + 1 and samples[end - 1][2] == 0:  # the window ends when nothing waits any more
        end -= 1
    (ta, va, wa, la), (tb, vb, wb, lb) = samples[settle], samples[end]
    result = {"verified_per_s": f"{(vb - va) / (tb - ta):.1f}", "window_s": f"{tb - ta:.0f}", "settle_s": settle,
              "starved": int(end < len(samples) - 1 or samples[end][2] == 0), "verified": samples[-1][1],
              "verified_during": samples[-1][1] - samples[0][1],
              "backlog_start": wa + la, "backlog_end": wb + lb, "invalid": invalid, "failed": failed,
              "hwm_kb": status_kb(pid, "VmHWM"), "rss_kb": status_kb(pid, "VmRSS")}
    print("RECEIPTS_RESULT " + " ".join(f"{k}={v}" for k, v in result.items()))


def inflight(url, token, bodies, n, dsn, app, pid):
    n = int(n)
    with open(bodies) as fh:
        lines = fh.read().splitlines()[-n:]
    u = urllib.parse.urlsplit(url)
    idle = status_kb(pid, "VmRSS")
    failures = []

    def work(start, step):
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        for body in lines[start::step]:
            conn.request("POST", u.path, body=body,
                         headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            r = conn.getresponse()
            r.read()
            if r.status != 202:
                failures.append(f"HTTP {r.status}, not 202 (a body it had seen, or refused)")
                return

    t0 = time.time()
    fan_out(work, 16)
    if failures:
        sys.exit(f"receipts.py inflight: the server answered {failures[0]}")
    posted = time.time() - t0
    rss, leased, seen = 0, 0, 0
    with psycopg.connect(dsn, autocommit=True) as conn:
        deadline = time.time() + 5
        while time.time() < deadline:
            leased = conn.execute("SELECT count(*) FROM purchase_submissions WHERE app = %s AND status = 'verifying'",
                                  [app]).fetchone()[0]
            if leased >= n:
                seen += 1
                rss = max(rss, status_kb(pid, "VmRSS"))
                if seen >= 5:
                    break
            time.sleep(0.2)
    if seen == 0:
        sys.exit(f"receipts.py inflight: {leased} of {n} in flight at most (posted in {posted:.1f} s): "
                 "a longer stand-in latency, or fewer")
    print(f"receipts.py inflight: {n} posted in {posted:.1f} s, all in flight; VmRSS {idle} kB before, {rss} kB with them")
    print(f"INFLIGHT_RESULT n={n} idle_kb={idle} rss_kb={rss} per_call_kb={(rss - idle) / n:.1f}")


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "issue":
        issue(*sys.argv[2:])
    elif len(sys.argv) == 7 and sys.argv[1] == "watch":
        watch(*sys.argv[2:])
    elif len(sys.argv) == 9 and sys.argv[1] == "inflight":
        inflight(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
