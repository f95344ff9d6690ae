#!/usr/bin/env python3
"""Issue 36's flood of silent WebSockets, against a running `anywoli serve` on this machine.

Opens N WebSockets to the lobby from A loopback addresses (127.0.0.10, 127.0.0.11, ...), or,
with --forwarded, all from 127.0.0.1 each saying a client address in X-Forwarded-For (start
the server with --trusted-proxy 127.0.0.1/32 for that). The sockets then never send a byte
and never answer a ping, as a stranger holding sockets would. Meanwhile a newcomer (from
127.0.0.250, or forwarded as 198.51.100.250) loads /api/site and opens the lobby every 2 s.

Prints how many sockets were upgraded or refused, how many of the upgraded ones the server
had closed after 60, 90, 120 and 240 s, and the newcomer's slowest answer. Loopback only;
every loop is bounded by --duration.

    python3 scripts/hosting/silent_sockets.py --port 8080 --sockets 2048 --addresses 16
"""
import argparse
import asyncio
import json
import time

KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def upgrade(path, forwarded):
    head = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
        f"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {KEY}\r\n"
    )
    if forwarded:
        head += f"X-Forwarded-For: {forwarded}\r\n"
    return (head + "\r\n").encode()


async def open_from(port, source):
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 10
    )


async def silent(i, args, t0, out):
    source = "127.0.0.1" if args.forwarded else f"127.0.0.{10 + i % args.addresses}"
    forwarded = f"203.0.113.{1 + i % args.addresses}" if args.forwarded else None
    try:
        r, w = await open_from(args.port, source)
        w.write(upgrade("/api/lobby", forwarded))
        await w.drain()
        line = await asyncio.wait_for(r.readline(), 10)
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
        out["refused_at_connect"] += 1
        return
    if not line:
        out["refused_at_connect"] += 1
        return
    status = line.split()[1].decode() if len(line.split()) > 1 else "?"
    out["status"][status] = out["status"].get(status, 0) + 1
    if status != "101":
        w.close()
        return
    # Read (never answering) until the server closes it, or the run ends.
    try:
        while True:
            left = args.duration - (time.monotonic() - t0)
            if left <= 0:
                return
            try:
                data = await asyncio.wait_for(r.read(65536), left)
            except asyncio.TimeoutError:
                return
            if not data:
                break
        out["closed_at"].append(time.monotonic() - t0)
    except OSError:
        out["closed_at"].append(time.monotonic() - t0)
    finally:
        w.close()


async def newcomer(args, t0, out):
    source = "127.0.0.1" if args.forwarded else "127.0.0.250"
    forwarded = "198.51.100.250" if args.forwarded else None
    while time.monotonic() - t0 < args.duration:
        start = time.monotonic()
        ok = False
        try:
            r, w = await open_from(args.port, source)
            req = "GET /api/site HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            if forwarded:
                req += f"X-Forwarded-For: {forwarded}\r\n"
            w.write((req + "\r\n").encode())
            await w.drain()
            first = await asyncio.wait_for(r.readline(), 10)
            w.close()
            r, w = await open_from(args.port, source)
            w.write(upgrade("/api/lobby", forwarded))
            await w.drain()
            head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 10)
            hello = await asyncio.wait_for(r.read(4096), 10)
            w.close()
            ok = first.startswith(b"HTTP/1.1 200") and head.startswith(b"HTTP/1.1 101") and b'"lobby"' in hello
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
            ok = False
        took = time.monotonic() - start
        out["newcomer"].append((round(time.monotonic() - t0, 1), ok, round(took * 1000, 1)))
        await asyncio.sleep(max(0.0, 2 - took))


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--sockets", type=int, default=2048)
    p.add_argument("--addresses", type=int, default=16)
    p.add_argument("--forwarded", action="store_true")
    p.add_argument("--duration", type=float, default=260)
    args = p.parse_args()
    out = {"status": {}, "refused_at_connect": 0, "closed_at": [], "newcomer": []}
    t0 = time.monotonic()
    # Every task is bounded as a whole too: a write that never drains cannot hold the run.
    bound = args.duration + 30
    probe = asyncio.create_task(asyncio.wait_for(newcomer(args, t0, out), bound))
    tasks = []
    for i in range(args.sockets):
        tasks.append(asyncio.create_task(asyncio.wait_for(silent(i, args, t0, out), bound)))
        if i % 64 == 63:
            await asyncio.sleep(0.05)
    results = await asyncio.gather(*tasks, probe, return_exceptions=True)
    out["cut_off"] = sum(1 for r in results if isinstance(r, asyncio.TimeoutError))
    upgraded = out["status"].get("101", 0)
    closed = sorted(out["closed_at"])
    by = {s: sum(1 for c in closed if c <= s) for s in (60, 90, 120, 240)}
    slow = max(out["newcomer"], key=lambda n: n[2]) if out["newcomer"] else None
    failed = [n for n in out["newcomer"] if not n[1]]
    print(json.dumps({
        "sockets_tried": args.sockets,
        "tasks_cut_off": out["cut_off"],
        "answers": out["status"],
        "refused_at_connect": out["refused_at_connect"],
        "upgraded": upgraded,
        "closed_by_s": {k: f"{v} ({100 * v / upgraded:.0f}%)" if upgraded else v for k, v in by.items()},
        "newcomer_tries": len(out["newcomer"]),
        "newcomer_failed": len(failed),
        "newcomer_slowest_ms": slow[2] if slow else None,
        "newcomer_median_ms": sorted(n[2] for n in out["newcomer"])[len(out["newcomer"]) // 2] if out["newcomer"] else None,
    }, indent=1))


asyncio.run(main())
