//! Property tests: random games from the start and from random valid positions, in every
//! variant, checked against the invariants of docs/rules.md and against `reference`, a second,
//! deliberately naive implementation of "A move" and "The end" written from the rules alone.

use std::collections::HashSet;

use anywoli_core::trace::{replay, Board};
use anywoli_core::*;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// A second implementation, straight from docs/rules.md

/// A position as plain numbers: sides are 0 (South) and 1 (North).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ref {
    holes: [u32; 24],
    stores: [u32; 2],
    to_move: Option<usize>,
    last: Option<usize>,
    first: Option<usize>,
    quiet: u32,
    ply: u64,
}

fn side_index(s: Side) -> usize {
    match s {
        Side::South => 0,
        Side::North => 1,
    }
}

impl Ref {
    fn of(p: &Position) -> Ref {
        let mut holes = [0; 24];
        for (i, &c) in p.holes().iter().enumerate() {
            holes[i] = c as u32;
        }
        Ref {
            holes,
            stores: [p.store(Side::South) as u32, p.store(Side::North) as u32],
            to_move: p.to_move().map(side_index),
            last: p.last_capturer().map(side_index),
            first: p.first_final_capturer().map(side_index),
            quiet: p.quiet_plies() as u32,
            ply: p.ply() as u64,
        }
    }

    fn row(&self, side: usize) -> u32 {
        self.holes[side * 12..side * 12 + 12].iter().sum()
    }

    fn board(&self) -> u32 {
        self.holes.iter().sum()
    }

    /// The position string of docs/rules.md ("Position strings"), written out again.
    fn string(&self) -> String {
        let c = |s: Option<usize>, none: &str| match s {
            Some(0) => "s".to_string(),
            Some(_) => "n".to_string(),
            None => none.to_string(),
        };
        let row = |r: &[u32]| {
            r.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "{}/{} {} {} {} {} {} {} {}",
            row(&self.holes[..12]),
            row(&self.holes[12..]),
            c(self.to_move, "x"),
            self.stores[0],
            self.stores[1],
            c(self.last, "-"),
            c(self.first, "-"),
            self.quiet,
            self.ply
        )
    }
}

/// Plays the hole `start` for the side to move. `None` when the sowing never ends (rule 4).
fn reference(p: &Ref, rules: Rules, start: usize) -> Option<Ref> {
    let mover = p.to_move.expect("game over");
    assert_eq!(start / 12, mover, "hole of the side to move");
    assert!(p.holes[start] > 0);
    let (threshold, extra) = match rules {
        Rules::It => (8, false),
        _ => (4, true),
    };
    let mut q = p.clone();
    // The end: the seeds in play (hand included) go to one player; `taker` took the four that
    // left them.
    let end = |q: &mut Ref, hand: u32, taker: usize| {
        let to = match rules {
            Rules::Anywoli => taker,
            Rules::FirstFinal => q.first.unwrap_or(taker),
            Rules::Lottery { seed } => side_index(lottery_draw(seed)),
            Rules::It => 0,
        };
        q.stores[to] += q.board() + hand;
        q.holes = [0; 24];
        q.to_move = None;
        q.ply += 1;
        q.quiet = 0;
    };
    // Whose turn after the move, with passes.
    let next_turn = |q: &mut Ref, next: usize| {
        q.to_move = Some(if q.row(next) == 0 { 1 - next } else { next });
    };
    let mut hand = q.holes[start];
    q.holes[start] = 0;
    let mut h = start;
    let mut captured = false;
    let mut laps = 0u32;
    let mut seen = HashSet::new();
    loop {
        while hand > 0 {
            h = (h + 1) % 24;
            hand -= 1;
            q.holes[h] += 1;
            if hand > 0 && q.holes[h] == 4 {
                // Mid-sow four: the owner of the hole takes it.
                let owner = h / 12;
                q.holes[h] = 0;
                q.stores[owner] += 4;
                q.last = Some(owner);
                captured = true;
                if q.board() + hand == threshold {
                    end(&mut q, hand, owner);
                    return Some(q);
                }
            }
        }
        match q.holes[h] {
            4 => {
                // The last seed makes 4: the mover takes them and moves again.
                q.holes[h] = 0;
                q.stores[mover] += 4;
                q.last = Some(mover);
                if q.first.is_none() {
                    q.first = Some(mover);
                }
                if q.board() == threshold {
                    end(&mut q, 0, mover);
                    return Some(q);
                }
                q.ply += 1;
                q.quiet = 0;
                next_turn(&mut q, if extra { mover } else { 1 - mover });
                return Some(q);
            }
            1 => {
                // The last seed in an empty hole: the move ends.
                q.ply += 1;
                if captured {
                    q.quiet = 0;
                } else {
                    q.quiet += 1;
                }
                if q.quiet >= 100 {
                    q.stores[0] += q.row(0);
                    q.stores[1] += q.row(1);
                    q.holes = [0; 24];
                    q.to_move = None;
                } else {
                    next_turn(&mut q, 1 - mover);
                }
                return Some(q);
            }
            _ => {
                // Relay sowing. After many laps, watch for a state seen before (rule 4).
                laps += 1;
                if laps > 200 && !seen.insert((q.holes, h)) {
                    return None;
                }
                hand = q.holes[h];
                q.holes[h] = 0;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Generators

/// Any variant, lotteries of any seed.
pub(crate) fn rules_strategy() -> impl Strategy<Value = Rules> {
    prop_oneof![
        Just(Rules::Anywoli),
        Just(Rules::FirstFinal),
        any::<u64>().prop_map(|seed| Rules::Lottery { seed }),
        Just(Rules::It),
    ]
}

fn side_or_none(n: u8) -> Option<Side> {
    match n % 3 {
        0 => None,
        1 => Some(Side::South),
        _ => Some(Side::North),
    }
}

/// Parts of a random valid position: seeds in play a multiple of 4 above the threshold, spread
/// at random; the rest split at random between the stores; a side to move that has seeds;
/// counters within bounds. About one in ten is a finished game.
#[derive(Clone, Debug)]
struct Parts {
    holes: [u8; 24],
    stores: [u8; 2],
    to_move: Option<Side>,
    last: Option<Side>,
    first: Option<Side>,
    quiet: u16,
    ply: u32,
    rules: Rules,
}

impl Parts {
    fn string(&self) -> String {
        let row = |r: &[u8]| {
            r.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let c = |s: Option<Side>, none: char| s.map_or(none, |s| s.char());
        format!(
            "{}/{} {} {} {} {} {} {} {}",
            row(&self.holes[..12]),
            row(&self.holes[12..]),
            c(self.to_move, 'x'),
            self.stores[0],
            self.stores[1],
            c(self.last, '-'),
            c(self.first, '-'),
            self.quiet,
            self.ply
        )
    }

    fn position(&self) -> Position {
        Position::from_parts(
            self.holes,
            self.stores,
            self.to_move,
            self.last,
            self.first,
            self.quiet,
            self.ply,
            self.rules,
        )
        .unwrap_or_else(|e| panic!("generated {} is refused: {e}", self.string()))
    }
}

#[allow(clippy::type_complexity)]
fn parts_strategy() -> impl Strategy<Value = Parts> {
    (
        rules_strategy(),
        // Seeds in play 4 * (k + 1): half the positions are endings with at most 16.
        prop_oneof![0u8..4, 0u8..24],
        prop::collection::vec(0usize..24, 96),
        // The seeds go into `spread` holes, `stride` apart: few holes give many 3s and 4s.
        (prop_oneof![2usize..8, Just(24)], 0usize..24),
        any::<u8>(),
        any::<bool>(),
        (any::<u8>(), any::<u8>()),
        0u32..3000,
        prop_oneof![0u16..5, 0u16..100],
        0u8..10,
    )
        .prop_map(
            |(rules, k, spots, (spread, offset), split, north, (last, first), ply, quiet, over)| {
                let threshold = rules.end_threshold() as usize;
                let in_play = if over == 0 {
                    0
                } else {
                    (4 * (k as usize + 1)).max(threshold + 4).min(96)
                };
                let mut holes = [0u8; 24];
                for &spot in &spots[..in_play] {
                    holes[(offset + spot % spread * 5) % 24] += 1;
                }
                let rest = 96 - in_play as u32;
                let south_store = (split as u32 * (rest + 1) / 256) as u8;
                let stores = [south_store, rest as u8 - south_store];
                let row = |s: usize| holes[s * 12..s * 12 + 12].iter().sum::<u8>();
                let to_move = if in_play == 0 {
                    None
                } else if (north && row(1) > 0) || row(0) == 0 {
                    Some(Side::North)
                } else {
                    Some(Side::South)
                };
                let quiet_max = if to_move.is_none() { 100 } else { 99 };
                Parts {
                    holes,
                    stores,
                    to_move,
                    last: side_or_none(last),
                    first: side_or_none(first),
                    quiet: quiet.min(quiet_max).min(ply as u16),
                    ply,
                    rules,
                }
            },
        )
}

/// xorshift64*, for choosing moves in long random games.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

fn random_move(p: &Position, rng: &mut Rng) -> Move {
    let moves = p.moves();
    moves.nth(rng.below(moves.len())).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The checks made after every move

fn check_invariants(p: &Position) {
    let rules = p.rules();
    let board: u32 = p.holes().iter().map(|&c| c as u32).sum();
    let stores = p.store(Side::South) as u32 + p.store(Side::North) as u32;
    assert_eq!(board + stores, 96, "{p}");
    assert_eq!(p.seeds_in_play() as u32, board);
    assert_eq!(p.hash(), p.compute_hash(), "{p}");
    assert!(p.quiet_plies() as u32 <= p.ply());
    match p.to_move() {
        Some(side) => {
            assert_eq!(board % 4, 0, "{p}");
            assert!(board > rules.end_threshold() as u32, "{p}");
            assert!(p.quiet_plies() < QUIET_LIMIT);
            assert!(p.row_seeds(side) > 0, "{p}");
            let want: Vec<Move> = Hole::row(side)
                .filter(|h| p.seeds(*h) > 0)
                .map(Move::new)
                .collect();
            assert_eq!(p.moves().collect::<Vec<_>>(), want);
            assert!(p.outcome().is_none());
        }
        None => {
            assert_eq!(board, 0, "{p}");
            assert!(p.moves().is_empty());
            assert!(p.outcome().is_some());
        }
    }
    // The position string: format then parse gives the position back, and the string back.
    let s = p.to_string();
    let q = parse_position(&s, rules).unwrap_or_else(|e| panic!("{s}: {e}"));
    assert_eq!(q, *p);
    assert_eq!(q.to_string(), s);
    assert_eq!(Ref::of(p).string(), s);
}

/// Plays `mv` from `p` every way the crate offers and checks they agree with each other, with
/// the trace replayed on its own, and with `reference`. Returns the position after, or `None`
/// when the sowing never ends.
fn step(p: &Position, mv: Move) -> Option<Position> {
    let before_ref = Ref::of(p);
    let mut fast = *p;
    let fast_result = fast.play_unchecked(mv);
    let mut checked = *p;
    let checked_result = checked.play(mv);
    let traced = p.trace(mv);
    let want = reference(&before_ref, p.rules(), mv.hole().index());
    match fast_result {
        Err(e) => {
            assert_eq!(e, PlayError::NeverEnds { mv }, "{p} {mv}");
            assert_eq!(fast, *p);
            assert_eq!(checked_result, Err(e));
            assert_eq!(checked, *p);
            assert_eq!(traced.unwrap_err(), e);
            assert!(want.is_none(), "{p} {mv}: the reference ends the move");
            None
        }
        Ok(()) => {
            assert_eq!(checked_result, Ok(()));
            assert_eq!(checked, fast);
            let want = want.unwrap_or_else(|| panic!("{p} {mv}: the reference never ends"));
            assert_eq!(fast.to_string(), want.string(), "{p} move {mv}");
            assert_eq!(fast.ply(), p.ply() + 1);
            assert!(fast.store(Side::South) >= p.store(Side::South));
            assert!(fast.store(Side::North) >= p.store(Side::North));
            if p.first_final_capturer().is_some() {
                assert_eq!(fast.first_final_capturer(), p.first_final_capturer());
            }
            let trace = traced.unwrap();
            assert_eq!(trace.after, fast);
            assert_eq!(trace.mv, mv);
            assert_eq!(Some(trace.mover), p.to_move());
            check_trace_shape(p, &trace);
            let mut board = Board::of(p);
            replay(&mut board, trace.mover, &trace.events)
                .unwrap_or_else(|e| panic!("{p} {mv}: {e}"));
            assert_eq!(board.holes, *fast.holes(), "{p} {mv}");
            assert_eq!(
                board.stores,
                [fast.store(Side::South), fast.store(Side::North)]
            );
            assert_eq!(board.to_move, fast.to_move());
            assert_eq!(board.hand, 0);
            check_invariants(&fast);
            Some(fast)
        }
    }
}

/// How a move's events end (docs/trace.md): a name for each allowed tail.
fn trace_tail(events: &[Event]) -> &'static str {
    use CaptureKind::*;
    let last_seed = |e: &Event| matches!(e, Event::Capture { kind: LastSeed, .. });
    let mid_sow = |e: &Event| matches!(e, Event::Capture { kind: MidSow, .. });
    let over_last = |e: &Event| {
        matches!(
            e,
            Event::GameOver {
                reason: EndReason::LastSeeds { .. }
            }
        )
    };
    let over_quiet = |e: &Event| {
        matches!(
            e,
            Event::GameOver {
                reason: EndReason::Quiet { .. }
            }
        )
    };
    let extra = |e: &Event| matches!(e, Event::ExtraMove { .. });
    let pass = |e: &Event| matches!(e, Event::Pass { .. });
    let stop = |e: &Event| matches!(e, Event::Stop { .. });
    match events {
        [.., a, b, c] if last_seed(a) && extra(b) && pass(c) => {
            "last-seed capture, extra move, pass"
        }
        [.., a, b] if last_seed(a) && extra(b) => "last-seed capture, extra move",
        [.., a, b] if last_seed(a) && pass(b) => "last-seed capture, pass",
        [.., a, b] if last_seed(a) && over_last(b) => "last-seed capture, end",
        [.., a, b] if mid_sow(a) && over_last(b) => "mid-sow capture, end",
        [.., a, b] if stop(a) && pass(b) => "stop, pass",
        [.., a, b] if stop(a) && over_quiet(b) => "stop, quiet end",
        [.., a] if stop(a) => "stop",
        [.., a] if last_seed(a) => "last-seed capture",
        _ => "bad",
    }
}

/// The events of a move follow docs/trace.md: laps numbered from 1, each sowing the seeds it
/// took up, captures right after the seed that made 4, one of the allowed endings.
fn check_trace_shape(p: &Position, trace: &Trace) {
    let ev = &trace.events;
    let rules = p.rules();
    assert_eq!(
        ev.first(),
        Some(&Event::Lap {
            lap: 1,
            hole: trace.mv.hole(),
            seeds: p.seeds(trace.mv.hole())
        })
    );
    let tail = trace_tail(ev);
    assert_ne!(tail, "bad", "{p} {}: {ev:?}", trace.mv);
    if rules == Rules::It {
        assert!(!tail.contains("extra"), "{p} {}", trace.mv);
    } else {
        assert!(tail != "last-seed capture" && tail != "last-seed capture, pass");
    }
    let mut lap = 0;
    let mut hand = 0;
    let mut last_hole = trace.mv.hole();
    for (i, e) in ev.iter().enumerate() {
        match *e {
            Event::Lap {
                lap: n,
                hole,
                seeds,
            } => {
                assert_eq!(hand, 0);
                assert_eq!(n, lap + 1);
                assert_eq!(hole, last_hole, "a relay starts where the last lap ended");
                assert!(seeds > 0);
                lap = n;
                hand = seeds;
            }
            Event::Sow { hole, count } => {
                assert!(hand > 0);
                assert_eq!(hole, last_hole.next());
                assert!(count > 0);
                last_hole = hole;
                hand -= 1;
            }
            Event::Capture { hole, kind, .. } => {
                assert_eq!(hole, last_hole);
                assert_eq!(ev[i - 1], Event::Sow { hole, count: 4 });
                assert_eq!(kind == CaptureKind::LastSeed, hand == 0);
            }
            Event::Stop { hole } => {
                assert_eq!(hole, last_hole);
                assert_eq!(ev[i - 1], Event::Sow { hole, count: 1 });
                assert_eq!(hand, 0);
            }
            Event::ExtraMove { side } | Event::Pass { side } => {
                assert!(i + 3 >= ev.len());
                let _ = side;
            }
            Event::GameOver { .. } => assert_eq!(i + 1, ev.len()),
        }
    }
}

/// A random game from `p` until it ends or `max_plies` plies; every move checked with `step`,
/// and every other move of the position checked too when `all_moves` is set.
fn random_game(mut p: Position, seed: u64, max_plies: usize, all_moves: bool) -> Vec<Move> {
    check_invariants(&p);
    let mut rng = Rng::new(seed);
    let mut played = Vec::new();
    let mut refused = 0;
    while !p.is_over() && played.len() < max_plies && refused < 100 {
        if all_moves {
            for m in p.moves() {
                step(&p, m);
            }
        }
        let mv = random_move(&p, &mut rng);
        match step(&p, mv) {
            Some(q) => {
                played.push(mv);
                p = q;
                refused = 0;
            }
            // A sowing that never ends (none is known): try another move.
            None => refused += 1,
        }
    }
    played
}

// ---------------------------------------------------------------------------------------------
// The properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whole games from the start, every move checked against the reference.
    #[test]
    fn games_from_start(rules in rules_strategy(), seed in any::<u64>()) {
        let moves = random_game(Position::start(rules), seed, 100_000, false);
        let mut p = Position::start(rules);
        for &m in &moves {
            p.play(m).unwrap();
        }
        prop_assert!(p.is_over(), "a game ends (quiet rule)");
    }

    /// Game starts where every legal move of every position is checked.
    #[test]
    fn openings_all_moves(rules in rules_strategy(), seed in any::<u64>()) {
        random_game(Position::start(rules), seed, 40, true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Games from random valid positions, all moves of the first positions checked.
    #[test]
    fn games_from_random_positions(parts in parts_strategy(), seed in any::<u64>()) {
        let p = parts.position();
        random_game(p, seed, 8, true);
        random_game(p, seed ^ 0x5555, 3000, false);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The parser reads a string written independently of the formatter, and each way round is
    /// the identity.
    #[test]
    fn position_strings_round_trip(parts in parts_strategy()) {
        let text = parts.string();
        let p = parse_position(&text, parts.rules).unwrap();
        prop_assert_eq!(p, parts.position());
        prop_assert_eq!(p.to_string(), text.clone());
        prop_assert_eq!(parse_position(&p.to_string(), parts.rules).unwrap(), p);
        prop_assert_eq!(p.holes(), &parts.holes);
        prop_assert_eq!(p.to_move(), parts.to_move);
        prop_assert_eq!(p.last_capturer(), parts.last);
        prop_assert_eq!(p.first_final_capturer(), parts.first);
        prop_assert_eq!(p.quiet_plies(), parts.quiet);
        prop_assert_eq!(p.ply(), parts.ply);
        check_invariants(&p);
    }

    /// Mangled position strings are either refused or read as a valid position that formats
    /// back to a string that reads the same; never a panic.
    #[test]
    fn mangled_position_strings(
        parts in parts_strategy(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::char::any()), 1..4),
    ) {
        let mut chars: Vec<char> = parts.string().chars().collect();
        for (i, c) in edits {
            let i = i.index(chars.len());
            match c as u32 % 3 {
                0 => chars[i] = c,
                1 => { chars.remove(i); }
                _ => chars.insert(i, "0123456789,/ snx-"
                    .chars()
                    .nth(c as usize % 17)
                    .unwrap()),
            }
            if chars.is_empty() {
                break;
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok(p) = parse_position(&text, parts.rules) {
            check_invariants(&p);
        }
    }

    /// Every refused position says which field is wrong in its message.
    #[test]
    fn refusals_name_a_field(parts in parts_strategy(), bump in 0usize..24) {
        let mut holes = parts.holes;
        holes[bump] += 1;
        let e = Position::from_parts(holes, parts.stores, parts.to_move, parts.last,
            parts.first, parts.quiet, parts.ply, parts.rules).unwrap_err();
        prop_assert_eq!(e.field, Field::Whole);
        prop_assert!(e.to_string().contains(e.field.name()));
    }

    /// Records written and read back are the same record.
    #[test]
    fn records_round_trip(
        parts in parts_strategy(),
        from_start in any::<bool>(),
        seed in any::<u64>(),
        plies in 0usize..300,
        tags in prop::collection::vec(("[A-Za-z_][A-Za-z0-9_]{0,8}", "[^\r\n]{0,20}"), 0..4),
        result in 0usize..4,
    ) {
        let start = if from_start { Position::start(parts.rules) } else { parts.position() };
        // Plain random play: the moves themselves are checked by the properties above.
        let mut rng = Rng::new(seed);
        let mut p = start;
        let mut moves = Vec::new();
        while !p.is_over() && moves.len() < plies {
            let mv = random_move(&p, &mut rng);
            if p.play(mv).is_ok() {
                moves.push(mv);
            }
        }
        let mut rec = Record::new(start);
        rec.moves = moves;
        for (k, v) in &tags {
            if !["Rules", "Seed", "Position", "Result"].contains(&k.as_str()) {
                rec.set_tag(k, v);
            }
        }
        if result == 0 {
            rec.set_result_from_play();
        } else {
            rec.result = anywoli_core::record::RESULTS[result].to_string();
        }
        let text = rec.to_string();
        let back = Record::parse(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
        prop_assert_eq!(&back, &rec);
        prop_assert_eq!(back.to_string(), text.clone());
        prop_assert_eq!(back.end().unwrap(), {
            let mut p = start;
            for &m in &rec.moves { p.play(m).unwrap(); }
            p
        });
        for line in text.lines() {
            prop_assert!(line.len() <= 80 || line.starts_with('['), "{}", line);
        }
        // Two records in one text are read as two games.
        let two = format!("{text}\n{text}");
        let games = anywoli_core::record::parse_all(&two).unwrap();
        prop_assert_eq!(games.len(), 2);
        prop_assert_eq!(&games[0], &rec);
        prop_assert_eq!(&games[1], &rec);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// perft(d) is the sum of divide(d), and perft(1) counts the legal moves; perft agrees with
    /// a count made with the reference implementation.
    #[test]
    fn perft_is_sum_of_divide(parts in parts_strategy(), depth in 1u32..4) {
        let p = parts.position();
        let div = divide(&p, depth);
        prop_assert_eq!(perft(&p, depth), div.iter().map(|(_, n)| n).sum::<u64>());
        prop_assert_eq!(perft(&p, 1), p.moves().len() as u64);
        prop_assert_eq!(div.iter().map(|(m, _)| *m).collect::<Vec<_>>(), p.moves().collect::<Vec<_>>());
        prop_assert_eq!(perft(&p, depth), reference_perft(&Ref::of(&p), p.rules(), depth));
        prop_assert_eq!(perft(&p, 0), 1);
        prop_assert!(divide(&p, 0).is_empty());
    }
}

fn reference_perft(p: &Ref, rules: Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some(side) = p.to_move else { return 0 };
    let mut n = 0;
    for h in side * 12..side * 12 + 12 {
        if p.holes[h] > 0 {
            if let Some(q) = reference(p, rules, h) {
                n += reference_perft(&q, rules, depth - 1);
            }
        }
    }
    n
}

#[test]
fn reference_agrees_on_start_perft() {
    let p = Ref::of(&Position::start(Rules::Anywoli));
    let got: Vec<u64> = (1..=3)
        .map(|d| reference_perft(&p, Rules::Anywoli, d))
        .collect();
    assert_eq!(got, [12, 116, 1214]);
}

/// The random games above reach every way a move can end, in every variant, so the checks
/// made on them are not empty.
#[test]
fn random_games_reach_every_kind_of_move() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;
    let mut runner = TestRunner::deterministic();
    let mut seen: BTreeMap<(&'static str, &'static str), usize> = BTreeMap::new();
    let mut rng = Rng::new(7);
    let mut last_four_not_to_taker = [0usize; 4];
    for _ in 0..1500 {
        let parts = parts_strategy().new_tree(&mut runner).unwrap().current();
        let mut p = parts.position();
        let kind = match p.rules() {
            Rules::Anywoli => 0,
            Rules::FirstFinal => 1,
            Rules::Lottery { .. } => 2,
            Rules::It => 3,
        };
        let mut plies = 0;
        while !p.is_over() && plies < 400 {
            let mv = random_move(&p, &mut rng);
            let t = p.play_traced(mv).unwrap();
            *seen
                .entry((p.rules().name(), trace_tail(&t.events)))
                .or_default() += 1;
            if let Some(Event::GameOver {
                reason: EndReason::LastSeeds { to, .. },
            }) = t.events.last()
            {
                if Some(*to) != t.after.last_capturer() {
                    last_four_not_to_taker[kind] += 1;
                }
            }
            p = t.after;
            plies += 1;
        }
    }
    let all = [
        "last-seed capture, extra move, pass",
        "last-seed capture, extra move",
        "last-seed capture, end",
        "mid-sow capture, end",
        "stop, pass",
        "stop, quiet end",
        "stop",
    ];
    // ("last-seed capture, pass" is too rare in anywoli-it to ask for here; a hand-checked
    // position in tests/rules.rs has it.)
    let it = [
        "last-seed capture",
        "last-seed capture, end",
        "mid-sow capture, end",
        "stop, pass",
        "stop, quiet end",
        "stop",
    ];
    // The rarest two are asked of the three variants together (they share that code).
    let rare = [
        "last-seed capture, extra move, pass",
        "mid-sow capture, end",
    ];
    let extra_variants = ["anywoli", "anywoli-first-final", "anywoli-lottery"];
    for rules in extra_variants {
        for tail in all.iter().filter(|t| !rare.contains(t)) {
            assert!(
                seen.contains_key(&(rules, *tail)),
                "{rules}: no {tail}: {seen:?}"
            );
        }
    }
    for tail in rare {
        assert!(
            extra_variants
                .iter()
                .any(|r| seen.contains_key(&(*r, tail))),
            "no {tail}: {seen:?}"
        );
    }
    for tail in it {
        assert!(
            seen.contains_key(&("anywoli-it", tail)),
            "anywoli-it: no {tail}: {seen:?}"
        );
    }
    assert_eq!(
        last_four_not_to_taker[0], 0,
        "anywoli: the last 4 go to the taker"
    );
    assert!(
        last_four_not_to_taker[1] > 0,
        "first-final games where it matters"
    );
    assert!(
        last_four_not_to_taker[2] > 0,
        "lottery games where it matters"
    );
    assert!(
        last_four_not_to_taker[3] > 0,
        "anywoli-it games where it matters"
    );
}
