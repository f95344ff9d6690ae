//! `anywoli analyse`: the best move of a position, its score in seeds and the line expected.

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_core::{Move, Side};
use anywoli_engine::{Engine, Info, Limits};

use crate::common::{parse_moves, play_all, CmdResult, Start};

/// Centiseeds as seeds with a sign and two decimals: `+2.50`, `-0.25`, `+0.00`.
pub fn seeds(centiseeds: i32) -> String {
    let sign = if centiseeds < 0 { '-' } else { '+' };
    let a = centiseeds.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

pub fn line(pv: &[Move]) -> String {
    pv.iter()
        .map(|m| m.letter().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

pub struct Options {
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub hash: usize,
    pub threads: usize,
    /// Lines to report (the best N moves, each scored exactly); 1 is the output it always was.
    pub multipv: usize,
}

/// What `analyse` uses when neither `--movetime` nor `--depth` is given.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

pub fn run(start: &Start, moves: &[String], opts: &Options) -> CmdResult {
    let pos = start.position()?;
    let moves = parse_moves(moves)?;
    let pos = play_all(pos, &moves)?.pop().unwrap_or(pos);
    let mut out = std::io::stdout().lock();
    writeln!(out, "position {pos}")?;
    let Some(me) = pos.to_move() else {
        let result = match pos.outcome() {
            Some(o) => format!("{o}"),
            None => "over".to_string(),
        };
        writeln!(
            out,
            "best move: none, the game is over ({result}, {}-{})",
            pos.store(Side::South),
            pos.store(Side::North)
        )?;
        return Ok(());
    };
    let limits = Limits {
        depth: opts.depth,
        nodes: None,
        movetime: match (opts.movetime, opts.depth) {
            (None, None) => Some(Duration::from_millis(DEFAULT_MOVETIME_MS)),
            (t, _) => t.map(Duration::from_millis),
        },
    };
    let mut engine = Engine::new(opts.hash, opts.threads);
    engine.set_tablebase(anywoli_engine::endgame::shared());
    engine.set_multipv(opts.multipv);
    let multi = opts.multipv > 1;
    let stop = AtomicBool::new(false);
    let mut failed: Option<std::io::Error> = None;
    let mut on_info = |i: &Info| {
        if failed.is_some() {
            return;
        }
        let which = if multi {
            format!("  line {}", i.multipv)
        } else {
            String::new()
        };
        let r = writeln!(
            out,
            "depth {:>2}{which}  score {:>7}  nodes {:>10}  nps {:>9}  time {:>6} ms  pv {}",
            i.depth,
            seeds(i.score),
            i.nodes,
            i.nps(),
            i.time.as_millis(),
            line(&i.pv)
        )
        .and_then(|()| out.flush());
        if let Err(e) = r {
            failed = Some(e);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let r = engine.search(&pos, &limits, &stop, &mut on_info);
    if let Some(e) = failed {
        return Err(e.into());
    }
    match r.best {
        Some(best) => {
            writeln!(out, "best move: {best}")?;
            writeln!(
                out,
                "score: {} seeds for {me}, the side to move (expected final store difference, {me} minus {})",
                seeds(r.score),
                me.opponent()
            )?;
            writeln!(out, "line: {}", line(&r.pv))?;
            if multi {
                writeln!(out, "best {} moves:", r.lines.len())?;
                for (k, l) in r.lines.iter().enumerate() {
                    writeln!(out, "{:>2}. {:>7}  {}", k + 1, seeds(l.score), line(&l.pv))?;
                }
            }
            writeln!(
                out,
                "searched: depth {}, {} nodes, {} ms",
                r.depth,
                r.nodes,
                r.time.as_millis()
            )?;
        }
        None => writeln!(out, "best move: none, no move of {me} can be played")?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_are_signed_with_two_decimals() {
        assert_eq!(super::seeds(250), "+2.50");
        assert_eq!(super::seeds(-25), "-0.25");
        assert_eq!(super::seeds(0), "+0.00");
        assert_eq!(super::seeds(-9600), "-96.00");
    }
}
