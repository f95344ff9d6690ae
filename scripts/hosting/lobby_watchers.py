#!/usr/bin/env python3
"""Issue 36's lobby under watch: W watchers (raw WebSockets from 127.0.0.x, reading all and
answering nothing but the server's pings) while seekers make S seeks a second, each cancelled
a second later, for D seconds. Prints the bytes each watcher received per second (median and
most) and the server's resident memory (--pid) at the end. Start the server with room for the
watchers: --max-connections 2000 --max-sockets 2000 --max-sockets-per-client 0. Loopback only.

    python3 scripts/hosting/lobby_watchers.py --port 8080 --watchers 1000 --seeks 20 --pid PID
"""
import argparse
import asyncio
import json
import os
import time

HEAD = ("GET /api/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode()


def frame(opcode, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def connect(port, source):
    r, w = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    w.write(HEAD)
    await w.drain()
    await r.readuntil(b"\r\n\r\n")
    return r, w


async def read_frames(r, w, on_text, until):
    """Reads frames until `until`, answering pings; `on_text(bytes_len, payload)` for each."""
    buf = b""
    while time.monotonic() < until:
        try:
            data = await asyncio.wait_for(r.read(65536), max(0.1, until - time.monotonic()))
        except asyncio.TimeoutError:
            break
        if not data:
            break
        buf += data
        while len(buf) >= 2:
            op, n = buf[0] & 0x0F, buf[1] & 0x7F
            at = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                break
            payload, buf = buf[at:at + n], buf[at + n:]
            on_text(at + n, payload if op == 1 else None)
            if op == 9:
                w.write(frame(10, payload))


async def watcher(i, args, until, got):
    r, w = await connect(args.port, f"127.0.{2 + i // 250}.{1 + i % 250}")
    def count(n, _):
        got[i] += n
    await read_frames(r, w, count, until)
    w.close()


async def seeker(i, args, until):
    r, w = await connect(args.port, f"127.0.1.{1 + i}")
    ids = asyncio.Queue()
    def mine(_, payload):
        if payload:
            m = json.loads(payload)
            if m.get("type") == "seeking":
                ids.put_nowait(m["id"])
    reader = asyncio.create_task(read_frames(r, w, mine, until))
    seek = json.dumps({"type": "seek", "clock": "5+3"}).encode()
    per_seeker = args.seeks / args.seekers
    while time.monotonic() < until - 2:
        w.write(frame(1, seek))
        await w.drain()
        try:
            sid = await asyncio.wait_for(ids.get(), 5)
        except asyncio.TimeoutError:
            continue
        await asyncio.sleep(1.0)
        w.write(frame(1, json.dumps({"type": "cancel", "id": sid}).encode()))
        await w.drain()
        await asyncio.sleep(max(0.0, 1 / per_seeker - 1.0))
    await reader
    w.close()


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return None


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--watchers", type=int, default=1000)
    p.add_argument("--seeks", type=float, default=20)
    p.add_argument("--seekers", type=int, default=40)
    p.add_argument("--duration", type=float, default=60)
    p.add_argument("--pid", type=int)
    args = p.parse_args()
    got = [0] * args.watchers
    until = time.monotonic() + args.duration + 5
    ws = [asyncio.create_task(watcher(i, args, until, got)) for i in range(args.watchers)]
    await asyncio.sleep(3)
    start = [g for g in got]
    t0 = time.monotonic()
    ss = [asyncio.create_task(seeker(i, args, until)) for i in range(args.seekers)]
    peak = 0.0
    while time.monotonic() < until - 1:
        await asyncio.sleep(1)
        if args.pid:
            peak = max(peak, rss_mb(args.pid) or 0)
    elapsed = time.monotonic() - t0
    rates = sorted((g - s) / elapsed for g, s in zip(got, start))
    await asyncio.gather(*ss, *ws, return_exceptions=True)
    print(json.dumps({
        "watchers": args.watchers,
        "seeks_per_s": args.seeks,
        "seconds": round(elapsed),
        "bytes_per_watcher_per_s_median": round(rates[len(rates) // 2]),
        "bytes_per_watcher_per_s_most": round(rates[-1]),
        "server_rss_peak_mb": round(peak, 1) if args.pid else None,
    }))


asyncio.run(main())
