//! Exports and the opening explorer at scale (issue 40), measured (not asserted: the machines
//! are shared):
//!
//! 1. **export**: a SQLite store of `--games` finished games (100,000 by default, 40 plies
//!    each), exported whole as records and as NDJSON through the server's reader
//!    (`anywoli_server::exports::each_game`, what `GET /api/games/user/{name}` and `anywoli
//!    export` run): games a second, and this process's resident memory after 1,000 games and
//!    at the end — constant memory is the two being alike, whatever the number of games.
//! 2. **explorer**: the explorer's counts of `--explorer-games` games (1,000,000 by default,
//!    their first 24 plies chosen the way people open: most often the moves most played,
//!    sometimes any), then 10,000 `GET /api/explorer` through the app's router for positions
//!    of those games: median, p99 and the slowest, and the table's rows and size.
//!
//! `cargo bench -p anywoli-server --bench programs [-- --games N --explorer-games N --only
//! export|explorer]`. The stores are made in target/bench-programs and kept: a second run
//! measures without making them again.

mod common;
use common::rss_kib;

use std::path::PathBuf;
use std::time::Instant;

use anywoli_core::{BySide, Move, Position, Rules, Side};
use anywoli_server::exports::{each_game, Format};
use anywoli_server::rating::GameRatings;
use anywoli_server::round::game::{Game, Mode, NewGame, People, Player, Status};
use anywoli_server::store::{ExploreGame, ExportFilter};
use anywoli_server::Store;

/// A small deterministic generator (xorshift), so that every run makes the same games.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A move as people open: the moves in a fixed order of preference, the first taken half the
/// time, the second a quarter, and so on (a few openings are most of the games, as on any
/// site).
fn opening_move(pos: &Position, rng: &mut Rng) -> Option<Move> {
    let mut moves: Vec<Move> = pos.moves().into_iter().collect();
    if moves.is_empty() {
        return None;
    }
    moves.sort_by_key(|m| std::cmp::Reverse(pos.seeds(m.hole())));
    let mut i = 0;
    while i + 1 < moves.len() && rng.below(2) == 1 {
        i += 1;
    }
    Some(moves[i])
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn only(what: &str) -> bool {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--only") {
        Some(i) => args.get(i + 1).is_some_and(|v| v == what),
        None => true,
    }
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-programs");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A finished game of `plies` moves between two accounts.
fn game(i: usize, plies: usize, rng: &mut Rng) -> (Game, Vec<String>) {
    let rules = Rules::from_name("anywoli", 0).unwrap();
    let mut g = Game::new(NewGame {
        id: format!("{:012}", i).replace('0', "a"),
        at: 1_790_000_000_000 + i as i64 * 1000,
        mode: Mode::Friend,
        rules,
        players: BySide::both(Player::Human),
        secrets: BySide::both(None),
        start: Position::start(rules),
        hints: false,
        invite: None,
        clock: None,
        people: People {
            accounts: BySide::new(Some("Ana".to_string()), Some(format!("p{}", i % 1000))),
            rated: false,
            public: true,
            ratings: GameRatings::default(),
        },
    });
    let mut pos = g.start;
    for _ in 0..plies {
        let Some(m) = opening_move(&pos, rng) else {
            break;
        };
        pos.play(m).unwrap();
        g.moves.push(m);
    }
    g.pos = pos;
    g.status = Status::Over {
        outcome: anywoli_core::Outcome::Win(if rng.below(2) == 0 {
            Side::South
        } else {
            Side::North
        }),
        termination: Some(anywoli_server::round::game::Termination::Resignation),
    };
    let moves = g.moves.iter().map(|m| m.to_string()).collect();
    (g, moves)
}

fn export_bench() {
    let n = arg("--games", 100_000);
    let path = dir().join(format!("export-{n}.sqlite"));
    let fresh = !path.exists();
    let store = std::sync::Arc::new(Store::open(&path).unwrap());
    if fresh {
        let t = Instant::now();
        // Several threads, so that the writer commits many games a transaction.
        std::thread::scope(|s| {
            for w in 0..8 {
                let store = store.clone();
                s.spawn(move || {
                    let mut rng = Rng(0x9e37_79b9 + w as u64);
                    for i in (w..n).step_by(8) {
                        let (g, moves) = game(i, 40, &mut rng);
                        store.create_game(&g.to_row(), &moves).unwrap();
                    }
                });
            }
        });
        println!("made {n} games in {:.1} s", t.elapsed().as_secs_f64());
    }
    for format in [Format::Record, Format::Ndjson] {
        let f = ExportFilter {
            player: Some("Ana".to_string()),
            ..ExportFilter::default()
        };
        let (mut bytes, mut count, mut at_1000, mut peak) = (0usize, 0usize, 0u64, 0u64);
        let t = Instant::now();
        let given = each_game(&store, &f, usize::MAX, |g| {
            bytes += format.write(&g).len();
            count += 1;
            if count % 1000 == 0 {
                let now = rss_kib();
                peak = peak.max(now);
                if count == 1000 {
                    at_1000 = now;
                }
            }
            true
        })
        .unwrap();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "export {format:?}: {given} games, {:.1} MB in {secs:.1} s ({:.0} games/s); \
             resident memory after 1,000 games {at_1000} KiB, highest after {} KiB, at the end {} KiB",
            bytes as f64 / 1e6,
            given as f64 / secs,
            peak,
            rss_kib()
        );
    }
}

fn explorer_bench() {
    let n = arg("--explorer-games", 1_000_000);
    let path = dir().join(format!("explorer-{n}.sqlite"));
    let fresh = !path.exists();
    let store = Store::open(&path).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut sample: Vec<Position> = Vec::new();
    let t = Instant::now();
    let mut batch = Vec::with_capacity(2000);
    let speeds = ["bullet", "blitz", "rapid", "classical"];
    for i in 0..n {
        let (g, _) = game(i, anywoli_server::store::EXPLORER_PLIES, &mut rng);
        if i % 100 == 0 {
            let k = rng.below(g.moves.len().max(1));
            let mut p = g.start;
            for m in &g.moves[..k] {
                p.play(*m).unwrap();
            }
            sample.push(p);
        }
        if !fresh {
            continue;
        }
        let mut e: ExploreGame = anywoli_server::explorer::explore_game(&g).unwrap();
        e.speed = speeds[rng.below(4)].to_string();
        e.rating = Some(1000 + rng.below(1500) as i64);
        batch.push(e);
        if batch.len() == 2000 {
            store.explorer_add(std::mem::take(&mut batch)).unwrap();
        }
    }
    if fresh {
        store.explorer_add(batch).unwrap();
        println!("counted {n} games in {:.1} s", t.elapsed().as_secs_f64());
    }
    let rows = store.explorer_count().unwrap_or(0);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!("explorer: {rows} rows, {:.0} MB", size as f64 / 1e6);
    drop(store);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use tower::ServiceExt;
        let state = anywoli_server::AppState::new(
            Store::open(&path).unwrap(),
            anywoli_server::Think::default(),
        );
        let app = anywoli_server::app(state);
        let mut times = Vec::new();
        for (i, p) in sample.iter().cycle().take(10_000).enumerate() {
            let pos = p.to_string().replace(' ', "+");
            let filter = ["", "&speeds=blitz", "&ratings=1400,1600", "&speeds=rapid&ratings=1800"][i % 4];
            let req = axum::http::Request::get(format!("/api/explorer?position={pos}{filter}"))
                .header("host", "127.0.0.1")
                .body(axum::body::Body::empty())
                .unwrap();
            let t = Instant::now();
            let resp = app.clone().oneshot(req).await.unwrap();
            assert_eq!(resp.status(), 200);
            let _ = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "explorer query ({} games counted): median {:.2} ms, p99 {:.2} ms, slowest {:.2} ms of {}",
            n,
            at(0.5),
            at(0.99),
            times[times.len() - 1],
            times.len()
        );
    });
}

fn main() {
    if only("export") {
        export_bench();
    }
    if only("explorer") {
        explorer_bench();
    }
}
