//! The board drawn in the terminal from South's side.

use std::fmt::Write;

use anywoli_core::{Hole, Move, Position, Side};

/// Draws `pos` with North's row on top, reversed (as South sees it: `L` faces `a`), North's store
/// on the left and South's on the right; `last` is marked with `*`.
pub fn draw(pos: &Position, last: Option<Move>) -> String {
    let north: Vec<Hole> = Hole::row(Side::North).rev().collect();
    let south: Vec<Hole> = Hole::row(Side::South).collect();
    let mut s = String::new();
    let letters = |s: &mut String, row: &[Hole]| {
        s.push_str("         ");
        for h in row {
            let _ = write!(s, "   {} ", h.letter());
        }
        s.push('\n');
    };
    let cells = |s: &mut String, row: &[Hole], left: &str, right: &str| {
        let _ = write!(s, "{left:>8} |");
        for &h in row {
            let mark = if last.map(Move::hole) == Some(h) {
                '*'
            } else {
                ' '
            };
            let _ = write!(s, "{mark}{:>2} |", pos.seeds(h));
        }
        let _ = writeln!(s, " {right}");
    };
    let rule = "         +".to_string() + &"----+".repeat(12) + "\n";
    letters(&mut s, &north);
    s.push_str(&rule);
    cells(&mut s, &north, "North", "");
    let _ = writeln!(
        s,
        "{:>8} +{}+ {}",
        format!("{:>2}", pos.store(Side::North)),
        "----+".repeat(12).trim_end_matches('+'),
        pos.store(Side::South)
    );
    cells(&mut s, &south, "", "South");
    s.push_str(&rule);
    letters(&mut s, &south);
    let status = match (pos.to_move(), pos.outcome()) {
        (Some(side), _) => format!("{side} to move"),
        (None, Some(o)) => format!(
            "game over: {o}, {}-{}",
            pos.store(Side::South),
            pos.store(Side::North)
        ),
        (None, None) => "game over".to_string(),
    };
    let _ = writeln!(
        s,
        "{status} · ply {} · quiet plies {} · seeds in play {} · rules {}",
        pos.ply(),
        pos.quiet_plies(),
        pos.seeds_in_play(),
        pos.rules()
    );
    s
}
