"""Check that the service answers the same identifier lists as the peers (bench/run.sh, step 4).

Usage: python3 check.py APPS_FILE TYPICAL HOT MISSING NAME=PORT... [--all NAME=PORT,NAME=PORT]

The peers' own check.sh compares status and parsed JSON for every server, which the service cannot pass
for a missing app if its 404 body differs (the generated route answers errors as problem details, RFC 9457;
the fast path answers the peers' {"error":"app not found"}, as openapi.yaml documents). So this check, for
the three scenarios of rounds.sh and every server given:
  - typical, hot: HTTP 200, Content-Type application/json, and a body byte-identical to the first server's
    (the peers A and B are byte-identical to each other; so must the service be);
  - missing: HTTP 404 (only the status must match; whether the body does too is printed).
With --all REF=PORT,S=PORT it also requests every app in APPS_FILE (one bundle id per line) from both and
requires byte-identical 200 bodies: the whole catalog, not only the two apps measured.
Exit status 1 on any difference.
"""
import http.client
import sys


def fetch(conn, path):
    conn.request("GET", path)
    r = conn.getresponse()
    return r.status, r.read(), r.getheader("Content-Type") or ""


def main(argv):
    apps_file, typical, hot, missing, *rest = argv
    everything = None
    if "--all" in rest:
        i = rest.index("--all")
        everything = [spec.split("=", 1) for spec in rest[i + 1].split(",")]
        rest = rest[:i] + rest[i + 2:]
    servers = [spec.split("=", 1) for spec in rest]
    conns = {name: http.client.HTTPConnection("127.0.0.1", int(port), timeout=5) for name, port in servers}
    bad = 0
    for scenario, app, want in (("typical", typical, 200), ("hot", hot, 200), ("missing", missing, 404)):
        ref = None
        for name, _ in servers:
            status, body, ctype = fetch(conns[name], f"/v1/apps/{app}/product-identifiers")
            verdict = "ok"
            if status != want:
                verdict = f"DIFFERENT: HTTP {status}, expected {want}"
            elif want == 200:
                if not ctype.startswith("application/json"):
                    verdict = f"DIFFERENT: Content-Type {ctype}"
                elif ref is None:
                    ref = (name, body)
                    verdict = "reference"
                elif body != ref[1]:
                    verdict = f"DIFFERENT from {ref[0]}"
                else:
                    verdict = f"byte-identical to {ref[0]}"
            elif ref is None:
                ref = (name, body)
                verdict = "reference"
            else:
                # Only the status must match; say whether the body does too.
                verdict = f"same status, body {'byte-identical to' if body == ref[1] else 'differs from'} {ref[0]}"
            bad += verdict.startswith("DIFFERENT")
            print(f"{scenario:8} {name:2} HTTP {status} {len(body):5d} B  {ctype:24}  {verdict}")
    if everything:
        (rname, rport), (sname, sport) = everything
        rc = http.client.HTTPConnection("127.0.0.1", int(rport), timeout=5)
        sc = http.client.HTTPConnection("127.0.0.1", int(sport), timeout=5)
        apps = [line.strip() for line in open(apps_file) if line.strip()]
        differ = []
        for app in apps:
            path = f"/v1/apps/{app}/product-identifiers"
            a, b = fetch(rc, path), fetch(sc, path)
            if a[0] != 200 or b[0] != 200 or a[1] != b[1]:
                differ.append(f"{app}: {rname} HTTP {a[0]} {len(a[1])} B, {sname} HTTP {b[0]} {len(b[1])} B")
        print(f"all apps: {len(apps) - len(differ)} of {len(apps)} identifier lists byte-identical ({sname} vs {rname})")
        for line in differ[:10]:
            print("  DIFFERENT " + line)
        bad += len(differ)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
