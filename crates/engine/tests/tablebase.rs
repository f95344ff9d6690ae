//! The 8-seed database, built once for this file (about 10 s with the test profile's
//! optimisation), checked against the rules: its figures, its own verifier, the quiet counter
//! near its end, the engine's use of it, and the exact solver against plain exhaustive search.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use anywoli_core::{Position, Rules, Side, XorShift, QUIET_LIMIT};
use anywoli_engine::endgame::{
    self, positions, rank, turned, unrank, Solver, Table, Tablebase, Verdict, INVALID, LOSS_BIT,
};
use anywoli_engine::{Engine, Limits};

fn table() -> &'static Arc<Tablebase> {
    static TB: OnceLock<Arc<Tablebase>> = OnceLock::new();
    TB.get_or_init(|| {
        let t = endgame::build(8, 2, &|_, _, _| {}).expect("the 8-seed database builds");
        Arc::new(Tablebase::from_tables(vec![t]))
    })
}

pub(crate) fn eight() -> &'static Table {
    table().table(8).unwrap()
}

/// A position with these holes, `side` to move, 44 seeds in each store.
fn pos(holes: [u8; 24], side: Side, quiet: u16, rules: Rules, ff: Option<Side>) -> Position {
    try_pos(holes, side, quiet, rules, ff).unwrap()
}

/// [`pos`], or `None` when those parts are not a position (e.g. `side` has no seeds).
fn try_pos(
    holes: [u8; 24],
    side: Side,
    quiet: u16,
    rules: Rules,
    ff: Option<Side>,
) -> Option<Position> {
    Position::from_parts(
        holes,
        [44, 44],
        Some(side),
        None,
        ff,
        quiet,
        quiet as u32,
        rules,
    )
    .ok()
}

/// Best final store difference for `me` by plain minimax to the end of the game.
fn exhaustive(p: &Position, me: Side) -> i32 {
    let Some(to_move) = p.to_move() else {
        return p.store(me) as i32 - p.store(me.opponent()) as i32;
    };
    let vals = p.moves().filter_map(|m| {
        let mut c = *p;
        c.play_unchecked(m).ok()?;
        Some(exhaustive(&c, me))
    });
    if to_move == me {
        vals.max().unwrap()
    } else {
        vals.min().unwrap()
    }
}

/// The first index (South to move) whose entry is `e`.
fn find(e: u16) -> [u8; 24] {
    let t = eight();
    let i = (0..positions(8)).find(|&i| t.entry_at(i) == e).unwrap();
    unrank(i, 8)
}

#[test]
fn figures_of_the_8_seed_database() {
    let s = eight().stats();
    assert_eq!(s.positions, 7_888_725);
    // South to move with an empty row is not a position: C(19, 7) distributions.
    assert_eq!(s.invalid, 75_582);
    assert_eq!(s.wins, 3_899_061);
    assert_eq!(s.losses, 3_914_082);
    // Every 8-seed position has a forced capture.
    assert_eq!(s.unforced, 0);
    assert_eq!(s.stuck, 0);
    assert_eq!(s.longest, 104);
    assert_eq!(s.longer_than(100), 178);
    assert_eq!(s.by_dtc[1], [231_225, 1_301]);
    // Without a hole of 4 (which play never makes), no forced capture needs over 100 plies.
    assert_eq!(s.playable, 7_466_565);
    assert_eq!(s.longest_playable, 93);
    assert_eq!(s.playable_over_quiet_limit, 0);
}

#[test]
fn the_verifier_accepts_the_database_and_finds_a_wrong_entry() {
    let t = eight();
    let stats = endgame::verify(t, 2, &|_, _, _| {}).unwrap();
    assert_eq!(stats, t.stats());

    // Save, damage one entry on disk, and both the loader and the verifier object.
    let dir = std::env::temp_dir().join(format!("anywoli-tb-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(Table::file_name(8));
    t.save(&path).unwrap();
    let back = Table::load(&path).unwrap();
    assert_eq!(back.stats(), t.stats());
    let mut bytes = std::fs::read(&path).unwrap();
    let i = 32 + 2 * 1_000_000;
    bytes[i] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let err = Table::load(&path).err().unwrap().to_string();
    assert!(err.contains("checksum"), "{err}");
    bytes.truncate(1000);
    std::fs::write(&path, &bytes).unwrap();
    assert!(Table::load(&path)
        .err()
        .unwrap()
        .to_string()
        .contains("shorter"));
    std::fs::remove_dir_all(&dir).unwrap();

    // A table whose entry was changed (but with a right checksum) fails the verifier.
    let mut data: Vec<u16> = (0..positions(8)).map(|i| t.entry_at(i)).collect();
    let k = data.iter().position(|&e| e == 7).unwrap();
    data[k] = 9;
    let bad = Table::from_entries(8, data).unwrap();
    let err = endgame::verify(&bad, 2, &|_, _, _| {}).unwrap_err();
    assert!(err.to_string().contains("disagrees"), "{err}");
}

#[test]
fn entries_agree_with_the_rules_on_sampled_positions() {
    // A win in 1 has a capture for the mover; a loss in 1 has every move give one away.
    let t = eight();
    let mut rng = XorShift::new(0x1234_5678_9abc_def0);
    let mut checked = 0;
    while checked < 2000 {
        let i = rng.below(positions(8));
        let e = t.entry_at(i);
        if e == INVALID {
            continue;
        }
        let p = pos(unrank(i, 8), Side::South, 0, Rules::Anywoli, None);
        // The same position with North to move, turned round, has the same entry.
        let north = pos(turned(&unrank(i, 8)), Side::North, 0, Rules::Anywoli, None);
        assert_eq!(t.entry(&north), Some(e));
        let captures: Vec<Side> = p
            .moves()
            .filter_map(|m| {
                let mut c = p;
                c.play(m).ok()?;
                c.is_over().then(|| c.last_capturer().unwrap())
            })
            .collect();
        if e == 1 {
            assert!(captures.contains(&Side::South), "{p}");
        } else {
            assert!(!captures.contains(&Side::South), "{p}");
        }
        if e == LOSS_BIT | 1 {
            assert_eq!(captures.len(), p.moves().len(), "{p}");
        }
        checked += 1;
    }
}

#[test]
fn the_quiet_counter_decides_whether_a_forced_capture_counts() {
    let tb = table();
    // South wins in 5 plies: proven with 5 quiet plies left (quiet 95), not with 4.
    let h = find(5);
    let p95 = pos(h, Side::South, 95, Rules::Anywoli, None);
    let probe = tb.probe(&p95).unwrap();
    assert_eq!(
        (probe.verdict, probe.dtc, probe.in_time),
        (Verdict::Win, 5, true)
    );
    assert_eq!(probe.value, Some(8));
    let p96 = pos(h, Side::South, 96, Rules::Anywoli, None);
    let probe = tb.probe(&p96).unwrap();
    assert_eq!(
        (probe.verdict, probe.in_time, probe.value),
        (Verdict::Win, false, None)
    );
    for p in [p95, p96] {
        let mut solver = Solver::new(Some(tb), 10_000_000);
        let s = solver.solve(&p).unwrap();
        assert_eq!(s.margin, exhaustive(&p, Side::South), "{p}");
    }
    assert_eq!(Solver::new(Some(tb), 1 << 30).value(&p95).unwrap(), 8);

    // At quiet 99 only a capture on this very ply counts: a win in 1 is still a win ...
    let p = pos(find(1), Side::South, 99, Rules::Anywoli, None);
    assert_eq!(tb.probe(&p).unwrap().value, Some(8));
    // ... a win in 2 is not (the quiet rule ends the game first), and a loss in 2 is not lost.
    for e in [2, LOSS_BIT | 2] {
        let p = pos(find(e), Side::South, 99, Rules::Anywoli, None);
        let probe = tb.probe(&p).unwrap();
        assert!(!probe.in_time && probe.value.is_none(), "{p}");
        let mut solver = Solver::new(Some(tb), 1_000_000);
        let s = solver.solve(&p).unwrap();
        let want = exhaustive(&p, Side::South);
        assert_eq!(s.margin, want, "{p}");
        // The engine searches such a position instead of trusting the database.
        let mut engine = Engine::new(4, 1);
        engine.set_tablebase(Some(tb.clone()));
        let stop = AtomicBool::new(false);
        let r = engine.search(&p, &Limits::depth(3), &stop, &mut |_| {});
        assert_eq!(r.score, want * 100, "{p}");
    }
}

#[test]
fn first_final_and_lottery_give_the_last_four_by_their_rules() {
    let tb = table();
    let h = find(3);
    // The mover forces the next capture; it also gets the last 4 unless they are promised to
    // the other side (first-final capturer North, or a lottery drawn for North).
    let p = pos(h, Side::South, 0, Rules::FirstFinal, None);
    assert_eq!(tb.probe(&p).unwrap().value, Some(8));
    let p = pos(h, Side::South, 0, Rules::FirstFinal, Some(Side::South));
    assert_eq!(tb.probe(&p).unwrap().value, Some(8));
    let p = pos(h, Side::South, 0, Rules::FirstFinal, Some(Side::North));
    let probe = tb.probe(&p).unwrap();
    assert_eq!((probe.value, probe.lower), (None, Some(0)));
    let north_seed = (0..)
        .find(|&s| anywoli_core::lottery_draw(s) == Side::North)
        .unwrap();
    let p = pos(h, Side::South, 0, Rules::Lottery { seed: north_seed }, None);
    assert_eq!(tb.probe(&p).unwrap().lower, Some(0));
    // anywoli-it ends at 8 in play: the database has nothing to say.
    assert!(Rules::It.end_threshold() == 8);
}

/// `solve` against plain exhaustive search on 1,000 random 8-seed positions whose quiet
/// counter leaves at most 7 plies (so exhaustive search is small), in the three rules the
/// database serves.
#[test]
fn solve_agrees_with_exhaustive_search_on_1000_small_positions() {
    let tb = table();
    let solver_rules: Vec<(Rules, Option<Side>)> = vec![
        (Rules::Anywoli, None),
        (Rules::FirstFinal, None),
        (Rules::FirstFinal, Some(Side::South)),
        (Rules::FirstFinal, Some(Side::North)),
        (Rules::Lottery { seed: 1 }, None),
        (Rules::Lottery { seed: 2 }, None),
    ];
    let mut rng = XorShift::new(0x9e37_79b9_7f4a_7c15);
    let mut next = || rng.next();
    let mut done = 0;
    let mut proven_by_tb = 0;
    while done < 1000 {
        let holes = unrank(next() % positions(8), 8);
        let side = if next() % 2 == 0 {
            Side::South
        } else {
            Side::North
        };
        let row = &holes[side.index() * 12..side.index() * 12 + 12];
        if row.iter().all(|&c| c == 0) {
            continue;
        }
        let (rules, ff) = solver_rules[done % solver_rules.len()];
        let quiet = QUIET_LIMIT - 1 - (next() % 7) as u16;
        let p = pos(holes, side, quiet, rules, ff);
        if tb.probe(&p).is_some_and(|pr| pr.value.is_some()) {
            proven_by_tb += 1;
        }
        let mut solver = Solver::new(Some(tb), 10_000_000);
        let s = solver.solve(&p).unwrap();
        assert_eq!(s.margin, exhaustive(&p, side), "{p} ({rules})");
        // Each move's value too, and the line plays out to that result.
        for (m, v) in &s.moves {
            let mut c = p;
            c.play(*m).unwrap();
            let stores = p.store(side) as i32 - p.store(side.opponent()) as i32;
            assert_eq!(stores + v, exhaustive(&c, side), "{p} move {m}");
        }
        let mut end = p;
        for m in &s.line {
            end.play(*m).unwrap();
        }
        assert!(end.is_over(), "{p}: the line does not end the game");
        assert_eq!(
            end.store(side) as i32 - end.store(side.opponent()) as i32,
            s.margin,
            "{p}: the line does not reach the proven result"
        );
        done += 1;
    }
    // Both kinds were exercised: settled by the database, and searched under the quiet rule.
    assert!(proven_by_tb > 20 && proven_by_tb < 980, "{proven_by_tb}");
}

#[test]
fn the_engine_plays_proven_endings_perfectly() {
    let tb = table();
    let mut engine = Engine::new(4, 1);
    engine.set_tablebase(Some(tb.clone()));
    let stop = AtomicBool::new(false);
    // A long win for South from quiet 0: the engine (both sides) plays it out, and the capture
    // comes exactly when the database says.
    let t = eight();
    let i = (0..positions(8)).find(|&i| t.entry_at(i) == 60).unwrap();
    let start = pos(unrank(i, 8), Side::South, 0, Rules::Anywoli, None);
    let r = engine.search(&start, &Limits::depth(4), &stop, &mut |_| {});
    assert_eq!(r.score, 800);
    let mut p = start;
    let mut plies = 0;
    while !p.is_over() {
        let r = engine.search(&p, &Limits::depth(2), &stop, &mut |_| {});
        p.play(r.best.unwrap()).unwrap();
        plies += 1;
    }
    assert_eq!(plies, 60);
    assert_eq!((p.store(Side::South), p.store(Side::North)), (52, 44));

    // Without the database, a depth-4 search does not see the capture 60 plies away.
    let plain = Engine::new(4, 1);
    let r = plain.search(&start, &Limits::depth(4), &stop, &mut |_| {});
    assert_ne!(r.score, 800);
    assert_eq!(rank(start.holes(), 8), i);
}

/// Without databases the solver proves the same results by deepening search alone.
#[test]
fn solve_without_databases_agrees_with_exhaustive_search() {
    let mut rng = XorShift::new(0x2545_f491_4f6c_dd1d);
    let mut done = 0;
    while done < 200 {
        let x = rng.next();
        let holes = unrank(x % positions(8), 8);
        if holes[..12].iter().all(|&c| c == 0) {
            continue;
        }
        let quiet = QUIET_LIMIT - 1 - (x >> 40) as u16 % 6;
        let p = pos(holes, Side::South, quiet, Rules::Anywoli, None);
        let s = Solver::searching(None, 10_000_000).solve(&p).unwrap();
        assert_eq!(s.margin, exhaustive(&p, Side::South), "{p}");
        assert!(s.unproven_moves.is_empty());
        done += 1;
    }
}

#[test]
fn a_solver_out_of_nodes_says_so_with_what_it_proved() {
    // A 12-seed position far from its end: 1,000 nodes prove nothing exact.
    let p = Position::from_parts(
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 7,
        ],
        [40, 44],
        Some(Side::South),
        None,
        None,
        0,
        90,
        Rules::Anywoli,
    )
    .unwrap();
    let e = Solver::new(Some(table()), 1000).solve(&p).unwrap_err();
    assert_eq!(e.nodes, 1000);
    assert!(-12 <= e.lower && e.lower <= e.upper && e.upper <= 12, "{e}");
    assert!(e.to_string().contains("cannot prove"));
}

#[test]
fn the_committed_puzzles_are_what_the_database_says() {
    use anywoli_engine::puzzles::{self, Judgement};
    let tb = table();
    let all = puzzles::all();
    assert!(all.len() >= 100);
    for pz in all {
        let again = puzzles::puzzle_of(tb, &pz.position).expect("still a puzzle");
        assert_eq!(
            (again.line.clone(), again.grade),
            (pz.line.clone(), pz.grade),
            "{}",
            pz.id
        );
        // Playing the line wins 52-44 with South's capture at its end.
        let mut p = pz.position;
        for m in &pz.line {
            p.play(*m).unwrap();
        }
        assert_eq!((p.store(Side::South), p.store(Side::North)), (52, 44));
        assert_eq!(p.last_capturer(), Some(Side::South));
    }
    // Judging an attempt: the first move right, a wrong one, an illegal one.
    let pz = all.iter().find(|p| p.plies >= 5).unwrap();
    let first = pz.line[0];
    match pz.judge(&[first]) {
        Judgement::Right { replies } => assert_eq!(replies[..], pz.line[1..1 + replies.len()]),
        j => panic!("{j:?}"),
    }
    let wrong = pz.position.moves().find(|&m| m != first);
    if let Some(w) = wrong {
        assert_eq!(pz.judge(&[w]), Judgement::Wrong { expected: first });
    }
    assert!(matches!(pz.judge(&pz.line[..]), Judgement::Solved { .. }));
    let north_move: anywoli_core::Move = "A".parse().unwrap();
    assert!(matches!(pz.judge(&[north_move]), Judgement::Illegal(_)));
    assert!(matches!(pz.judge(&[]), Judgement::Invalid(_)));
    // The daily puzzle goes round the collection.
    let d = puzzles::day_of("2026-11-30").unwrap();
    assert_eq!(d, 20_787);
    assert_ne!(puzzles::daily(d).id, puzzles::daily(d + 1).id);
    assert_eq!(
        puzzles::daily(d).id,
        puzzles::daily(d + all.len() as i64).id
    );
    assert_eq!(puzzles::day_of("1970-01-01"), Some(0));
    assert_eq!(puzzles::day_of("2026-13-01"), None);
}

/// The builder with generated predecessors (the one for 12 seeds) gives the 8-seed database
/// entry for entry, distances included, on one thread and on three (which share out both the
/// scan for a wave's positions and the writing of their predecessors, in unequal parts).
#[test]
fn the_unmove_builder_agrees_with_the_move_graph_builder() {
    let t = eight();
    for threads in [1, 3] {
        let solved =
            endgame::retro::solve(&endgame::retro::eight(), threads, &|_, _, _| {}).unwrap();
        assert_eq!(solved.thresholds, 1);
        let differ = (0..positions(8))
            .filter(|&i| solved.status(i as usize, 0) != t.entry_at(i))
            .count();
        assert_eq!(differ, 0, "{threads} threads");
    }
    // The wide packings of the 16- and 20-seed layers (4 and 5 thresholds in 3 and 4 cells,
    // 12-bit fields), each field the 8-seed table.
    for k in [4, 5] {
        let solved = endgame::retro::solve(&endgame::retro::eight_as(k), 2, &|_, _, _| {}).unwrap();
        assert_eq!(solved.packing().cells, k - 1);
        let differ = (0..positions(8))
            .filter(|&i| (0..k).any(|j| solved.status(i as usize, j) != t.entry_at(i)))
            .count();
        assert_eq!(differ, 0, "{k} thresholds");
    }
}

/// A fresh folder for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("anywoli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The compact file (`.awtbz`) holds the table it was made from: every entry is the same, read
/// through its memory map or whole; `Tablebase::open` prefers it; and probes through the map
/// answer the same under every rule, side to move and quiet count.
#[test]
fn the_compact_file_holds_every_entry_of_the_table() {
    let t = eight();
    let dir = scratch("tbz-entries");
    let path = dir.join(Table::compact_file_name(8));
    let size = t.save_compact(&path, 2).unwrap();
    assert_eq!(size, std::fs::metadata(&path).unwrap().len());
    // Far smaller than the 15.8 MB of 16-bit entries.
    assert!(size < 4_000_000, "{size} bytes");

    let c = Table::open_compact(&path).unwrap();
    assert!(c.is_compact());
    assert_eq!((c.seeds(), c.len()), (8, t.len()));
    let differ = (0..positions(8))
        .filter(|&i| c.entry_at(i) != t.entry_at(i))
        .count();
    assert_eq!(differ, 0);
    assert_eq!(c.stats(), t.stats());
    let whole = Table::load(&path).unwrap();
    assert!(!whole.is_compact());
    assert!((0..positions(8)).all(|i| whole.entry_at(i) == t.entry_at(i)));

    // The plain file read through its map (as 16 and 20 seeds are), and compacted from the
    // map a batch of blocks at a time: the same entries, the same compact file.
    let plain = dir.join("mapped.awtb");
    t.save(&plain).unwrap();
    let mapped = Table::map_plain(&plain).unwrap();
    assert!(mapped.is_mapped() && !mapped.is_compact());
    assert!((0..positions(8)).all(|i| mapped.entry_at(i) == t.entry_at(i)));
    let again = dir.join("again.awtbz");
    assert_eq!(mapped.save_compact(&again, 3).unwrap(), size);
    assert!(std::fs::read(&again).unwrap() == std::fs::read(&path).unwrap());
    // A mapped file's header and size are checked when it is opened.
    let mut cut = std::fs::read(&plain).unwrap();
    cut.pop();
    std::fs::write(&plain, &cut).unwrap();
    let err = Table::map_plain(&plain).err().unwrap().to_string();
    assert!(err.contains("shorter than its header says"), "{err}");

    // With both files in the folder, the compact one is used (decompressed into memory: the
    // 8-seed table is small).
    t.save(&dir.join(Table::file_name(8))).unwrap();
    std::fs::write(dir.join(Table::file_name(8)), b"not read").unwrap();
    let opened = Tablebase::open(&dir).unwrap();
    assert!(!opened.table(8).unwrap().is_compact());
    assert!((0..positions(8)).all(|i| opened.table(8).unwrap().entry_at(i) == t.entry_at(i)));
    // Probes through the mapped file.
    let tb = Tablebase::from_tables(vec![Table::open_compact(&path).unwrap()]);
    assert!(tb.table(8).unwrap().is_compact());
    let rules = [
        (Rules::Anywoli, None),
        (Rules::FirstFinal, None),
        (Rules::FirstFinal, Some(Side::South)),
        (Rules::FirstFinal, Some(Side::North)),
        (Rules::Lottery { seed: 1 }, None),
    ];
    let mut probed = 0;
    for idx in (0..positions(8)).step_by(613) {
        let holes = unrank(idx, 8);
        for side in [Side::South, Side::North] {
            for quiet in [0u16, 60, 99] {
                for (r, ff) in rules {
                    let Some(p) = try_pos(holes, side, quiet, r, ff) else {
                        continue;
                    };
                    assert_eq!(tb.probe(&p), table().probe(&p), "{p}");
                    probed += 1;
                }
            }
        }
    }
    assert!(probed > 100_000, "{probed}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A damaged compact file is refused with what is wrong: its header or index when it is
/// opened, a block when that block is read (a probe there answers nothing rather than
/// something wrong), and anything when it is read whole.
#[test]
fn a_damaged_compact_file_is_refused() {
    let t = eight();
    let dir = scratch("tbz-damage");
    let path = dir.join(Table::compact_file_name(8));
    t.save_compact(&path, 2).unwrap();
    let good = std::fs::read(&path).unwrap();
    let refused = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        Table::open_compact(&path)
            .err()
            .expect("refused")
            .to_string()
    };

    let mut b = good.clone();
    b[64 + 8 * 100] ^= 1;
    let err = refused(&b);
    assert!(
        err.contains("checksum mismatch in its header or index"),
        "{err}"
    );
    let mut b = good.clone();
    b[20] ^= 1;
    assert!(refused(&b).contains("wrong number of entries"));
    assert!(refused(&good[..good.len() - 1]).contains("shorter than its header says"));
    assert!(refused(&good[..40]).contains("too short for its header"));
    let mut b = good.clone();
    b.push(0);
    assert!(refused(&b).contains("longer than its header says"));
    let mut b = good.clone();
    b[0] ^= 1;
    assert!(refused(&b).contains("wrong magic"));

    // One byte inside block 10's frame.
    let blocks = positions(8).div_ceil(endgame::compact::BLOCK as u64) as usize;
    let at = |b: usize| {
        let i = 64 + 8 * b;
        u64::from_le_bytes(good[i..i + 8].try_into().unwrap()) as usize
    };
    let data = 64 + 8 * (blocks + 1);
    let mut b = good.clone();
    b[data + (at(10) + at(11)) / 2] ^= 0x10;
    std::fs::write(&path, &b).unwrap();
    let c = Table::open_compact(&path).unwrap();
    let idx = 10 * endgame::compact::BLOCK as u64 + 7;
    let err = c.try_entry_at(idx).unwrap_err().to_string();
    assert!(err.contains("is damaged: block 10"), "{err}");
    assert_eq!(c.entry_at(idx), INVALID);
    assert_eq!(c.entry_at(idx - 4096), t.entry_at(idx - 4096));
    let err = Table::load(&path).err().unwrap().to_string();
    assert!(err.contains("is damaged: block 10"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
