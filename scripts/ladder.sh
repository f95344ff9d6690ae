#!/usr/bin/env bash
# The level ladder of docs/strength.md: each level against the one below it, then level 10
# against the two baselines. Usage: scripts/ladder.sh [GAMES] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100}
out=${2:-target/ladder}
mkdir -p "$out"
cargo build --release -p anywoli-cli
bin=target/release/anywoli
for n in 1 2 3 4 5 6 7 8; do  # level 9 (depth 10) needs no clock: 1000 ms is only its cap
  "$bin" match --games "$games" --jobs 2 --movetime 1000 --out "$out/level$((n + 1))-level$n.txt" \
    "level$((n + 1))" "level$n" | tail -n 3
done
"$bin" match --games 40 --jobs 2 --movetime 1000 --out "$out/level10-level9.txt" level10 level9 | tail -n 3
"$bin" match --games 40 --jobs 2 --movetime 200 --out "$out/level10-greedy.txt" level10 greedy | tail -n 3
"$bin" match --games 40 --jobs 2 --movetime 200 --out "$out/level10-minimax3.txt" level10 minimax3 | tail -n 3
