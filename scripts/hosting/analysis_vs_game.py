#!/usr/bin/env python3
"""Issue 36's analyses against a game: while 8 clients (127.0.0.30-37) each run 2 analyses of
30 s on the analysis board, a player (127.0.0.50) plays against level 8; prints how long the
computer took to answer each of the player's moves, and the same with no analysis running.
Level 8's budget is twice the server's --movetime (1.5 s by default): 3 s. Loopback only.

    python3 scripts/hosting/analysis_vs_game.py --port 8080 --moves 5
"""
import argparse
import json
import os
import socket
import time

START = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0"


def http(port, source, method, path, body=None):
    s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    s.sendall(head.encode() + b"\r\n" + data)
    raw = b""
    while chunk := s.recv(65536):
        raw += chunk
    s.close()
    head, _, rest = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(rest or b"null")


def ws_open(port, source, path):
    s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    s.sendall(
        (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def ws_send(s, text):
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def reply_time(port, moves):
    status, g = http(port, "127.0.0.50", "POST", "/api/games", {"mode": "computer", "level": 8, "side": "south"})
    assert status == 201, g
    gid, secret = g["game"]["id"], g["secret"]
    game = g["game"]
    took = []
    for _ in range(moves):
        if game["status"] != "playing" or not game["legal"]:
            break
        mv = game["legal"][0]
        t = time.monotonic()
        status, r = http(port, "127.0.0.50", "POST", f"/api/games/{gid}/moves", {"move": mv, "secret": secret})
        assert status == 200, r
        while True:
            status, game = http(port, "127.0.0.50", "GET", f"/api/games/{gid}")
            if game["status"] != "playing" or (game["to_move"] == "south" and not game["thinking"]):
                break
            time.sleep(0.02)
        took.append(round(time.monotonic() - t, 2))
    return took


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--moves", type=int, default=5)
    args = p.parse_args()
    quiet = reply_time(args.port, args.moves)
    boards = []
    refused = 0
    for c in range(8):
        for _ in range(2):
            s = ws_open(args.port, f"127.0.0.{30 + c}", "/api/analysis")
            ws_send(s, json.dumps({"type": "analyse", "position": START, "movetime": 30000}))
            boards.append(s)
    time.sleep(1)
    busy = reply_time(args.port, args.moves)
    for s in boards:
        s.close()
    print(json.dumps({
        "analyses": len(boards),
        "level8_reply_s_quiet": quiet,
        "level8_reply_s_with_analyses": busy,
        "slowest_with_analyses_s": max(busy) if busy else None,
    }))


main()
