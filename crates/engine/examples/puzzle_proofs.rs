//! The composer on every built-in puzzle and on issue 41's composition, without databases on
//! disk (the first composition builds the solver's own 8-seed layer): the figures of
//! docs/tablebase.md, "The solver's own 8-seed layer".
//! `cargo run --release -p anywoli-engine --example puzzle_proofs [NODES] [TABLEBASE_DIR]`

use std::time::Instant;

use anywoli_core::{parse_position, Rules};
use anywoli_engine::compose::{compose_counting, ComposeLimits};
use anywoli_engine::endgame::Tablebase;

fn main() {
    let mut args = std::env::args().skip(1);
    let budget: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let tb = args
        .next()
        .map(|d| Tablebase::open(std::path::Path::new(&d)).unwrap());
    let mut times = Vec::new();
    let (mut proven, mut same, mut most) = (0, 0, 0);
    for pz in anywoli_engine::puzzles::all() {
        let t = Instant::now();
        let (r, nodes) = compose_counting(&pz.position, tb.as_ref(), ComposeLimits::nodes(budget));
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        times.push(ms);
        most = most.max(nodes);
        let verdict = match &r {
            Ok(p) => {
                proven += 1;
                if p.line == pz.line {
                    same += 1;
                    "the collection's line".to_string()
                } else {
                    "another line".to_string()
                }
            }
            Err(e) => e.to_string(),
        };
        println!(
            "puzzle {}: {} plies, {nodes} nodes, {ms:.1} ms: {verdict}",
            pz.id, pz.plies
        );
    }
    let issue = "0,2,0,1,0,0,0,0,0,0,0,0/0,0,0,0,3,0,0,2,0,0,0,0 s 44 44 - - 0 0";
    let p = parse_position(issue, Rules::Anywoli).unwrap();
    let t = Instant::now();
    let (r, nodes) = compose_counting(&p, tb.as_ref(), ComposeLimits::nodes(budget));
    println!(
        "{issue}: {}, {nodes} nodes, {:.1} ms",
        r.err().map_or("a puzzle".to_string(), |e| e.to_string()),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let first = times[0];
    let mut rest = times[1..].to_vec();
    rest.sort_by(f64::total_cmp);
    println!(
        "proven {proven}/{}, the collection's line {same}; most nodes {most}; first {first:.0} ms; the others median {:.2} ms, worst {:.2} ms",
        times.len(),
        rest[rest.len() / 2],
        rest[rest.len() - 1]
    );
}
