"""The purchases harness's two checks (../shared/bench/purchases: check.sh, check-forged.sh), made against the
service: with its client key (the harness's checks send no Authorization header, and the service answers 401
without one, which would "refuse" every forged body for the wrong reason) and reading its answer (a submission
whose transaction is `transactions[0]`, not the peer's `{"status", "transactionId", "new"}`).

Usage (the harness's venv Python: psycopg):
  purchases_check.py signed URL TOKEN DSN TABLE CHAIN_DIR GENERATOR
      3 fresh signed transactions made now by the harness's gen_transactions.py (no server has seen them):
      each -> 200, verified, its transactionId, not already recorded; the first again -> 200, the same
      submission; then each is in TABLE exactly once (for the URL's app) with the payload's product_id,
      price, currency, account_token and environment.
  purchases_check.py forged URL TOKEN DSN TABLE FORGED_JSONL
      every body of the forged corpus -> 4xx (printed with the problem's `reason`); afterwards no forged
      transactionId (they start with "9") is in TABLE.
Exit status 1 if anything is not as it should be.
"""
import base64
import json
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import psycopg


def app_of(url):
    m = re.search(r"/v1/apps/([^/]+)/purchases$", url)
    if not m:
        sys.exit(f"URL must end in /v1/apps/BUNDLE/purchases: {url}")
    return m.group(1)


def post(url, token, data):
    req = urllib.request.Request(url, data=data, method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def claims(jws):
    seg = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4)))


class Verdicts:
    def __init__(self):
        self.bad = 0

    def expect(self, ok, what):
        self.bad += not ok
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")


def signed(url, token, dsn, table, chain, generator):
    app, v = app_of(url), Verdicts()
    with tempfile.TemporaryDirectory(prefix="purchases-check.") as tmp:
        subprocess.run([sys.executable, generator, tmp, "3", "--chain", chain, "--bundle", app, "--env", "Sandbox"],
                       check=True, stdout=subprocess.DEVNULL)
        lines = open(f"{tmp}/bodies.jsonl").read().splitlines()
    txs = [claims(json.loads(line)["signedTransaction"]) for line in lines]
    print(f"purchases_check.py signed {url}")
    first_submission = None
    for i, (line, tx) in enumerate([(l, t) for l, t in zip(lines, txs)] + [(lines[0], txs[0])]):
        status, text = post(url, token, line.encode())
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {}
        got = (doc.get("transactions") or [{}])[0]
        ok = (status == 200 and doc.get("status") == "verified" and got.get("transactionId") == tx["transactionId"]
              and got.get("alreadyRecorded") is False and got.get("credited") is True)
        if i == 0:
            first_submission = doc.get("id")
        repeated = i == len(lines)
        if repeated:
            ok = ok and doc.get("id") == first_submission
        v.expect(ok, f"{'repeated (the same submission)' if repeated else 'new'} {tx['transactionId']}: "
                     f"HTTP {status} {' '.join(text.split())[:140]}")
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(f"SELECT to_jsonb(t) FROM {table} t WHERE app = %s AND transaction_id = ANY(%s)",
                            [app, [tx["transactionId"] for tx in txs]]).fetchall()
    found = {}
    for (r,) in rows:
        found.setdefault(r["transaction_id"], []).append(r)
    for tx in txs:
        rs = found.get(tx["transactionId"], [])
        want = {"product_id": tx["productId"], "price": tx["price"], "currency": tx["currency"],
                "account_token": tx["appAccountToken"], "environment": tx["environment"]}
        diff = {k: (rs[0][k], w) for k, w in want.items() if rs and rs[0].get(k) != w}
        v.expect(len(rs) == 1 and not diff, f"{table}: {len(rs)} row(s) for {tx['transactionId']}"
                 + (f", differs (have, want): {diff}" if diff else ""))
    print("purchases_check.py signed: " + ("all ok" if not v.bad else f"{v.bad} FAILED"))
    return v.bad


def forged(url, token, dsn, table, corpus):
    app, bad = app_of(url), 0
    print(f"purchases_check.py forged {url}\n  HTTP  verdict   why  ->  reason: detail")
    for line in open(corpus):
        e = json.loads(line)
        # curl, as check-forged.sh: a server may answer 413 before reading a large body and close the connection.
        r = subprocess.run(["curl", "-s", "--max-time", "15", "-X", "POST", "-H", "Content-Type: application/json",
                            "-H", f"Authorization: Bearer {token}", "--data-binary", "@-", "-w", "\n%{http_code}", url],
                           input=json.dumps(e["body"]).encode(), capture_output=True)
        text, _, code = r.stdout.decode(errors="replace").rpartition("\n")
        status = int(code) if code.isdigit() else 0
        verdict = ("refused" if 400 <= status < 500 and status not in (401, 403, 429) else
                   "ACCEPTED" if 200 <= status < 300 else "WRONG" if status else "NO ANSWER")
        bad += verdict != "refused"
        try:
            doc = json.loads(text)
            said = f"{doc.get('reason') or doc.get('type', '').rsplit(':', 1)[-1]}: {doc.get('detail', '')}"
        except ValueError:
            said = " ".join(text.split())
        print(f"  {status:3d}   {verdict:8}  {e['why']}  ->  {said[:110]}")
    with psycopg.connect(dsn) as conn:
        n = conn.execute(f"SELECT count(*) FROM {table} WHERE app = %s AND transaction_id LIKE '9%%'",
                         [app]).fetchone()[0]
    print(f"  {table}: {n} row(s) with a forged transactionId")
    bad += n
    print("purchases_check.py forged: " + ("every forged body refused" if not bad else f"{bad} PROBLEM(S)"))
    return bad


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "signed":
        sys.exit(1 if signed(*sys.argv[2:]) else 0)
    if len(sys.argv) == 7 and sys.argv[1] == "forged":
        sys.exit(1 if forged(*sys.argv[2:]) else 0)
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
