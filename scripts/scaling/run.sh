#!/bin/bash
# One measured run of docs/scaling.md: fresh servers, `anywoli loadtest`, a fault if asked.
#
#   scripts/scaling/run.sh NAME BACKEND [AT UNTIL 'INJECT' 'RECOVER'] -- LOADTEST-ARGS...
#
# BACKEND: sqlite (a file in OUT/db), sqlite-tmpfs (a file on a 48 MiB tmpfs, to fill),
#          pg (one server), pg2 (two servers on one database), pg-tiny (one server, the
#          database in a tablespace on a 48 MiB tmpfs, to fill).
# INJECT and RECOVER are shell commands run AT and UNTIL seconds into the load; they may use
# $P1 and $P2, the servers' process ids (`kill -9 $P1`).
#
# Needs a release build (`cargo build --release`), root (tmpfs mounts, `su postgres`) and a
# local PostgreSQL cluster in which the role of ANYWOLI_LOAD_PG may own databases; it drops and
# makes the databases anywoli_load and anywoli_tiny. For a scratch machine, not a server.
# The JSON report goes to OUT/NAME.json (OUT: $ANYWOLI_LOAD_OUT or /tmp/anywoli-scaling), the
# servers' logs beside it.
set -u
name=$1; backend=$2; shift 2
at=""; until=""; inject="true"; recover="true"
if [ "$1" != "--" ]; then at=$1; until=$2; inject=$3; recover=$4; shift 4; fi
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${ANYWOLI_BIN:-$here/target/release/anywoli}
OUT=${ANYWOLI_LOAD_OUT:-/tmp/anywoli-scaling}
PG=${ANYWOLI_LOAD_PG:?set ANYWOLI_LOAD_PG=postgres://ROLE:PASSWORD@127.0.0.1:5432 (no database)}
mkdir -p "$OUT"
# 10,000 WebSockets and their HTTP connections need more than the usual 1,024 descriptors.
ulimit -n "$(ulimit -Hn)"
role=$(echo "$PG" | sed -E 's|^postgres(ql)?://([^:@/]+).*|\2|')
psqlc() { (cd / && su postgres -c "psql -q -v ON_ERROR_STOP=1 $*" >/dev/null); }
case $backend in
  sqlite) rm -rf "$OUT/db" && mkdir -p "$OUT/db"; DB=$OUT/db/games.sqlite ;;
  sqlite-tmpfs)
    mkdir -p "$OUT/tiny"; umount "$OUT/tiny" 2>/dev/null
    mount -t tmpfs -o size=48m tmpfs "$OUT/tiny"; DB=$OUT/tiny/games.sqlite ;;
  pg|pg2)
    psqlc "-c 'DROP DATABASE IF EXISTS anywoli_load' -c 'CREATE DATABASE anywoli_load OWNER $role'"
    DB="$PG/anywoli_load?sslmode=disable" ;;
  pg-tiny)
    psqlc "-c 'DROP DATABASE IF EXISTS anywoli_tiny' -c 'DROP TABLESPACE IF EXISTS anywoli_tiny'"
    mkdir -p "$OUT/pgtiny"; umount "$OUT/pgtiny" 2>/dev/null
    mount -t tmpfs -o size=48m tmpfs "$OUT/pgtiny"
    install -d -o postgres -g postgres -m 700 "$OUT/pgtiny/ts"
    psqlc "-c \"CREATE TABLESPACE anywoli_tiny LOCATION '$OUT/pgtiny/ts'\"" \
      "-c 'CREATE DATABASE anywoli_tiny OWNER $role TABLESPACE anywoli_tiny'"
    DB="$PG/anywoli_tiny?sslmode=disable" ;;
  *) echo "unknown backend $backend" >&2; exit 2 ;;
esac
serve="--games-per-minute 0 --max-connections-per-client 0 --max-connections 30000"
"$BIN" serve --port 8099 --db "$DB" $serve 2>"$OUT/$name.server1.log" &
P1=$!; P2=""
servers="--server http://127.0.0.1:8099 --server-pid $P1"
if [ "$backend" = pg2 ]; then
  sleep 1
  "$BIN" serve --port 8100 --db "$DB" $serve 2>"$OUT/$name.server2.log" &
  P2=$!
  servers="$servers --server http://127.0.0.1:8100 --server-pid $P2"
fi
sleep 1.5
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/$name.loadtest.log"
"$BIN" loadtest $servers "$@" --json >"$OUT/$name.json" 2>>"$OUT/$name.loadtest.log" &
L=$!
if [ -n "$at" ]; then
  sleep "$at"; echo "at ${at} s: $inject" >>"$OUT/$name.loadtest.log"; eval "$inject"
  sleep $((until - at)); echo "at ${until} s: $recover" >>"$OUT/$name.loadtest.log"; eval "$recover"
fi
wait $L; status=$?
kill $P1 $P2 2>/dev/null; wait 2>/dev/null
case $backend in
  sqlite-tmpfs) umount "$OUT/tiny" ;;
  pg-tiny) psqlc "-c 'DROP DATABASE anywoli_tiny' -c 'DROP TABLESPACE anywoli_tiny'"; umount "$OUT/pgtiny" ;;
esac
echo "$name: loadtest exit status $status, report in $OUT/$name.json"
