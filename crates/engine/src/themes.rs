//! A puzzle's themes, read from the shape of its solution: the traces of the line's moves
//! (docs/trace.md). Each theme has a stable lower-case name, for the API and for searching.
//!
//! | theme | the solution… |
//! |---|---|
//! | `chain` | has the solver make two or more last-seed captures in a row, each giving the next move |
//! | `sacrifice` | has a solver's move whose sowing makes a four mid-sow in the opponent's row, which the opponent takes |
//! | `pass` | leaves the opponent without seeds, so that it must pass |
//! | `race` | has [`RACE_PLIES`] plies or more in a row without a capture |
//! | `short` | takes one move of the solver |

use std::fmt;

use anywoli_core::{CaptureKind, Event, Move, Position};

/// Plies in a row without a capture that make a `race`.
pub const RACE_PLIES: usize = 10;

/// A theme of a puzzle's solution (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Theme {
    /// Two or more last-seed captures of the solver in a row, each giving the next move.
    Chain,
    /// A solver's sowing makes a four mid-sow in the opponent's row, which the opponent takes.
    Sacrifice,
    /// The opponent is left without seeds and must pass.
    Pass,
    /// [`RACE_PLIES`] plies or more in a row without a capture.
    Race,
    /// One move of the solver.
    Short,
}

impl Theme {
    /// Every theme, in the order lists show them.
    pub const ALL: [Theme; 5] = [
        Theme::Chain,
        Theme::Sacrifice,
        Theme::Pass,
        Theme::Race,
        Theme::Short,
    ];

    /// The stable name (API, store, URLs).
    pub const fn name(self) -> &'static str {
        match self {
            Theme::Chain => "chain",
            Theme::Sacrifice => "sacrifice",
            Theme::Pass => "pass",
            Theme::Race => "race",
            Theme::Short => "short",
        }
    }

    /// The theme named `name` ([`Theme::name`]).
    pub fn from_name(name: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for Theme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The themes of the solution `line` played from `position` (whose side to move is the
/// solver), in [`Theme::ALL`]'s order. Moves past one that cannot be played are not read.
pub fn themes(position: &Position, line: &[Move]) -> Vec<Theme> {
    let Some(solver) = position.to_move() else {
        return Vec::new();
    };
    let opponent = solver.opponent();
    let mut p = *position;
    let (mut chain, mut sacrifice, mut pass) = (false, false, false);
    // Solver's moves in a row that ended in a last-seed capture giving another move.
    let mut extra_run = 0;
    // Plies in a row without a capture, and the longest such run.
    let (mut quiet_run, mut quiet_best) = (0, 0);
    let mut solver_moves = 0;
    for &mv in line {
        let Ok(t) = p.play_traced(mv) else { break };
        let mine = t.mover == solver;
        if mine {
            solver_moves += 1;
        }
        let mut captured = false;
        let mut extra = false;
        for e in &t.events {
            match *e {
                Event::Capture { by, kind, .. } => {
                    captured = true;
                    if mine && by == opponent && kind == CaptureKind::MidSow {
                        sacrifice = true;
                    }
                }
                Event::ExtraMove { side } if side == solver => extra = true,
                Event::Pass { side } if side == opponent => pass = true,
                _ => {}
            }
        }
        if mine && extra {
            extra_run += 1;
            chain |= extra_run >= 2;
        } else {
            extra_run = 0;
        }
        if captured {
            quiet_run = 0;
        } else {
            quiet_run += 1;
            quiet_best = quiet_best.max(quiet_run);
        }
    }
    let mut out = Vec::new();
    for (theme, on) in [
        (Theme::Chain, chain),
        (Theme::Sacrifice, sacrifice),
        (Theme::Pass, pass),
        (Theme::Race, quiet_best >= RACE_PLIES),
        (Theme::Short, solver_moves == 1),
    ] {
        if on {
            out.push(theme);
        }
    }
    out
}

/// The names of `themes`, joined by commas (the store's form).
pub fn join(themes: &[Theme]) -> String {
    themes
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads [`join`]'s form back; unknown names are skipped.
pub fn split(text: &str) -> Vec<Theme> {
    text.split(',').filter_map(Theme::from_name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Theme::ALL {
            assert_eq!(Theme::from_name(t.name()), Some(t));
            assert_eq!(t.to_string(), t.name());
        }
        assert_eq!(Theme::from_name("Chain"), None);
        assert_eq!(split(&join(&Theme::ALL)), Theme::ALL.to_vec());
        assert_eq!(split(""), Vec::new());
    }

    #[test]
    fn nothing_without_a_side_to_move() {
        let over = anywoli_core::parse_position(
            "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 52 44 s s 0 0",
            anywoli_core::Rules::Anywoli,
        )
        .unwrap();
        assert!(themes(&over, &[]).is_empty());
    }
}
