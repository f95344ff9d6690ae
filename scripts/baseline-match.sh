#!/usr/bin/env bash
# Level 10 of this tree against level 10 of a baseline commit, the baseline spoken to through
# the engine protocol (`cmd:`), as issue 15 asks (docs/strength.md, "Against the baseline").
# Usage: scripts/baseline-match.sh [GAMES] [OUT_DIR]
#   BASE    the baseline commit (default a78f0f5: main before issue 15's search work)
#   THREADS search threads of this tree's level 10 (default 1)
#   JOBS    games at once (default 2; with THREADS=2 on 2 cores use 1)
# The baseline is exported with `git archive` and built once into OUT_DIR/baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-400}
out=${2:-target/baseline-match}
base=${BASE:-a78f0f5}
threads=${THREADS:-1}
jobs=${JOBS:-2}
mkdir -p "$out"
src="$out/baseline-$base"
if [ ! -x "$src/target/release/anywoli" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  git archive "$base" | tar -x -C "$src"
  (cd "$src" && cargo build --release -p anywoli-cli)
fi
cargo build --release -p anywoli-cli
target/release/anywoli match --games "$games" --jobs "$jobs" --movetime 200 --threads "$threads" \
  --out "$out/level10-t$threads-vs-$base.txt" \
  level10 "cmd:$src/target/release/anywoli engine" | tail -n 3
