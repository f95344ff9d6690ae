//! What a composition costs: the composer on random 8-seed positions (44 seeds in each store,
//! quiet counter 80–93, no database) within the web app's budget. The figures of
//! docs/decisions.md, "Composed puzzles":
//! `cargo run --release -p anywoli-engine --example compose_stats [POSITIONS]`.

use anywoli_core::{parse_position, Rules};
use anywoli_engine::compose::{compose_counting, ComposeLimits, Refusal};

/// The web app's budget (`anywoli_server::COMPOSE_NODES`).
const BUDGET: u64 = 2_000_000;

fn main() {
    let want: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    // xorshift: the same positions on every run.
    let mut s: u64 = 12345;
    let mut rnd = |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n
    };
    let (mut nodes, mut puzzles, mut unproven) = (Vec::new(), 0, 0);
    let t = std::time::Instant::now();
    while nodes.len() < want {
        let mut h = [0u8; 24];
        for _ in 0..8 {
            let i = if rnd(2) == 0 { rnd(12) } else { 12 + rnd(12) };
            h[i as usize] += 1;
        }
        if h[..12].iter().all(|&x| x == 0) || h.iter().any(|&x| x >= 4) {
            continue;
        }
        let row = |r: &[u8]| {
            r.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let q = 80 + rnd(15);
        let p = format!("{}/{} s 44 44 - - {q} {q}", row(&h[..12]), row(&h[12..]));
        let Ok(pos) = parse_position(&p, Rules::Anywoli) else {
            continue;
        };
        let (r, n) = compose_counting(&pos, None, ComposeLimits::nodes(BUDGET));
        nodes.push(n);
        match r {
            Ok(_) => puzzles += 1,
            Err(Refusal::Unproven { .. }) => unproven += 1,
            Err(_) => {}
        }
    }
    nodes.sort_unstable();
    let n = nodes.len();
    println!(
        "{n} positions in {:.1} s ({:.0} ms each): {puzzles} puzzles, {unproven} out of budget; nodes median {} p90 {} max {}",
        t.elapsed().as_secs_f64(),
        t.elapsed().as_secs_f64() * 1000.0 / n as f64,
        nodes[n / 2],
        nodes[n * 9 / 10],
        nodes[n - 1]
    );
}
