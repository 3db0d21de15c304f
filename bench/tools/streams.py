"""The streams step of bench/run.sh (issue 24): followers of the live event stream, and their lag.

Usage (python3, standard library only):
  streams.py follow URL FROM STREAMS THROUGH_FILE LOG
      Opens STREAMS event streams (GET URL/v1/events?after=FROM, Accept: text/event-stream, the key in
      $BENCH_TOKEN) and notes when each event's `id:` line arrives. Once THROUGH_FILE holds a sequence number,
      stops when every stream has had it (or 60 s later). LOG gets one line per event and stream, as the webhooks
      step's receiver writes them (`<arrival, Unix seconds> /streams/<stream> evt_<sequence> 200`), so that
      `webhooks.py lag LOG EVENTS /streams STREAMS` gives each stream's lag, missing, repeated and out-of-order
      events. Prints `STREAMS_FOLLOW streams=N opened=N events=N`.
"""
import asyncio
import os
import re
import sys
import time

ID = re.compile(rb"^id: (\d+)$", re.M)


async def follow(url, after, streams, through_file, log):
    host, _, port = url.removeprefix("http://").rstrip("/").partition(":")
    port = int(port or 80)
    token = os.environ.get("BENCH_TOKEN") or sys.exit("streams.py follow: BENCH_TOKEN is not set")
    seen = [[] for _ in range(streams)]      # (sequence, arrival) per stream, in arrival order
    last = [0] * streams
    opened = [0]

    async def stream(n):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write((f"GET /v1/events?after={after} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0].decode()
        if " 200 " not in status:
            sys.exit(f"streams.py follow: stream {n} answered {status}")
        opened[0] += 1
        pending = b""
        try:
            while True:
                data = await reader.read(1 << 16)
                if not data:
                    return
                when = time.time()
                pending += data
                cut = pending.rfind(b"\n\n")   # whole events only (the server sends whole events per HTTP chunk)
                if cut < 0:
                    continue
                for match in ID.finditer(pending, 0, cut):
                    sequence = int(match.group(1))
                    seen[n].append((sequence, when))
                    last[n] = sequence
                pending = pending[cut + 2:]
        finally:
            writer.close()

    tasks = [asyncio.create_task(stream(n)) for n in range(streams)]
    through, deadline = None, None
    while True:
        await asyncio.sleep(0.2)
        if through is None:
            try:
                with open(through_file) as fh:
                    text = fh.read().strip()
                if text:
                    through, deadline = int(text), time.monotonic() + 60
            except FileNotFoundError:
                pass
        if through is not None and (min(last) >= through or time.monotonic() > deadline):
            break
        if all(t.done() for t in tasks):
            break
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    with open(log, "w") as fh:
        for n, events in enumerate(seen, 1):
            for sequence, when in events:
                fh.write(f"{when:.3f} /streams/{n} evt_{sequence} 200\n")
    print(f"STREAMS_FOLLOW streams={streams} opened={opened[0]} events={sum(len(s) for s in seen)}")


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "follow":
        url, after, streams, through_file, log = sys.argv[2:]
        asyncio.run(follow(url, int(after), int(streams), through_file, log))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
