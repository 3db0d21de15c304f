"""CPU time of the service and of PostgreSQL between two snapshots of the peers' tools/cpuacct.py.

Usage: python3 cpu_split.py CPU1 CPU2 SERVER_PID COUNT

Prints "<server ms> <postgres ms>": the CPU time (user + system) the server process and all the postgres
processes spent between the snapshots, each divided by COUNT (the actions committed), in milliseconds.
Both snapshots hold every process of the benchmark's user by pid; postgres processes are told by their
name, read now, so a backend that exited before this runs is not counted (the service's pooled
connections live as long as it does).
"""
import os
import sys


def ticks(path):
    lines = open(path).read().split("\n")
    return dict((p, int(v)) for p, v in (kv.split(":") for kv in lines[1].split())) if len(lines) > 1 else {}


def name(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


def main() -> None:
    before, after = ticks(sys.argv[1]), ticks(sys.argv[2])
    server, count = sys.argv[3], int(sys.argv[4])
    if count <= 0:
        print("nan nan")
        return
    delta = {p: v - before.get(p, 0) for p, v in after.items()}
    ms_per_tick = 1000 / os.sysconf("SC_CLK_TCK")
    server_ms = delta.get(server, 0) * ms_per_tick
    postgres_ms = sum(d for p, d in delta.items() if p != server and name(p) == "postgres") * ms_per_tick
    print(f"{server_ms / count:.3f} {postgres_ms / count:.3f}")


if __name__ == "__main__":
    main()
