#!/usr/bin/env python3
"""Issue 36's replay: how long a key press takes to step through a long game in a real browser.
Imports a 302-ply game (long-game.txt beside this script), opens it in headless Chromium through
Debian's chromedriver (plain WebDriver over HTTP, no Python package needed), goes to move 150,
presses Left 40 times and Right 40 times (150 ms apart, 500 ms with the animation on), and prints
the time from each key press to the move list marking the new move (and to the next frame);
then holds each arrow for 60 presses 30 ms apart and checks that none was lost. Loopback only.

    chromedriver --port=9515 &
    anywoli serve --port 8080 --db /tmp/replay.sqlite &
    python3 scripts/hosting/replay_steps.py --port 8080 --speed off
    python3 scripts/hosting/replay_steps.py --port 8080 --speed normal
"""
import argparse
import base64
import json
import os
import statistics
import time
import urllib.request


class Browser:
    def __init__(self, driver):
        self.base = driver
        opts = {"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"],
                "binary": "/usr/bin/chromium"}
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": opts}}}
        self.sid = self.call("POST", "/session", caps)["value"]["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        return json.load(urllib.request.urlopen(req))

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.sid}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})["value"]

    def js_async(self, script, *args):
        return self.s("POST", "/execute/async", {"script": script, "args": list(args)})["value"]

    def key(self, k):
        acts = [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
        self.s("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": acts}]})

    def wait(self, cond, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if self.js("return !!(" + cond + ")"):
                return
            time.sleep(0.1)
        raise SystemExit("timed out waiting for " + cond)

    def quit(self):
        self.s("DELETE", "")


LEFT, RIGHT = "\ue012", "\ue014"

# Times each arrow key to the move list's aria-current moving, and to the frame after.
PROBE = """
window.lat = []; window.pending = [];
addEventListener('keydown', (e) => { if (e.key.startsWith('Arrow')) pending.push(performance.now()); }, true);
new MutationObserver(() => {
  const t0 = pending.shift();
  if (t0 === undefined) return;
  const m = performance.now();
  requestAnimationFrame(() => lat.push([m - t0, performance.now() - t0]));
}).observe(document.querySelector('#movelist'), { subtree: true, attributes: true, attributeFilter: ['aria-current'] });
document.activeElement.blur();
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--driver", default="http://127.0.0.1:9515")
    ap.add_argument("--speed", default="off", choices=["off", "fast", "normal", "slow"])
    a = ap.parse_args()
    site = f"http://127.0.0.1:{a.port}"
    record = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "long-game.txt")).read()
    b = Browser(a.driver)
    try:
        b.go(site + "/")
        b.js("localStorage.setItem('anywoli.speed', arguments[0])", a.speed)
        r = b.js_async("const done = arguments[1]; fetch('/api/import', {method: 'POST', headers: "
                       "{'Content-Type': 'application/json'}, body: JSON.stringify({record: arguments[0]})})"
                       ".then((r) => r.json()).then(done)", record)
        gid, plies = r["game"]["id"], r["game"]["ply"]
        b.go(f"{site}/g/{gid}")
        b.wait(f"document.querySelectorAll('#movelist button').length >= {plies}")
        b.js("document.querySelector('#movelist button[data-ply=\"150\"]').click()")
        time.sleep(1.5)
        b.js(PROBE)
        shown = lambda: b.js("const c = document.querySelector('#movelist .current'); return c ? Number(c.dataset.ply) : 0")
        start = shown()
        for k, gap in ((LEFT, 0.15), (RIGHT, 0.15 if a.speed == "off" else 0.5)):
            for _ in range(40):
                b.key(k)
                time.sleep(gap)
            time.sleep(1.5)
        back = shown()
        lat = b.js("return lat")
        print(f"{plies}-ply game, animation {a.speed}: from move {start}, 40 Left and 40 Right -> move {back}; "
              f"{len(lat)} presses timed")
        for name, xs in (("key to the list", [x for x, _ in lat]), ("key to the next frame", [y for _, y in lat])):
            xs.sort()
            print(f"  {name}: median {statistics.median(xs):.1f} ms, 90th {xs[int(len(xs) * .9)]:.1f} ms, "
                  f"slowest {xs[-1]:.1f} ms")
        for k, name in ((LEFT, "Left"), (RIGHT, "Right")):
            s0 = shown()
            for _ in range(60):
                b.key(k)
                time.sleep(0.03)
            time.sleep(3)
            print(f"  {name} held for 60 presses 30 ms apart: move {s0} -> {shown()}")
    finally:
        b.quit()


if __name__ == "__main__":
    main()
