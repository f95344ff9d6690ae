//! Hand-checked positions: each expected position string below was worked out seed by seed
//! from the rules (docs/rules.md; the derivation is in the comment above it), not copied from
//! what the engine prints.
//!
//! Holes: South `a..l` = 0..11, North `A..L` = 12..23, sown in that order, `L` -> `a`.
//! Position string: `<a..l>/<A..L> <to-move> <S store> <N store> <last> <first-final> <quiet> <ply>`.

use anywoli_core::trace::{replay, Board};
use anywoli_core::*;

fn mv(letter: char) -> Move {
    Move::from_letter(letter).unwrap()
}

/// Plays `moves` (letters, spaces ignored) from `before` under `rules` with `Position::play`
/// and checks every position on the way; also checks each move's trace against the board.
fn check(rules: Rules, before: &str, moves: &str, expected: &[&str]) {
    let mut p = parse_position(before, rules).unwrap_or_else(|e| panic!("{before}: {e}"));
    assert_eq!(p.to_string(), before, "the start string is canonical");
    let letters: Vec<char> = moves.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(letters.len(), expected.len());
    for (&c, &want) in letters.iter().zip(expected) {
        let trace = p.trace(mv(c)).unwrap();
        let mut board = Board::of(&p);
        replay(&mut board, trace.mover, &trace.events).unwrap();
        p.play(mv(c))
            .unwrap_or_else(|e| panic!("{rules} {before} move {c}: {e}"));
        assert_eq!(p.to_string(), want, "{rules}: after {c} from {before}");
        assert_eq!(trace.after, p);
        assert_eq!(board.holes, *p.holes());
        assert_eq!(board.to_move, p.to_move());
        assert_eq!(p.hash(), p.compute_hash());
        // The string we expect is itself a valid position and reads back as `p`.
        assert_eq!(parse_position(want, rules).unwrap(), p);
    }
}

fn check1(rules: Rules, before: &str, m: char, expected: &str) {
    check(rules, before, &m.to_string(), &[expected]);
}

fn captures(rules: Rules, before: &str, m: char) -> Vec<(Hole, Side, CaptureKind)> {
    parse_position(before, rules)
        .unwrap()
        .trace(mv(m))
        .unwrap()
        .events
        .iter()
        .filter_map(|e| match *e {
            Event::Capture { hole, by, kind } => Some((hole, by, kind)),
            _ => None,
        })
        .collect()
}

fn hole(letter: char) -> Hole {
    Hole::from_letter(letter).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The start and the worked example

#[test]
fn start_position_string() {
    for rules in [
        Rules::Anywoli,
        Rules::FirstFinal,
        Rules::Lottery { seed: 7 },
        Rules::It,
    ] {
        let p = Position::start(rules);
        assert_eq!(
            p.to_string(),
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0"
        );
        assert_eq!(p.to_move(), Some(Side::South));
        assert_eq!(p.seeds_in_play(), 96);
        assert_eq!(p.moves().len(), 12);
        assert!(p.moves().all(|m| m.side() == Side::South));
    }
}

/// The worked example of docs/rules.md ("Example 1"). From the start South plays `e` (4 seeds):
/// f g h i -> 5,5,5,5; `i` got the last seed and holds 5 (not 4, not 1): relay its 5 into
/// j k l A B (all 5); `B` holds 5: relay into C D E F G; `G` 5: relay into H I J K L; `L` 5:
/// relay into a b c d e; `e` was emptied at the start, so the last seed makes it 1 and the move
/// ends. Emptied: e (then 1), i, B, G, L. No capture: quiet 1, ply 1, North to move.
#[test]
fn worked_example() {
    for rules in [
        Rules::Anywoli,
        Rules::FirstFinal,
        Rules::Lottery { seed: 1 },
        Rules::It,
    ] {
        check1(
            rules,
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            'e',
            "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1",
        );
    }
    let p = Position::start(Rules::Anywoli);
    let t = p.trace(mv('e')).unwrap();
    let laps: Vec<(u32, char, u8)> = t
        .events
        .iter()
        .filter_map(|e| match *e {
            Event::Lap { lap, hole, seeds } => Some((lap, hole.letter(), seeds)),
            _ => None,
        })
        .collect();
    assert_eq!(
        laps,
        [
            (1, 'e', 4),
            (2, 'i', 5),
            (3, 'B', 5),
            (4, 'G', 5),
            (5, 'L', 5)
        ]
    );
    let sown = t
        .events
        .iter()
        .filter(|e| matches!(e, Event::Sow { .. }))
        .count();
    assert_eq!(sown, 24);
    assert!(t.events.contains(&Event::Stop { hole: hole('e') }));
}

// ---------------------------------------------------------------------------------------------
// Mid-sow fours go to the owner of the hole

/// North plays L (2 seeds). Seed 1 -> a: 3 -> 4, not the last seed, so a's owner South takes
/// them (S 40 -> 44, a = 0; 12 -> 8 in play). Seed 2 (last) -> b: empty -> 1, the move ends.
/// A capture was made: quiet 0, ply 31, last-capturer s; first-final untouched. South to move.
#[test]
fn mid_sow_four_south_hole_during_norths_move() {
    let before = "3,0,0,0,0,4,0,0,0,0,0,1/2,0,0,0,0,0,0,0,0,0,0,2 n 40 44 n - 7 30";
    check1(
        Rules::Anywoli,
        before,
        'L',
        "0,1,0,0,0,4,0,0,0,0,0,1/2,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 0 31",
    );
    assert_eq!(
        captures(Rules::Anywoli, before, 'L'),
        [(hole('a'), Side::South, CaptureKind::MidSow)]
    );
}

/// South plays j (4 seeds). Seed 1 -> k: 3 -> 4 mid-sow, k is South's own: South takes 4
/// (S 34, k = 0, 16 in play). Seed 2 -> l: 0 -> 1. Seed 3 -> A: 3 -> 4 mid-sow, A is North's:
/// North takes 4 although South is moving (N 50, A = 0, 12 in play). Seed 4 (last) -> B:
/// empty -> 1, the move ends. last-capturer n (North took the latest four), first-final stays
/// s, quiet 0, ply 41, North to move.
#[test]
fn mid_sow_fours_to_mover_and_to_opponent_in_one_move() {
    let before = "0,0,2,0,0,0,0,0,0,4,3,0/3,0,0,0,0,4,0,4,0,0,0,0 s 30 46 n s 3 40";
    check1(
        Rules::Anywoli,
        before,
        'j',
        "0,0,2,0,0,0,0,0,0,0,0,1/0,1,0,0,0,4,0,4,0,0,0,0 n 34 50 n s 0 41",
    );
    assert_eq!(
        captures(Rules::Anywoli, before, 'j'),
        [
            (hole('k'), Side::South, CaptureKind::MidSow),
            (hole('A'), Side::North, CaptureKind::MidSow)
        ]
    );
}

/// South plays k (2 seeds). Seed 1 -> l: 0 -> 1. Seed 2 (last) -> A: 3 -> 4: the last seed of
/// the lap, so the *mover* South takes them though A is North's (S 44, 8 in play), and moves
/// again: to-move stays s; last and first-final become s; quiet 0.
/// Had the rule been "owner takes" North would have them; had it been "no extra move" it
/// would be n to move.
#[test]
fn last_seed_four_in_opponents_hole_goes_to_mover_with_extra_move() {
    let before = "4,0,0,0,0,0,0,0,0,0,2,0/3,0,0,3,0,0,0,0,0,0,0,0 s 40 44 - - 5 20";
    check1(
        Rules::Anywoli,
        before,
        'k',
        "4,0,0,0,0,0,0,0,0,0,0,1/0,0,0,3,0,0,0,0,0,0,0,0 s 44 44 s s 0 21",
    );
    assert_eq!(
        captures(Rules::Anywoli, before, 'k'),
        [(hole('A'), Side::South, CaptureKind::LastSeed)]
    );
    let t = parse_position(before, Rules::Anywoli)
        .unwrap()
        .trace(mv('k'))
        .unwrap();
    assert!(t.events.contains(&Event::ExtraMove { side: Side::South }));
}

/// The same for North: North plays K (2): L 0 -> 1, then the last seed -> a: 3 -> 4, taken by
/// North (N 48), North moves again. first-final was already s and stays s.
#[test]
fn last_seed_four_for_north() {
    check1(
        Rules::Anywoli,
        "3,0,0,4,0,0,0,0,0,0,0,0/0,0,3,0,0,0,0,0,0,0,2,0 n 40 44 s s 9 21",
        'K',
        "0,0,0,4,0,0,0,0,0,0,0,0/0,0,3,0,0,0,0,0,0,0,0,1 n 40 48 n s 0 22",
    );
}

/// Two extra moves in a row, then an ordinary move.
/// a (1 seed) -> b: 3 -> 4 last seed: South takes (S 34), moves again (ply 51).
/// c (1 seed) -> d: 3 -> 4 last seed: South takes (S 38), moves again (ply 52).
/// k (4 seeds) -> l, A, B, C: all were empty; C gets the last seed -> 1: the move ends, North
/// to move, quiet 1 (no capture in this ply), ply 53.
#[test]
fn extra_move_chain() {
    check(
        Rules::Anywoli,
        "1,3,1,3,0,0,0,0,0,0,4,0/0,0,0,0,4,0,0,0,0,4,0,0 s 30 46 n - 12 50",
        "a c k",
        &[
            "0,0,1,3,0,0,0,0,0,0,4,0/0,0,0,0,4,0,0,0,0,4,0,0 s 34 46 s s 0 51",
            "0,0,0,0,0,0,0,0,0,0,4,0/0,0,0,0,4,0,0,0,0,4,0,0 s 38 46 s s 0 52",
            "0,0,0,0,0,0,0,0,0,0,0,1/1,1,1,0,4,0,0,0,0,4,0,0 n 38 46 s s 1 53",
        ],
    );
}

/// South's only seed: l (1) -> A: 3 -> 4 last seed, South takes them (S 44, 8 in play) and
/// would move again, but South's row is now empty: South passes and North is to move.
#[test]
fn extra_move_with_empty_row_passes() {
    let before = "0,0,0,0,0,0,0,0,0,0,0,1/3,0,4,0,4,0,0,0,0,0,0,0 s 40 44 - - 0 9";
    check1(
        Rules::Anywoli,
        before,
        'l',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,4,0,4,0,0,0,0,0,0,0 n 44 44 s s 0 10",
    );
    let t = parse_position(before, Rules::Anywoli)
        .unwrap()
        .trace(mv('l'))
        .unwrap();
    let tail: Vec<Event> = t
        .events
        .iter()
        .copied()
        .filter(|e| matches!(e, Event::ExtraMove { .. } | Event::Pass { .. }))
        .collect();
    assert_eq!(
        tail,
        [
            Event::ExtraMove { side: Side::South },
            Event::Pass { side: Side::South }
        ]
    );
}

/// An ordinary pass: North's row is empty. South plays a (1) -> b: empty -> 1, the move ends;
/// North has no seeds and passes, so South moves again. No capture: quiet 3, ply 31 (a pass is
/// not a ply).
#[test]
fn ordinary_pass() {
    check1(
        Rules::Anywoli,
        "1,0,3,0,4,0,4,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 s 40 44 s - 2 30",
        'a',
        "0,1,3,0,4,0,4,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 s 40 44 s - 3 31",
    );
}

/// Passes by South: North's move leaves the seeds where South has none, South passes and
/// North moves again; then North's seed reaches South's row and South is to move.
#[test]
fn pass_for_south() {
    // K (1 seed) -> L: empty -> 1, the move ends. South's row is empty: South passes, North
    // moves again. quiet 5 -> 6, ply 8 -> 9.
    check1(
        Rules::Anywoli,
        "0,0,0,0,0,0,0,0,0,0,0,0/4,0,0,0,3,0,0,0,0,0,1,0 n 44 44 n n 5 8",
        'K',
        "0,0,0,0,0,0,0,0,0,0,0,0/4,0,0,0,3,0,0,0,0,0,0,1 n 44 44 n n 6 9",
    );
    // L (1 seed) -> a: empty -> 1, the move ends; South now has a seed and is to move.
    check1(
        Rules::Anywoli,
        "0,0,0,0,0,0,0,0,0,0,0,0/4,0,0,0,3,0,0,0,0,0,0,1 n 44 44 n n 6 9",
        'L',
        "1,0,0,0,0,0,0,0,0,0,0,0/4,0,0,0,3,0,0,0,0,0,0,0 s 44 44 n n 7 10",
    );
}

// ---------------------------------------------------------------------------------------------
// Relay sowing and long laps

/// South plays a (2): b 0 -> 1; c (last) 2 -> 3: neither 4 nor a hole that was empty, so relay:
/// take c's 3, sow d 0 -> 1, e 0 -> 1, f (last) 1 -> 2: relay again: take f's 2, sow g 0 -> 1,
/// h (last) 0 -> 1: stop. No capture: quiet 11, ply 61, North to move.
#[test]
fn relay_sowing() {
    let before = "2,0,2,0,0,1,0,0,0,0,4,0/0,0,0,0,0,0,0,0,0,3,0,0 s 40 44 - - 10 60";
    check1(
        Rules::Anywoli,
        before,
        'a',
        "0,1,0,1,1,0,1,1,0,0,4,0/0,0,0,0,0,0,0,0,0,3,0,0 n 40 44 - - 11 61",
    );
    let t = parse_position(before, Rules::Anywoli)
        .unwrap()
        .trace(mv('a'))
        .unwrap();
    let laps: Vec<(u32, char, u8)> = t
        .events
        .iter()
        .filter_map(|e| match *e {
            Event::Lap { lap, hole, seeds } => Some((lap, hole.letter(), seeds)),
            _ => None,
        })
        .collect();
    assert_eq!(laps, [(1, 'a', 2), (2, 'c', 3), (3, 'f', 2)]);
}

/// A relay ending in a last-seed capture, crossing from North's row into South's:
/// North plays K (2): L 0 -> 1, a (last) 1 -> 2: relay a's 2: b 0 -> 1, c (last) 3 -> 4: the
/// mover North takes c's 4 (N 48) and moves again.
#[test]
fn relay_into_last_seed_capture() {
    check1(
        Rules::Anywoli,
        "1,0,3,0,0,0,0,4,0,2,0,0/0,0,0,0,0,0,0,0,0,0,2,0 n 40 44 - - 0 3",
        'K',
        "0,1,0,0,0,0,0,4,0,2,0,0/0,0,0,0,0,0,0,0,0,0,0,1 n 40 48 n n 0 4",
    );
}

/// A lap of 25 seeds from a passes its own emptied start hole and goes on.
/// a (25): b 2 -> 3 (mid-sow, no capture), c 1 -> 2, d..l 0 -> 1 (9 seeds), A..L 0 -> 1
/// (12 seeds): 23 seeds so far. Seed 24 -> a: 0 -> 1 (the start hole is not skipped; not the
/// last seed, no capture). Seed 25 (last) -> b: 3 -> 4: the mover South takes b's 4 (S 34,
/// 24 in play) and moves again.
#[test]
fn lap_of_25_passes_its_own_start_hole() {
    check1(
        Rules::Anywoli,
        "25,2,1,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 s 30 38 n - 4 44",
        'a',
        "1,0,2,1,1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1,1,1,1,1 s 34 38 s s 0 45",
    );
}

/// A lap of exactly 24: the last seed falls into the emptied start hole, which makes it 1, so
/// the move ends there. On the way e 3 -> 4 mid-sow: South (owner, and mover) takes them.
/// a (24): b c d 0 -> 1, e 3 -> 4 captured (S 38, e = 0), f 1 -> 2, g..l 0 -> 1, A..L 0 -> 1,
/// a (24th, last) 0 -> 1: stop. 24 in play, quiet 0, ply 13, North to move.
#[test]
fn lap_of_24_ends_in_its_own_start_hole() {
    check1(
        Rules::Anywoli,
        "24,0,0,0,3,1,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 s 34 34 - - 0 12",
        'a',
        "1,1,1,1,0,2,1,1,1,1,1,1/1,1,1,1,1,1,1,1,1,1,1,1 n 38 34 s - 0 13",
    );
}

/// A lap from North's row past L into South's row and round to North again, then many relays.
/// North plays A (26 seeds): B..K 0 -> 1, L 2 -> 3 (11 seeds), a..l 0 -> 1 (12), A 0 -> 1
/// (the 24th: its own emptied hole), B 1 -> 2, C (26th, last) 1 -> 2.
/// C holds 2: relay C's 2: D 1 -> 2, E (last) 1 -> 2; relay E's 2: F -> 2, G -> 2; relay G's:
/// H -> 2, I -> 2; relay I's: J -> 2, K -> 2; relay K's 2: L 3 -> 4, not the last seed: North,
/// the owner, takes L's 4 (N 38); a (last) 1 -> 2; relay a's: b -> 2, c -> 2; relay c's: d, e;
/// relay e's: f, g; relay g's: h, i; relay i's: j, k; relay k's 2: l 1 -> 2, A (last) 1 -> 2;
/// relay A's 2: B 2 -> 3, C (emptied by its relay) 0 -> 1: the last seed in an empty hole, stop.
/// Final: a..l 0,2,0,2,0,2,0,2,0,2,0,2; A..L 0,3,1,2,0,2,0,2,0,2,0,0. 24 in play, quiet 0.
#[test]
fn long_lap_with_many_relays() {
    let before = "0,0,0,0,0,0,0,0,0,0,0,0/26,0,0,0,0,0,0,0,0,0,0,2 n 34 34 s s 20 40";
    check1(
        Rules::Anywoli,
        before,
        'A',
        "0,2,0,2,0,2,0,2,0,2,0,2/0,3,1,2,0,2,0,2,0,2,0,0 s 34 38 n s 0 41",
    );
    let t = parse_position(before, Rules::Anywoli)
        .unwrap()
        .trace(mv('A'))
        .unwrap();
    let laps: String = t
        .events
        .iter()
        .filter_map(|e| match *e {
            Event::Lap { hole, .. } => Some(hole.letter()),
            _ => None,
        })
        .collect();
    assert_eq!(laps, "ACEGIKacegikA");
    assert_eq!(
        captures(Rules::Anywoli, before, 'A'),
        [(hole('L'), Side::North, CaptureKind::MidSow)]
    );
}

// ---------------------------------------------------------------------------------------------
// The end

/// 8 in play. South plays k (3): l 0 -> 1; A 3 -> 4 mid-sow: North (owner) takes them (N 48),
/// leaving 4 in play (one still in South's hand): the game ends at once. The last 4 (d's 2,
/// l's 1 and the seed in hand) go to the taker of the penultimate four: North (N 52).
/// Board empty, x, quiet 0, ply 71, last-capturer n, first-final stays s.
const MID_SOW_END: &str = "0,0,0,2,0,0,0,0,0,0,3,0/3,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s s 6 70";

#[test]
fn game_ends_mid_sow_at_four_in_play_seeds_in_hand_count() {
    check1(
        Rules::Anywoli,
        MID_SOW_END,
        'k',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 52 n s 0 71",
    );
    let t = parse_position(MID_SOW_END, Rules::Anywoli)
        .unwrap()
        .trace(mv('k'))
        .unwrap();
    assert_eq!(
        t.events.last(),
        Some(&Event::GameOver {
            reason: EndReason::LastSeeds {
                to: Side::North,
                seeds: 4
            }
        })
    );
    // The sowing stopped at the capture: the last seed never reached B.
    assert!(!t
        .events
        .iter()
        .any(|e| matches!(e, Event::Sow { hole: h, .. } if *h == hole('B'))));
    let mut p = parse_position(MID_SOW_END, Rules::Anywoli).unwrap();
    p.play(mv('k')).unwrap();
    assert!(p.is_over());
    assert!(p.moves().is_empty());
    assert_eq!(p.outcome(), Some(Outcome::Win(Side::North)));
}

/// 8 in play: South plays a (1) -> b: 3 -> 4, a last-seed capture for South (S 44), 4 left:
/// the game ends, the last 4 go to South, the penultimate taker (S 48 - N 48, a draw).
/// first-final was n and stays n.
const LAST_SEED_END: &str = "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,0 s 40 48 n n 3 33";

#[test]
fn game_ends_by_last_seed_capture() {
    check1(
        Rules::Anywoli,
        LAST_SEED_END,
        'a',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 s n 0 34",
    );
    let mut p = parse_position(LAST_SEED_END, Rules::Anywoli).unwrap();
    p.play(mv('a')).unwrap();
    assert_eq!(p.outcome(), Some(Outcome::Draw));
}

/// The quiet rule: quiet 99 and a move without capture. South plays l (1) -> A: empty -> 1,
/// stop. That is the 100th quiet ply: the game ends, each side takes its own row: South
/// c 3 + e 4 = 7 (S 47), North A 1 + J 4 = 5 (N 49). North wins.
#[test]
fn quiet_rule_ends_the_game() {
    let before = "0,0,3,0,4,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,0,4,0,0 s 40 44 n s 99 150";
    check1(
        Rules::Anywoli,
        before,
        'l',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 47 49 n s 100 151",
    );
    let t = parse_position(before, Rules::Anywoli)
        .unwrap()
        .trace(mv('l'))
        .unwrap();
    assert_eq!(
        t.events.last(),
        Some(&Event::GameOver {
            reason: EndReason::Quiet { south: 7, north: 5 }
        })
    );
    assert_eq!(t.after.outcome(), Some(Outcome::Win(Side::North)));
}

/// Quiet 98: the same move is only the 99th quiet ply and the game goes on.
#[test]
fn quiet_rule_not_yet() {
    check1(
        Rules::Anywoli,
        "0,0,3,0,4,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0,0,4,0,0 s 40 44 n s 98 150",
        'l',
        "0,0,3,0,4,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0,0,4,0,0 n 40 44 n s 99 151",
    );
}

/// Quiet 99 and a move with a capture: the counter goes back to 0 and the game goes on (the
/// mid-sow case of `mid_sow_four_south_hole_during_norths_move`, and a last-seed capture).
#[test]
fn capture_resets_quiet() {
    check1(
        Rules::Anywoli,
        "3,0,0,0,0,4,0,0,0,0,0,1/2,0,0,0,0,0,0,0,0,0,0,2 n 40 44 n - 99 99",
        'L',
        "0,1,0,0,0,4,0,0,0,0,0,1/2,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 0 100",
    );
    check1(
        Rules::Anywoli,
        "4,0,0,0,0,0,0,0,0,0,2,0/3,0,0,3,0,0,0,0,0,0,0,0 s 40 44 - - 99 120",
        'k',
        "4,0,0,0,0,0,0,0,0,0,0,1/0,0,0,3,0,0,0,0,0,0,0,0 s 44 44 s s 0 121",
    );
}

// ---------------------------------------------------------------------------------------------
// Variants

/// anywoli-first-final, the mid-sow end of `MID_SOW_END`: North takes A (N 48) leaving 4; the
/// first last-seed capture of the game was South's (field s), so the last 4 go to South
/// (S 48): a draw where `anywoli` gives North 52.
#[test]
fn first_final_last_four_to_first_last_seed_capturer() {
    check1(
        Rules::FirstFinal,
        MID_SOW_END,
        'k',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 n s 0 71",
    );
    // And in the last-seed end, first-final n: South takes b (S 44), the last 4 go to North
    // (N 52) where `anywoli` gives them to South.
    check1(
        Rules::FirstFinal,
        LAST_SEED_END,
        'a',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 52 s n 0 34",
    );
}

/// anywoli-first-final with nobody's last-seed capture yet ('-'): as in `anywoli`, to the
/// penultimate taker, North (N 52); the field stays '-' (a mid-sow capture is not a
/// last-seed capture).
#[test]
fn first_final_without_first_capturer_is_penultimate() {
    let before = "0,0,0,2,0,0,0,0,0,0,3,0/3,0,0,0,0,0,0,0,0,0,0,0 s 44 44 s - 6 70";
    check1(
        Rules::FirstFinal,
        before,
        'k',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 52 n - 0 71",
    );
    // The final capture itself is the first last-seed capture: the mover South takes b and
    // the last 4 (S 48).
    check1(
        Rules::FirstFinal,
        "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,0 s 40 48 n - 3 33",
        'a',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 s s 0 34",
    );
}

/// The first last-seed capture is remembered and later ones do not change it.
#[test]
fn first_final_field_is_set_once() {
    // South takes A by its last seed (k: l 0 -> 1, A 3 -> 4): first-final s.
    check1(
        Rules::FirstFinal,
        "4,0,0,0,0,0,0,0,0,0,2,0/3,0,0,3,0,0,0,0,0,0,0,0 s 40 44 - - 5 20",
        'k',
        "4,0,0,0,0,0,0,0,0,0,0,1/0,0,0,3,0,0,0,0,0,0,0,0 s 44 44 s s 0 21",
    );
    // North takes a by its last seed (K: L 0 -> 1, a 3 -> 4): first-final stays s.
    check1(
        Rules::FirstFinal,
        "3,0,0,4,0,0,0,0,0,0,0,0/0,0,3,0,0,0,0,0,0,0,2,0 n 40 44 s s 9 21",
        'K',
        "0,0,0,4,0,0,0,0,0,0,0,0/0,0,3,0,0,0,0,0,0,0,0,1 n 40 48 n s 0 22",
    );
}

/// SplitMix64 as published (Steele, Lea, Flood), written out again here: the first output of
/// a generator seeded with `seed`.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn lottery_draw_is_the_top_bit_of_splitmix64() {
    for seed in (0..200u64).chain([u64::MAX, 1 << 63, 0xdead_beef]) {
        let want = if splitmix64(seed) >> 63 == 0 {
            Side::South
        } else {
            Side::North
        };
        assert_eq!(lottery_draw(seed), want, "seed {seed}");
    }
    // Known values of SplitMix64 seeded with 0: first output 0xe220a8397b1dcdaf.
    assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    assert_eq!(lottery_draw(0), Side::North);
    assert_eq!(lottery_draw(3), Side::South);
}

/// anywoli-lottery: the last 4 go to the side drawn from the seed, whoever took the
/// penultimate four. In `MID_SOW_END` North takes A (N 48): seed 3 draws South (S 48, a draw),
/// seed 0 draws North (N 52).
#[test]
fn lottery_last_four_to_the_drawn_side() {
    assert_eq!(lottery_draw(3), Side::South);
    assert_eq!(lottery_draw(0), Side::North);
    check1(
        Rules::Lottery { seed: 3 },
        MID_SOW_END,
        'k',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 n s 0 71",
    );
    check1(
        Rules::Lottery { seed: 0 },
        MID_SOW_END,
        'k',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 52 n s 0 71",
    );
    // In the last-seed end South takes b (S 44); seed 0 draws North (N 52), seed 3 South (S 48).
    check1(
        Rules::Lottery { seed: 0 },
        LAST_SEED_END,
        'a',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 52 s n 0 34",
    );
    check1(
        Rules::Lottery { seed: 3 },
        LAST_SEED_END,
        'a',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 s n 0 34",
    );
}

/// anywoli-it ends when 8 are left in play, and those 8 go to South (who moved first), even
/// when North made the capture. North plays K (2): L 3 -> 4 mid-sow, North takes them (N 48),
/// 8 left: the game ends, the 8 (a 3, c 4, the seed in hand) go to South (S 48).
/// Under `anywoli` the sowing goes on: the last seed -> a: 3 -> 4, North takes it (N 52), 4
/// left: end, the last 4 to North, the penultimate taker (N 56).
#[test]
fn it_ends_at_eight_and_gives_them_to_south() {
    let before = "3,0,4,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,2,3 n 40 44 - - 0 1";
    check1(
        Rules::It,
        before,
        'K',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 n - 0 2",
    );
    check1(
        Rules::Anywoli,
        before,
        'K',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 40 56 n n 0 2",
    );
    let t = parse_position(before, Rules::It)
        .unwrap()
        .trace(mv('K'))
        .unwrap();
    assert_eq!(
        t.events.last(),
        Some(&Event::GameOver {
            reason: EndReason::LastSeeds {
                to: Side::South,
                seeds: 8
            }
        })
    );
}

/// anywoli-it: a last-seed capture ends the move with no extra move. South plays l (2): A 0 -> 1,
/// B (last) 3 -> 4: South takes them (S 40, 12 in play), and North is to move (in `anywoli`
/// South would move again).
#[test]
fn it_no_extra_move() {
    let before = "4,0,0,0,4,0,0,0,0,0,0,2/0,3,0,3,0,0,0,0,0,0,0,0 s 36 44 - - 5 20";
    check1(
        Rules::It,
        before,
        'l',
        "4,0,0,0,4,0,0,0,0,0,0,0/1,0,0,3,0,0,0,0,0,0,0,0 n 40 44 s s 0 21",
    );
    check1(
        Rules::Anywoli,
        before,
        'l',
        "4,0,0,0,4,0,0,0,0,0,0,0/1,0,0,3,0,0,0,0,0,0,0,0 s 40 44 s s 0 21",
    );
    let t = parse_position(before, Rules::It)
        .unwrap()
        .trace(mv('l'))
        .unwrap();
    assert!(!t
        .events
        .iter()
        .any(|e| matches!(e, Event::ExtraMove { .. })));
}

/// anywoli-it: no extra move, and North has no seeds: North passes, South moves again.
/// South plays l (1) -> A: 3 -> 4, South takes them (S 44), North's row is empty: pass.
#[test]
fn it_no_extra_move_but_opponent_passes() {
    check1(
        Rules::It,
        "4,0,0,4,0,4,0,0,0,0,0,1/3,0,0,0,0,0,0,0,0,0,0,0 s 40 40 - - 0 2",
        'l',
        "4,0,0,4,0,4,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 s 44 40 s s 0 3",
    );
}

// ---------------------------------------------------------------------------------------------
// Errors of play

#[test]
fn play_errors() {
    let start = Position::start(Rules::Anywoli);
    let mut p = start;
    assert_eq!(
        p.play(mv('A')),
        Err(PlayError::WrongSide {
            mv: mv('A'),
            to_move: Side::South
        })
    );
    assert_eq!(p, start, "a refused move changes nothing");
    p.play(mv('e')).unwrap();
    let after_e = p;
    assert_eq!(
        p.play(mv('a')),
        Err(PlayError::WrongSide {
            mv: mv('a'),
            to_move: Side::North
        })
    );
    // B was emptied by the relay of the worked example.
    assert_eq!(p.play(mv('B')), Err(PlayError::EmptyHole { mv: mv('B') }));
    assert_eq!(p, after_e);
    assert!(p.trace(mv('B')).is_err());
    assert!(p.play_traced(mv('G')).is_err());
    assert_eq!(p, after_e);

    let over = parse_position(
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 52 n s 0 71",
        Rules::Anywoli,
    )
    .unwrap();
    for m in ['a', 'A', 'l', 'L'] {
        let mut q = over;
        assert_eq!(q.play(mv(m)), Err(PlayError::GameOver { mv: mv(m) }));
        assert_eq!(q, over);
        assert!(q.trace(mv(m)).is_err());
    }
    assert!(over.moves().is_empty());
    assert_eq!(over.outcome(), Some(Outcome::Win(Side::North)));
    assert_eq!(start.outcome(), None);
    // Error messages say what is wrong.
    let e = start.check(mv('A')).unwrap_err().to_string();
    assert!(e.contains("South") && e.contains("a..l"), "{e}");
}

/// `MoveSet` is an exact-size iterator: collecting it, its size_hint and the trait's `len`
/// (which calls size_hint) all work. (`size_hint` used to recurse forever through
/// `ExactSizeIterator::len`.)
#[test]
fn move_set_iterates() {
    let p = Position::start(Rules::Anywoli);
    let ms = p.moves();
    assert_eq!(ms.size_hint(), (12, Some(12)));
    assert_eq!(ExactSizeIterator::len(&ms), 12);
    let all: Vec<Move> = ms.collect();
    assert_eq!(all.len(), 12);
    assert_eq!(
        all.iter().map(|m| m.letter()).collect::<String>(),
        "abcdefghijkl"
    );
    let mut it = p.moves();
    it.next();
    assert_eq!(it.size_hint(), (11, Some(11)));
    assert_eq!(it.map(|m| m.letter()).max(), Some('l'));
    assert!(!ms.contains(Move::from_letter('A').unwrap()));
    assert_eq!(ms.nth(11), Some(mv('l')));
    assert_eq!(ms.nth(12), None);
    let mut set = MoveSet::EMPTY;
    set.insert(mv('C'));
    set.insert(mv('a'));
    assert_eq!(set.len(), 2);
    set.remove(mv('a'));
    assert_eq!(set.collect::<Vec<_>>(), [mv('C')]);
}

#[test]
fn move_letters() {
    for (i, c) in ('a'..='l').chain('A'..='L').enumerate() {
        let m: Move = c.to_string().parse().unwrap();
        assert_eq!(m.hole().index(), i);
        assert_eq!(m.side(), if i < 12 { Side::South } else { Side::North });
        assert_eq!(m.to_string(), c.to_string());
        assert_eq!(m.hole().facing().index(), 23 - i);
    }
    for bad in ["", "m", "M", "ab", "1", " a", "é", "z"] {
        assert!(bad.parse::<Move>().is_err(), "{bad:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Position strings that are refused, with the field that is wrong

const GOOD: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";

fn field_of(text: &str, rules: Rules) -> Field {
    match parse_position(text, rules) {
        Ok(p) => panic!("{text} was accepted as {p}"),
        Err(e) => {
            assert!(!e.message.is_empty());
            assert!(e.to_string().contains(e.field.name()), "{e}");
            e.field
        }
    }
}

#[test]
fn refused_position_strings() {
    use Field::*;
    let a = Rules::Anywoli;
    assert!(parse_position(GOOD, a).is_ok());
    let cases: &[(&str, Field)] = &[
        // wrong field count
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0",
            Whole,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0 0",
            Whole,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4  s 0 0 - - 0 0",
            Whole,
        ),
        ("", Whole),
        // the board
        (
            "4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,x,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,-4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,4.5,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "97,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            SouthRow,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            NorthRow,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,0 s 0 0 - - 0 0",
            NorthRow,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,+4 s 0 0 - - 0 0",
            NorthRow,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4/4 s 0 0 - - 0 0",
            NorthRow,
        ),
        // to-move
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 S 0 0 - - 0 0",
            ToMove,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 - 0 0 - - 0 0",
            ToMove,
        ),
        // stores
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s a 0 - - 0 0",
            SouthStore,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 97 0 - - 0 0",
            SouthStore,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 -1 - - 0 0",
            NorthStore,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 99999999999 - - 0 0",
            NorthStore,
        ),
        // capturers
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 x - 0 0",
            LastCapturer,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - N 0 0",
            FirstFinalCapturer,
        ),
        // counters
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - one 0",
            QuietPlies,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 -3",
            Ply,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 99999999999",
            Ply,
        ),
        // quiet-plies >= 100 while the game goes on, and > 100 ever
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 100 200",
            QuietPlies,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 150 200",
            QuietPlies,
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 - - 101 200",
            QuietPlies,
        ),
        // quiet-plies above ply
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 5 4",
            QuietPlies,
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 - - 5 4",
            QuietPlies,
        ),
        // 95 and 97 seeds
        (
            "3,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
            Whole,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 1 0 - - 0 0",
            Whole,
        ),
        (
            "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 96 96 - - 0 0",
            Whole,
        ),
        // seeds in play not a multiple of 4 (13 in play, stores 83)
        (
            "3,0,0,0,0,4,0,0,0,0,0,2/2,0,0,0,0,0,0,0,0,0,0,2 s 40 43 - - 0 0",
            Whole,
        ),
        // 4 in play under anywoli
        (
            "1,0,0,0,0,0,0,0,0,0,0,1/2,0,0,0,0,0,0,0,0,0,0,0 s 44 48 - - 0 0",
            Whole,
        ),
        // the side to move has no seeds
        (
            "0,0,0,0,0,0,0,0,0,0,0,0/4,4,4,0,0,0,0,0,0,0,0,0 s 42 42 - - 0 0",
            ToMove,
        ),
        (
            "4,4,4,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 n 42 42 - - 0 0",
            ToMove,
        ),
        // game over with seeds on the board
        (
            "4,4,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 44 44 - - 0 0",
            ToMove,
        ),
        (
            "0,0,0,0,0,0,0,0,0,0,0,1/3,0,0,0,0,0,0,0,0,0,0,0 x 44 48 - - 0 0",
            ToMove,
        ),
    ];
    for &(text, field) in cases {
        for rules in [a, Rules::FirstFinal, Rules::Lottery { seed: 9 }, Rules::It] {
            assert_eq!(field_of(text, rules), field, "{rules}: {text}");
        }
    }
    // A huge string is refused as a whole, before any parsing.
    assert_eq!(field_of(&"4,".repeat(10_000), a), Whole);
}

/// The ply field is a u32 and position strings may give any value up to u32::MAX: playing on
/// from there must neither panic (overflow) nor make a position whose string is refused
/// (quiet-plies above ply). The count stays at u32::MAX.
#[test]
fn ply_count_at_its_limit() {
    // The worked example's move, from ply u32::MAX - 1 and from u32::MAX.
    for ply in ["4294967294", "4294967295"] {
        check1(
            Rules::Anywoli,
            &format!("4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 {ply}"),
            'e',
            "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 4294967295",
        );
    }
    // And a game ending there: the last-seed end of `LAST_SEED_END`.
    check1(
        Rules::Anywoli,
        "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,0 s 40 48 n n 3 4294967295",
        'a',
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 s n 0 4294967295",
    );
}

#[test]
fn end_threshold_depends_on_rules() {
    // 8 in play: fine under anywoli, the end already under anywoli-it.
    let eight = "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,0 s 40 48 n n 3 33";
    for rules in [
        Rules::Anywoli,
        Rules::FirstFinal,
        Rules::Lottery { seed: 5 },
    ] {
        assert!(parse_position(eight, rules).is_ok());
    }
    assert_eq!(field_of(eight, Rules::It), Field::Whole);
    // 12 in play is fine under anywoli-it.
    let twelve = "1,3,0,0,0,0,0,0,0,0,0,0/0,0,4,0,0,0,0,0,0,0,0,4 s 40 44 n n 3 33";
    assert!(parse_position(twelve, Rules::It).is_ok());
    let p = parse_position(eight, Rules::Anywoli).unwrap();
    assert_eq!(p.with_rules(Rules::It).unwrap_err().field, Field::Whole);
    assert_eq!(
        p.with_rules(Rules::FirstFinal).unwrap().rules(),
        Rules::FirstFinal
    );
}

#[test]
fn accepted_edge_positions() {
    let a = Rules::Anywoli;
    for text in [
        // all 96 in one hole
        "96,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 s 0 0 - - 0 0",
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,96 n 0 0 - - 0 0",
        // quiet 99, the most a game in progress can have
        "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 s n 99 99",
        // finished games, by the last seeds and by the quiet rule (quiet 100)
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 0 96 - - 0 0",
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 47 49 n s 100 151",
        // the largest ply count, in a game in progress and in a finished one
        "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 4294967295",
        "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 - - 0 4294967295",
        // North to move with South's row empty
        "0,0,0,0,0,0,0,0,0,0,0,0/4,4,0,0,0,0,0,0,0,0,0,0 n 44 44 - - 0 0",
    ] {
        let p = parse_position(text, a).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.to_string(), text);
    }
    // Surrounding whitespace is ignored; leading zeros are read as numbers.
    let p = parse_position(&format!("  {GOOD}\n"), a).unwrap();
    assert_eq!(p, Position::start(a));
    let p = parse_position(
        "04,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 00 0 - - 0 0",
        a,
    )
    .unwrap();
    assert_eq!(p, Position::start(a));
    assert_eq!(GOOD.parse::<Position>().unwrap(), Position::start(a));
}

#[test]
fn from_parts_checks_like_the_parser() {
    let mut holes = [4u8; 24];
    assert!(Position::from_parts(
        holes,
        [0, 0],
        Some(Side::South),
        None,
        None,
        0,
        0,
        Rules::Anywoli
    )
    .is_ok());
    holes[0] = 3;
    let e = Position::from_parts(
        holes,
        [0, 0],
        Some(Side::South),
        None,
        None,
        0,
        0,
        Rules::Anywoli,
    )
    .unwrap_err();
    assert_eq!(e.field, Field::Whole);
    let e = Position::from_parts(
        [4; 24],
        [0, 0],
        Some(Side::South),
        None,
        None,
        3,
        2,
        Rules::Anywoli,
    )
    .unwrap_err();
    assert_eq!(e.field, Field::QuietPlies);
}
