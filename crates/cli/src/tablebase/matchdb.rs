//! `anywoli tablebase match`: level 10 with the databases against level 10 without, from
//! endgame positions.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anywoli_core::{Position, Rules, Side, XorShift};
use anywoli_engine::arena::{elo, play_game};
use anywoli_engine::endgame::{positions, unrank, Table, Tablebase, Verdict};
use anywoli_engine::{LevelPlayer, Player};

use super::place::{folder, missing, open};
use crate::common::CmdResult;

/// Random positions with `seeds` in play, stores level, quiet counter 0, South to move. With 8
/// seeds, only those where South forces the capture in 30 to 100 plies: long enough that a
/// search without the database cannot see it (a random 8-seed position is mostly decided in
/// a few plies, and both players find those).
fn endgame_starts(tb: &Tablebase, seeds: u8, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = XorShift::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut out = Vec::new();
    let rest = 96 - seeds;
    while out.len() < n {
        let holes = unrank(rng.below(positions(seeds)), seeds);
        // No hole of 4 (it cannot arise in play after the start) and seeds on both sides.
        if holes.contains(&4)
            || holes[..12].iter().all(|&c| c == 0)
            || holes[12..].iter().all(|&c| c == 0)
        {
            continue;
        }
        if let Ok(p) = Position::from_parts(
            holes,
            [rest / 2, rest / 2],
            Some(Side::South),
            None,
            None,
            0,
            0,
            Rules::Anywoli,
        ) {
            if seeds == 8
                && !tb
                    .probe(&p)
                    .is_some_and(|pr| pr.verdict == Verdict::Win && (30..=100).contains(&pr.dtc))
            {
                continue;
            }
            out.push(p);
        }
    }
    out
}

pub fn match_db(
    dir: Option<&Path>,
    games: usize,
    movetime: u64,
    seeds: u8,
    seed: u64,
) -> CmdResult {
    let tb = Arc::new(open(dir)?);
    if tb.table(8).is_none() {
        let path = folder(dir).join(Table::file_name(8));
        return Err(missing(&path, ""));
    }
    let starts = endgame_starts(&tb, seeds, games.div_ceil(2), seed);
    let mut with = LevelPlayer::new(10, seed, 16, 1).expect("level 10 exists");
    with.engine_mut().set_tablebase(Some(tb));
    let mut without = LevelPlayer::new(10, seed + 1, 16, 1).expect("level 10 exists");
    without.engine_mut().set_tablebase(None);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "match: level 10 with the databases vs level 10 without, {games} games from {} random {seeds}-seed positions (each with both sides), movetime {movetime} ms",
        starts.len()
    )?;
    let mut results = Vec::new();
    let t = Duration::from_millis(movetime);
    for (i, start) in starts.iter().enumerate() {
        for swap in [false, true] {
            if results.len() >= games {
                break;
            }
            let players: [&mut dyn Player; 2] = if swap {
                [&mut without, &mut with]
            } else {
                [&mut with, &mut without]
            };
            let g = play_game(players, *start, t);
            let south = g.south_score();
            let score = if swap { 1.0 - south } else { south };
            results.push(score);
            writeln!(
                out,
                "game {}: start {} with-db plays {}: {}-{} after {} plies, with-db scores {score}",
                results.len(),
                i + 1,
                if swap { "North" } else { "South" },
                g.end.store(Side::South),
                g.end.store(Side::North),
                g.moves.len()
            )?;
        }
    }
    let e = elo(&results);
    let wins = results.iter().filter(|&&r| r == 1.0).count();
    let draws = results.iter().filter(|&&r| r == 0.5).count();
    writeln!(
        out,
        "score: with databases {} - {} without ({} games: +{wins} ={draws} -{})",
        e.score,
        e.games as f64 - e.score,
        e.games,
        e.games - wins - draws
    )?;
    writeln!(
        out,
        "elo: with - without = {:+.0} +/- {:.0} (95%)",
        e.elo, e.error
    )?;
    Ok(())
}
