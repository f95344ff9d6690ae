#!/usr/bin/env bash
# Runs the README's main command (given as one string, as written there) as a user would, waits until the web
# app answers on the README's address, creates a game and plays a move through the API, then
# stops the server with Ctrl-C (SIGINT) and expects a clean exit. Fails loudly on any step.
set -euo pipefail
base=http://127.0.0.1:8080
work=$(mktemp -d)
log="$work/server.log"
if curl -s -o /dev/null --max-time 2 "$base/"; then
  echo "something already answers on $base: stop it first"; exit 1
fi
# A process group of its own, so that the signal reaches cargo and the server alike.
setsid bash -c "exec $*" >"$log" 2>&1 &
pid=$!
cleanup() { kill -KILL -- "-$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# The first run builds the release binary: allow for a slow machine.
for _ in $(seq 1 1800); do
  if curl -s -o /dev/null --max-time 2 "$base/api/rules"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "the main command exited:"; tail -20 "$log"; exit 1; fi
  sleep 1
done
# Read whole before looking: `curl | grep -q` fails with SIGPIPE under pipefail whenever grep
# finds the title before curl has written the rest of the page.
page=$(curl -sf --max-time 5 "$base/") || { echo "no page at $base/"; tail -20 "$log"; exit 1; }
grep -q '<title>Anywoli' <<<"$page" || { echo "no page at $base/"; tail -20 "$log"; exit 1; }
created=$(curl -sf --max-time 10 -H 'Content-Type: application/json' -d '{"mode":"local"}' "$base/api/games")
id=$(printf '%s' "$created" | python3 -c 'import json,sys; print(json.load(sys.stdin)["game"]["id"])')
secret=$(printf '%s' "$created" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
moved=$(curl -sf --max-time 10 -H 'Content-Type: application/json' \
  -d "{\"move\":\"e\",\"secret\":\"$secret\",\"ply\":0}" "$base/api/games/$id/moves")
printf '%s' "$moved" | python3 -c '
import json, sys
g = json.load(sys.stdin)["game"]
assert g["moves"] == ["e"], g["moves"]
assert g["to_move"] == "north", g["to_move"]
assert sum(g["holes"]) + sum(g["stores"]) == 96
print("main command: game", g["id"], "played e; North to move")'
kill -INT -- "-$pid"
for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
if kill -0 "$pid" 2>/dev/null; then echo "the server did not stop on Ctrl-C"; exit 1; fi
wait "$pid" || { echo "the main command exited with an error on Ctrl-C:"; tail -20 "$log"; exit 1; }
grep -q "anywoli: stopping" "$log" || { echo "no clean stop in the log:"; tail -20 "$log"; exit 1; }
echo "main command: stopped cleanly"
