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
# Levels 1 to 9 are fixed depths: 1000 ms is only a cap. The steps between searching levels
# (7-6, 8-7, 9-8) are smaller than the lower ones, so they get four times the games.
for n in 1 2 3 4 5 6 7 8; do
  g=$games
  if [ "$n" -ge 6 ]; then g=$((games * 4)); fi
  "$bin" match --games "$g" --jobs 2 --movetime 1000 --out "$out/level$((n + 1))-level$n.txt" \
    "level$((n + 1))" "level$n" | tail -n 3
done
"$bin" match --games 40 --jobs 2 --movetime 1000 --out "$out/level10-level9.txt" level10 level9 | tail -n 3
"$bin" match --games 40 --jobs 2 --movetime 200 --out "$out/level10-greedy.txt" level10 greedy | tail -n 3
"$bin" match --games 40 --jobs 2 --movetime 200 --out "$out/level10-minimax3.txt" level10 minimax3 | tail -n 3
