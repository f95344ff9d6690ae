"""A BOT in Python with the standard library only: challenges OPPONENT to a rated game and
plays it through the Bot API (docs/api-bots.md), saying hello and offering a draw once.
Usage: ANYWOLI_TOKEN=anw_... python3 examples/bot.py OPPONENT [http://127.0.0.1:8080]"""
import json, os, random, sys, urllib.parse, urllib.request

OPPONENT = sys.argv[1]
BASE = sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:8080"
AUTH = {"Authorization": "Bearer " + os.environ["ANYWOLI_TOKEN"]}

def call(method, path, form=None):
    data = urllib.parse.urlencode(form).encode() if form else None
    req = urllib.request.Request(BASE + path, data=data, headers=AUTH, method=method)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)

def stream(path):  # newline-delimited JSON; empty lines only keep the stream alive
    with urllib.request.urlopen(urllib.request.Request(BASE + path, headers=AUTH), timeout=60) as r:
        for line in r:
            if line.strip():
                yield json.loads(line)

me = call("GET", "/api/account")
if me.get("title") != "BOT":
    call("POST", "/api/bot/account/upgrade")
call("POST", "/api/challenge/" + OPPONENT, {"rated": "true", "clock.limit": 300, "clock.increment": 3})
game = next(e for e in stream("/api/stream/event") if e["type"] == "gameStart")["game"]["gameId"]
heard, offered, seen, declined, side = [], False, False, False, None
for msg in stream("/api/bot/game/stream/" + game):
    if msg["type"] == "chatLine":
        heard.append(msg["username"] + ": " + msg["text"])
        continue
    if msg["type"] == "gameFull":
        side = "south" if msg["white"]["id"] == me["id"] else "north"
        call("POST", f"/api/bot/game/{game}/chat", {"room": "player", "text": "Hello from Python"})
        msg = msg["state"]
    if msg.get("type") not in (None, "gameState"):
        continue
    if msg["status"] != "started":
        break
    mine = "wdraw" if side == "south" else "bdraw"
    seen, declined = seen or msg[mine], declined or (seen and not msg[mine])
    view = call("GET", "/api/games/" + game)  # the game as the page sees it: its legal moves
    if view["to_move"] == side and len(view["moves"]) == len(msg["moves"].split()):
        if not offered and len(view["moves"]) >= 6:  # offer, then move: it stands for them
            offered = True
            call("POST", f"/api/bot/game/{game}/draw/yes")
        call("POST", f"/api/bot/game/{game}/move/{random.choice(view['legal'])}")
print(json.dumps({"game": game, "status": msg["status"], "winner": msg.get("winner"),
                  "plies": len(msg["moves"].split()), "chat": heard, "draw_declined": declined}))
sys.exit(0 if heard and declined and msg["status"] not in ("started", "draw") else 1)
