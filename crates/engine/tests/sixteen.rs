//! A 16-seed database where one is present: found in its folder, probed through a memory map
//! of its plain file (75 GB, never read whole), and used by the probe, the database's best
//! moves, the exact solver and the search. No 16-seed database can be built on one machine, so
//! the file is sparse (a hole reads as zeros, and takes no disk) with real entries written for
//! one position and its children: a made-up ending, consistent with its moves, that only the
//! database knows. The holes read as entry 0, "lost by 16 at once": the assertions are only
//! about what the written entries decide.

use std::io::{Seek, SeekFrom, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anywoli_core::{Move, Position, Rules, Side, XorShift};
use anywoli_engine::endgame::bounds::{Bounds, MARGINS16};
use anywoli_engine::endgame::{positions, rank, turned, Solver, Table, Tablebase, Verdict};
use anywoli_engine::search::{Engine, Limits};

/// The plain file's header (docs/tablebase.md): magic, seeds, entries, checksum (not read
/// when the file is mapped).
fn header(seeds: u8) -> [u8; 32] {
    let mut h = [0u8; 32];
    h[..8].copy_from_slice(b"AWTB\0\x01\r\n");
    h[8] = seeds;
    h[16..24].copy_from_slice(&positions(seeds).to_le_bytes());
    h
}

/// The index of a position in a table: its board with its side to move turned to South.
fn index(p: &Position) -> u64 {
    let holes = match p.to_move().unwrap() {
        Side::South => *p.holes(),
        Side::North => turned(p.holes()),
    };
    rank(&holes, p.seeds_in_play())
}

/// A 16-seed position, South to move, none of whose moves captures and no two of whose moves
/// lead to the same board, with at least three moves.
fn quiet_position() -> Position {
    let mut rng = XorShift::new(16);
    for _ in 0..1_000_000 {
        let i = rng.next() % positions(16);
        let holes = anywoli_engine::endgame::unrank(i, 16);
        let Ok(p) = Position::from_parts(
            holes,
            [40, 40],
            Some(Side::South),
            None,
            None,
            0,
            0,
            Rules::Anywoli,
        ) else {
            continue;
        };
        let children: Vec<Position> = p
            .moves()
            .into_iter()
            .filter_map(|m| {
                let mut c = p;
                c.play(m).ok()?;
                Some(c)
            })
            .collect();
        let quiet = children
            .iter()
            .all(|c| c.seeds_in_play() == 16 && c.to_move() == Some(Side::North));
        let mut boards: Vec<_> = children.iter().map(|c| *c.holes()).collect();
        boards.sort();
        boards.dedup();
        if quiet && children.len() >= 3 && boards.len() == children.len() {
            return p;
        }
    }
    panic!("no quiet 16-seed position in a million draws");
}

#[test]
fn a_16_seed_database_is_found_probed_through_its_map_and_played() {
    let dir = std::env::temp_dir().join(format!("anywoli-sixteen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(Table::file_name(16));
    let p = quiet_position();
    let moves: Vec<Move> = p.moves().into_iter().collect();
    // The last move wins all 16 seeds left in 5 plies; every other move loses them all.
    let best = *moves.last().unwrap();
    let exact = |class: u8, dtc: u16| Bounds {
        lower: class,
        upper: class,
        dtc,
    };
    let mut entries = vec![(index(&p), exact(4, 5))];
    for &m in &moves {
        let mut c = p;
        c.play(m).unwrap();
        // From North's side: lost at -16 after the best move, won at +16 after the others.
        let class = if m == best { 0 } else { 4 };
        entries.push((index(&c), exact(class, 4)));
    }
    {
        let mut f = std::fs::File::create(&path).unwrap();
        // Sparse: the length is set, the entries between are holes.
        f.set_len(32 + 2 * positions(16)).unwrap();
        f.write_all(&header(16)).unwrap();
        for (i, b) in &entries {
            f.seek(SeekFrom::Start(32 + 2 * i)).unwrap();
            f.write_all(&b.encode(16).to_le_bytes()).unwrap();
        }
    }
    use std::os::unix::fs::MetadataExt;
    let on_disk = std::fs::metadata(&path).unwrap().blocks() * 512;
    assert!(on_disk < 1 << 24, "the file is not sparse: {on_disk} bytes");

    let tb = Arc::new(Tablebase::open(&dir).unwrap());
    assert_eq!(tb.max_seeds(), 16);
    let table = tb.table(16).unwrap();
    assert!(table.is_mapped() && !table.is_compact());
    assert_eq!(table.len() as u64, positions(16));

    // The probe, from South's side and from North's (the board turned).
    let probe = tb.probe(&p).unwrap();
    assert_eq!(probe.verdict, Verdict::Win);
    assert_eq!((probe.value, probe.dtc, probe.in_time), (Some(16), 5, true));
    let north = Position::from_parts(
        turned(p.holes()),
        [40, 40],
        Some(Side::North),
        None,
        None,
        0,
        0,
        Rules::Anywoli,
    )
    .unwrap();
    assert_eq!(tb.probe(&north), Some(probe));
    // 98 quiet plies leave 2: the 5-ply proof no longer counts, only its bounds' absence.
    let late = Position::from_parts(
        *p.holes(),
        [40, 40],
        Some(Side::South),
        None,
        None,
        98,
        200,
        Rules::Anywoli,
    )
    .unwrap();
    let lp = tb.probe(&late).unwrap();
    assert_eq!(
        (lp.in_time, lp.value, lp.lower, lp.upper),
        (false, None, None, None)
    );
    // Other rules: the 16-seed table is of anywoli's.
    let other = Position::from_parts(
        *p.holes(),
        [40, 40],
        Some(Side::South),
        None,
        None,
        0,
        0,
        Rules::FirstFinal,
    )
    .unwrap();
    assert_eq!(tb.probe(&other), None);
    assert_eq!(MARGINS16[4], 16);

    // The database's own best moves, the exact solver, the composer and the search all play
    // the best move.
    assert_eq!(tb.best_moves(&p).unwrap(), vec![(best, 16, 5)]);
    let s = Solver::new(Some(&tb), 10_000).solve(&p).unwrap();
    assert_eq!((s.value, s.moves[0].0), (16, best));
    assert!(s.moves[1..].iter().all(|&(_, v)| v == -16), "{:?}", s.moves);
    let composed = anywoli_engine::compose::compose(
        &p,
        Some(&tb),
        anywoli_engine::compose::ComposeLimits::nodes(10_000),
    );
    // The composer finds it a puzzle: one winning first move, the database's.
    assert_eq!(composed.expect("a puzzle").line[0], best);
    let mut engine = Engine::new(4, 1);
    engine.set_tablebase(Some(tb.clone()));
    let r = engine.search(&p, &Limits::depth(3), &AtomicBool::new(false), &mut |_| {});
    assert_eq!((r.best, r.score), (Some(best), 1600));
    let _ = std::fs::remove_dir_all(&dir);
}
