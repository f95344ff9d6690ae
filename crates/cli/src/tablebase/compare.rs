//! `anywoli tablebase compare`: the compact file checked against the `.awtb` file entry by
//! entry, then both probed at random positions, timed.

use std::io::Write;
use std::time::Instant;

use anywoli_core::{Position, Rules, Side, XorShift};
use anywoli_engine::endgame::compact::BLOCK;
use anywoli_engine::endgame::index::{checksum_from, CHECKSUM_START};
use anywoli_engine::endgame::{unrank, Table, Tablebase};

use super::place::{missing, Place};
use crate::common::{CmdResult, Failure};

/// Every entry of the compact file against the `.awtb` file, then `samples` random positions
/// probed through each (either side to move, quiet counts 0, 50 and 99, each rule the table
/// answers for), timing the probes.
pub fn compare(place: &Place, samples: u64, seed: u64) -> CmdResult {
    let (pp, cp) = (place.plain_path()?, place.compact_path()?);
    let t0 = Instant::now();
    // From 16 seeds the plain file is read through a map (75 GB and more).
    let plain = if place.seeds >= 16 {
        Table::map_plain(&pp)
    } else {
        Table::load(&pp)
    }
    .map_err(|e| missing(&pp, e))?;
    let c = Table::open_compact(&cp).map_err(|e| missing(&cp, e))?;
    let n = plain.len() as u64;
    if c.len() as u64 != n || c.seeds() != plain.seeds() {
        return Err(Failure::Says(format!(
            "{} and {} are not the same table",
            cp.display(),
            pp.display()
        )));
    }
    // A block at a time, the plain file's pages let go behind (a 16-seed one is 75 GB), and
    // the entries' checksum taken on the way: a mapped file's was not checked when opened.
    let (mut pb, mut cb) = (Vec::with_capacity(BLOCK), Vec::with_capacity(BLOCK));
    let mut sum = CHECKSUM_START;
    for b in 0..n.div_ceil(BLOCK as u64) as usize {
        pb.clear();
        cb.clear();
        plain.fill_block(b, &mut pb)?;
        plain.release(b);
        c.fill_block(b, &mut cb)?;
        if let Some(j) = (0..pb.len()).find(|&j| pb[j] != cb[j]) {
            let i = b * BLOCK + j;
            return Err(Failure::Says(format!(
                "{} disagrees with {} at entry {i}: {:#06x} instead of {:#06x}",
                cp.display(),
                pp.display(),
                cb[j],
                pb[j]
            )));
        }
        sum = checksum_from(sum, &pb);
    }
    for (t, path) in [(&plain, &pp), (&c, &cp)] {
        if t.stored_checksum().is_some_and(|s| s != sum) {
            return Err(Failure::Says(format!(
                "{} is damaged: its entries do not match its checksum",
                path.display()
            )));
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "compared {} with {}: all {n} entries agree ({:.1} s)",
        cp.display(),
        pp.display(),
        t0.elapsed().as_secs_f64()
    )?;
    let ps = sample(plain.seeds(), n, samples, seed);
    let time = |tb: &Tablebase| {
        let t = Instant::now();
        let answers: Vec<_> = ps.iter().map(|p| tb.probe(p)).collect();
        (answers, t.elapsed())
    };
    let kind = if plain.is_mapped() {
        ".awtb file through its map (a page read from the disk when cold)"
    } else {
        "table in memory"
    };
    let (a, ta) = time(&Tablebase::from_tables(vec![plain]));
    let (b, tb) = time(&Tablebase::from_tables(vec![c]));
    if let Some(i) = (0..ps.len()).find(|&i| a[i] != b[i]) {
        return Err(Failure::Says(format!(
            "the compact file probes {} differently: {:?} instead of {:?}",
            ps[i], b[i], a[i]
        )));
    }
    writeln!(
        out,
        "probed {} random positions through each, all agree: {:.0} ns a probe from the compact file, {:.0} ns from the {} (random positions: nearly every compact probe decompresses a block)",
        ps.len(),
        tb.as_nanos() as f64 / ps.len() as f64,
        ta.as_nanos() as f64 / ps.len() as f64,
        kind
    )?;
    Ok(())
}

/// `samples` random positions of a table of `seeds` seeds (`n` entries), drawn from `seed`:
/// either side to move, quiet counts 0, 50 and 99, each rule the table answers for.
fn sample(seeds: u8, n: u64, samples: u64, seed: u64) -> Vec<Position> {
    let rules: &[(Rules, Option<Side>)] = if seeds >= 12 {
        &[(Rules::Anywoli, None)]
    } else {
        &[
            (Rules::Anywoli, None),
            (Rules::FirstFinal, Some(Side::South)),
            (Rules::FirstFinal, Some(Side::North)),
            (Rules::Lottery { seed: 1 }, None),
        ]
    };
    let mut rng = XorShift::new(seed | 1);
    let mut ps = Vec::with_capacity(samples.min(1 << 24) as usize);
    while (ps.len() as u64) < samples {
        let x = rng.next();
        let holes = unrank(x % n, seeds);
        let side = if x >> 63 == 0 {
            Side::South
        } else {
            Side::North
        };
        let quiet = [0u16, 50, 99][(x >> 40) as usize % 3];
        let (r, ff) = rules[(x >> 50) as usize % rules.len()];
        let rest = 96 - seeds;
        if let Ok(p) = Position::from_parts(
            holes,
            [rest / 2, rest - rest / 2],
            Some(side),
            None,
            ff,
            quiet,
            quiet as u32,
            r,
        ) {
            ps.push(p);
        }
    }
    ps
}
