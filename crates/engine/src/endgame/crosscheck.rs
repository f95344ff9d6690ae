//! The 12-seed database checked by a method that never reads it: the exact solver with the
//! 8-seed database only. Above both the database and the solver, so neither imports the other.

use anywoli_core::{Position, Rules, Side};

use super::index::{positions, unrank};
use super::probe::Tablebase;
use super::solve::Solver;

/// What [`cross_check12`] found.
#[derive(Clone, Debug, Default)]
pub struct CrossCheck {
    /// Random positions tried (no hole of 4, seeds for the side to move).
    pub tried: usize,
    /// Of those, the ones the table gives an exact value for and the solver proves.
    pub proven: usize,
    /// Positions where the two disagree, with the table's value and the solver's.
    pub disagreements: Vec<(Position, i32, i32)>,
}

/// Checks the 12-seed table against a method that never reads it: the exact solver
/// ([`super::solve`]) with the 8-seed database only, on `samples` random positions (seeded, so a
/// run can be repeated), each within `nodes` nodes. Positions the solver cannot prove within
/// its limit are only counted as tried. `both` holds the 12- and 8-seed tables, `only8` the
/// 8-seed one.
pub fn cross_check12(
    both: &Tablebase,
    only8: &Tablebase,
    samples: usize,
    nodes: u64,
    seed: u64,
) -> CrossCheck {
    let n = positions(12);
    let mut rng = anywoli_core::XorShift::new(seed | 1);
    let mut c = CrossCheck::default();
    while c.tried < samples {
        let x = rng.next();
        let holes = unrank(x % n, 12);
        if holes.contains(&4) {
            continue;
        }
        let side = if x >> 63 == 0 {
            Side::South
        } else {
            Side::North
        };
        let Ok(p) = Position::from_parts(
            holes,
            [42, 42],
            Some(side),
            None,
            None,
            0,
            0,
            Rules::Anywoli,
        ) else {
            continue;
        };
        c.tried += 1;
        let Some(table) = both.probe(&p).and_then(|pr| pr.value) else {
            continue;
        };
        if let Ok(v) = Solver::new(Some(only8), nodes).value(&p) {
            c.proven += 1;
            if v != table {
                c.disagreements.push((p, table, v));
            }
        }
    }
    c
}
