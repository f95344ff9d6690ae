//! Checks shared by the fuzz targets: what must hold of every position and every move.

#![allow(dead_code)]

use anywoli_core::record::{parse_all, Record};
use anywoli_core::trace::{replay, Board};
use anywoli_core::{
    parse_position, Hole, Move, PlayError, Position, Rules, Side, QUIET_LIMIT, TOTAL_SEEDS,
};

/// The variants fuzzed (two lottery seeds: 0 draws North, 3 draws South).
pub const RULES: [Rules; 5] = [
    Rules::Anywoli,
    Rules::FirstFinal,
    Rules::Lottery { seed: 0 },
    Rules::Lottery { seed: 3 },
    Rules::It,
];

/// The invariants of a position, and its position string read back as itself.
pub fn check_position(p: &Position) {
    check_invariants(p);
    let s = p.to_string();
    let q = parse_position(&s, p.rules()).unwrap_or_else(|e| panic!("{s}: {e}"));
    assert_eq!(q, *p, "{s}");
    assert_eq!(q.to_string(), s);
}

/// The invariants of a position (cheap: no string round trip).
pub fn check_invariants(p: &Position) {
    let board: u32 = p.holes().iter().map(|&c| c as u32).sum();
    let stores = p.store(Side::South) as u32 + p.store(Side::North) as u32;
    assert_eq!(board + stores, TOTAL_SEEDS as u32, "{p}");
    assert_eq!(p.hash(), p.compute_hash(), "{p}");
    assert!(p.quiet_plies() as u32 <= p.ply(), "{p}");
    match p.to_move() {
        Some(side) => {
            assert_eq!(board % 4, 0, "{p}");
            assert!(board > p.rules().end_threshold() as u32, "{p}");
            assert!(p.quiet_plies() < QUIET_LIMIT, "{p}");
            assert!(p.row_seeds(side) > 0, "{p}");
            let moves = p.moves();
            assert_eq!(moves.len(), moves.collect::<Vec<_>>().len());
            for h in Hole::all() {
                let legal = h.owner() == side && p.seeds(h) > 0;
                assert_eq!(moves.contains(Move::new(h)), legal, "{p} {h}");
            }
            assert!(p.outcome().is_none());
        }
        None => {
            assert_eq!(board, 0, "{p}");
            assert!(p.moves().is_empty());
            assert!(p.outcome().is_some());
        }
    }
}

/// Plays `mv` (legal or not) every way the crate offers; they must agree, a refused move must
/// change nothing, and the trace must replay to the position reached. Returns the position
/// after a legal move. `strings`: also round-trip the position string of the position reached.
pub fn check_move(p: &Position, mv: Move, strings: bool) -> Option<Position> {
    let mut a = *p;
    let ra = a.play(mv);
    let traced = p.trace(mv);
    match ra {
        Err(e) => {
            assert_eq!(a, *p, "a refused move changed the position");
            assert_eq!(traced.unwrap_err(), e);
            match e {
                PlayError::NeverEnds { .. } => {
                    // Only a legal-looking move can be found never to end.
                    assert!(p.check(mv).is_ok());
                    let mut b = *p;
                    assert_eq!(b.play_unchecked(mv), Err(e));
                    assert_eq!(b, *p);
                }
                _ => assert_eq!(p.check(mv), Err(e)),
            }
            None
        }
        Ok(()) => {
            let mut b = *p;
            b.play_unchecked(mv).unwrap();
            assert_eq!(a, b);
            let t = traced.unwrap();
            assert_eq!(t.after, a);
            let mut board = Board::of(p);
            replay(&mut board, t.mover, &t.events).unwrap_or_else(|e| panic!("{p} {mv}: {e}"));
            assert_eq!(board.holes, *a.holes());
            assert_eq!(board.stores, [a.store(Side::South), a.store(Side::North)]);
            assert_eq!(board.to_move, a.to_move());
            assert_eq!(a.ply(), p.ply().saturating_add(1));
            assert!(a.store(Side::South) >= p.store(Side::South));
            assert!(a.store(Side::North) >= p.store(Side::North));
            if strings {
                check_position(&a);
            } else {
                check_invariants(&a);
            }
            Some(a)
        }
    }
}

/// Plays one move per byte: a byte below 0x80 picks one of the legal moves, a byte from 0x80
/// names any hole (often an illegal move, which must be refused). Returns the moves played.
/// The position string is round-tripped every 16 plies and at the end (the `position` target
/// does it for every position it reads and reaches).
pub fn play_bytes(mut p: Position, bytes: &[u8]) -> (Position, Vec<Move>) {
    let mut played = Vec::new();
    for &b in bytes {
        if p.is_over() {
            break;
        }
        let mv = if b & 0x80 != 0 {
            Move::new(Hole::new_wrapping(b & 0x7f))
        } else {
            let moves = p.moves();
            moves.nth(b as usize % moves.len()).unwrap()
        };
        if let Some(q) = check_move(&p, mv, played.len() % 16 == 15) {
            played.push(mv);
            p = q;
        }
    }
    check_position(&p);
    (p, played)
}

/// A record of the moves from `start` is written and read back as itself.
pub fn check_record_of(start: Position, moves: &[Move]) {
    let mut rec = Record::new(start);
    rec.moves = moves.to_vec();
    rec.set_tag("Event", "fuzz \"play\" \\ target");
    rec.set_result_from_play();
    let text = rec.to_string();
    let back = Record::parse(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(back, rec);
}

/// Any text: if it reads as records, each writes and reads back to the same game, and the
/// written text is stable.
pub fn check_record_text(text: &str) {
    let Ok(games) = parse_all(text) else { return };
    for g in games {
        g.end()
            .expect("the moves of a record that was read are legal");
        let t1 = g.to_string();
        let g2 = Record::parse(&t1).unwrap_or_else(|e| panic!("{t1}\n{e}"));
        assert_eq!(g2.rules, g.rules);
        assert_eq!(g2.start, g.start);
        assert_eq!(g2.moves, g.moves);
        assert_eq!(g2.result, g.result);
        assert_eq!(g2.tags.len(), g.tags.len());
        assert_eq!(g2.to_string(), t1);
    }
}
