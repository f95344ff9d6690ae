#!/usr/bin/env python3
"""Issue 36's login flood: C concurrent login attempts with wrong passwords for the owner's
name, from one address (--addresses 1) or from C addresses (127.0.0.x), while the owner logs in
from another address with the right password. Prints the answers' status counts, how long the
flood took, the owner's login time, the server's peak resident memory (--pid) and whether the
owner can still log in afterwards. Loopback only.

    anywoli serve --port 8080 --db /tmp/logins.sqlite &
    python3 scripts/hosting/logins.py --port 8080 --attempts 200 --addresses 200 --pid $!
    python3 scripts/hosting/logins.py --port 8080 --attempts 200 --addresses 1 --pid PID
"""
import argparse
import asyncio
import collections
import json
import secrets
import threading
import time


async def post(port, source, path, body):
    r, w = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    data = json.dumps(body).encode()
    w.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
    await w.drain()
    head = await r.readline()
    await r.read()
    w.close()
    try:
        return int(head.split()[1])
    except (IndexError, ValueError):
        return 0


def rss_kib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--attempts", type=int, default=200)
    ap.add_argument("--addresses", type=int, default=200)
    ap.add_argument("--pid", type=int)
    a = ap.parse_args()
    name = "Owner" + secrets.token_hex(3)
    password = "the owner's long password"
    s = await post(a.port, "127.0.1.1", "/api/account/signup", {"name": name, "password": password})
    assert s == 201, f"signup answered {s}"
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            if a.pid:
                peak[0] = max(peak[0], rss_kib(a.pid))
            time.sleep(0.02)

    threading.Thread(target=sample, daemon=True).start()
    before = rss_kib(a.pid) if a.pid else 0
    sources = [f"127.0.{2 + i // 250}.{1 + i % 250}" for i in range(a.addresses)]
    t0 = time.monotonic()
    flood = [asyncio.create_task(post(a.port, sources[i % len(sources)], "/api/account/login",
                                      {"name": name, "password": f"guess {i}"}))
             for i in range(a.attempts)]
    await asyncio.sleep(0.05)
    o0 = time.monotonic()
    owner = await post(a.port, "127.0.1.2", "/api/account/login", {"name": name, "password": password})
    owner_s = time.monotonic() - o0
    statuses = collections.Counter(await asyncio.gather(*flood))
    took = time.monotonic() - t0
    stop.set()
    after = await post(a.port, "127.0.1.3", "/api/account/login", {"name": name, "password": password})
    print(f"{a.attempts} wrong logins from {a.addresses} address(es): answered in {took:.2f} s, "
          f"statuses {dict(sorted(statuses.items()))}")
    print(f"the owner's login from elsewhere during the flood: {owner} in {owner_s * 1000:.0f} ms; "
          f"after it: {after}")
    if a.pid:
        print(f"server RSS: {before / 1024:.1f} MB before, peak {peak[0] / 1024:.1f} MB")


asyncio.run(main())
