//! `anywoli bench --perfect`: distance to perfection. Each level, at each move time, chooses a
//! move in every position of the fixed sets (anywoli_engine::perfection) with no database of
//! its own, and the databases of `--tablebases` judge the choice: the share of moves outside
//! the best and the seeds given away per move (docs/strength.md, "Distance to perfection").

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anywoli_core::{parse_position, Position, Rules};
use anywoli_engine::endgame::Tablebase;
use anywoli_engine::perfection::{
    judge, long_eights, move_values, reachable_twelves, read_set, LONG8, REACH12,
};
use anywoli_engine::protocol::{Command, EngineOption, Go};
use anywoli_engine::{LevelPlayer, Player};

use crate::common::{CmdResult, Failure};
use crate::matches::external::{External, Turn};

/// What the mode takes (from `anywoli bench`'s arguments).
pub struct PerfectArgs<'a> {
    pub tablebases: Option<&'a Path>,
    pub levels: Vec<u8>,
    pub movetimes: Vec<u64>,
    pub jobs: usize,
    pub engine: Option<Vec<String>>,
    pub positions: Option<usize>,
    pub make_sets_from: Option<&'a Path>,
    pub out: Option<PathBuf>,
}

fn set_error(e: anywoli_core::PositionError) -> Failure {
    Failure::Says(format!("a committed position set: {e}"))
}

pub fn run(args: &PerfectArgs<'_>) -> CmdResult {
    let tb = crate::tablebase::open(args.tablebases)?;
    if tb.table(8).is_none() || tb.table(12).is_none() {
        return Err(Failure::Says(
            "bench --perfect needs the 8- and 12-seed databases (--tablebases DIR; `anywoli tablebase build --seeds 12` makes both)".into(),
        ));
    }
    if let Some(from) = args.make_sets_from {
        return make_sets(&tb, from, args.out.as_deref());
    }
    let take = |v: Vec<Position>| match args.positions {
        Some(n) => v.into_iter().take(n).collect(),
        None => v,
    };
    let sets = [
        ("long8", take(read_set(LONG8).map_err(set_error)?)),
        ("reach12", take(read_set(REACH12).map_err(set_error)?)),
    ];
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "| set | level | ms a move | positions | not a best move | seeds lost a move | wins thrown away |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|")?;
    for (name, set) in &sets {
        // Each position's values once, for every level and time.
        let valued: Vec<_> = set
            .iter()
            .filter_map(|p| move_values(&tb, p).map(|v| (*p, v)))
            .collect();
        for &ms in &args.movetimes {
            for &level in &args.levels {
                let r = measure(args, level, ms, &valued)?;
                writeln!(
                    out,
                    "| {name} | {level} | {ms} | {} | {:.1}% | {:.3} | {:.1}% |",
                    r.positions,
                    100.0 * r.errors as f64 / r.positions.max(1) as f64,
                    r.lost as f64 / r.positions.max(1) as f64,
                    100.0 * r.thrown as f64 / r.positions.max(1) as f64,
                )?;
                out.flush()?;
            }
        }
    }
    Ok(())
}

#[derive(Default)]
struct Tally {
    positions: usize,
    errors: usize,
    lost: i64,
    thrown: usize,
}

/// One level at one move time over a set, on `args.jobs` threads.
fn measure(
    args: &PerfectArgs<'_>,
    level: u8,
    ms: u64,
    valued: &[(Position, Vec<(anywoli_core::Move, i32)>)],
) -> Result<Tally, Failure> {
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let movetime = Duration::from_millis(ms);
    std::thread::scope(|s| {
        for _ in 0..args.jobs.max(1) {
            s.spawn(|| {
                let mut chooser = Chooser::new(args.engine.as_deref(), level);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some((pos, values)) = valued.get(i) else {
                        break;
                    };
                    let mv = match chooser.choose(pos, movetime) {
                        Ok(m) => m,
                        Err(e) => {
                            *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                            break;
                        }
                    };
                    let me = pos.to_move().expect("sets hold positions in play");
                    let stores = pos.store(me) as i32 - pos.store(me.opponent()) as i32;
                    if let Some(j) = judge(values, mv, stores) {
                        let mut t = tally.lock().unwrap_or_else(|p| p.into_inner());
                        t.positions += 1;
                        t.errors += usize::from(j.error);
                        t.lost += i64::from(j.lost);
                        t.thrown += usize::from(j.throws_win);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(Failure::Says(e));
    }
    Ok(tally.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// The player whose moves are judged: a built-in level without databases, or an external
/// engine told the level (`setoption name Level`) and asked `go level movetime MS`.
enum Chooser {
    Builtin(Box<LevelPlayer>),
    External(Box<External>),
}

impl Chooser {
    fn new(engine: Option<&[String]>, level: u8) -> Chooser {
        match engine {
            Some(argv) => Chooser::External(Box::new(External::with_options(
                argv.to_vec(),
                vec![Command::SetOption(EngineOption::Level(level))],
            ))),
            None => {
                let mut p = LevelPlayer::new(level, u64::from(level), 16, 1)
                    .expect("levels are checked by the caller");
                p.engine_mut().set_tablebase(None);
                Chooser::Builtin(Box::new(p))
            }
        }
    }

    fn choose(&mut self, pos: &Position, movetime: Duration) -> Result<anywoli_core::Move, String> {
        match self {
            Chooser::Builtin(p) => {
                p.new_game();
                p.choose(pos, movetime)
                    .ok_or_else(|| format!("level gave no move in {pos}"))
            }
            Chooser::External(e) => {
                e.new_game(pos.rules()).map_err(|f| f.to_string())?;
                let turn = Turn {
                    start: pos,
                    moves: &[],
                    pos,
                };
                let go = Go::Level {
                    movetime: Some(movetime),
                };
                e.choose_with(turn, go, movetime).map_err(|f| f.to_string())
            }
        }
    }
}

/// Writes the two sets to `out` (default crates/engine/perfect): 200 long 8-seed wins, and 200
/// 12-seed positions from `from` (a positions file of self-play games: a position string
/// first on each line, as `anywoli-tune positions` writes them).
fn make_sets(tb: &Tablebase, from: &Path, out: Option<&Path>) -> CmdResult {
    let dir = out.unwrap_or(Path::new("crates/engine/perfect"));
    let text = std::fs::read_to_string(from)
        .map_err(|e| Failure::Says(format!("cannot read {}: {e}", from.display())))?;
    // A game ends where the next position's ply is not after the last one's.
    let mut games: Vec<Vec<Position>> = Vec::new();
    let mut last_ply = u32::MAX;
    for l in text.lines() {
        let Some(p) = l
            .split('\t')
            .next()
            .and_then(|p| parse_position(p, Rules::Anywoli).ok())
        else {
            continue;
        };
        let ply = p.ply();
        if ply <= last_ply || games.is_empty() {
            games.push(Vec::new());
        }
        last_ply = ply;
        games.last_mut().expect("pushed").push(p);
    }
    let long8 = long_eights(tb, 200, 60);
    let reach12 = reachable_twelves(tb, games, 200, 50);
    let write = |name: &str, head: &str, set: &[Position]| -> CmdResult {
        let mut s = String::from(head);
        for p in set {
            s.push_str(&format!("{p}\n"));
        }
        let path = dir.join(name);
        std::fs::write(&path, s)
            .map_err(|e| Failure::Says(format!("cannot write {}: {e}", path.display())))?;
        println!("{}: {} positions", path.display(), set.len());
        Ok(())
    };
    write(
        "long8.txt",
        "# 8-seed positions South wins by a capture it forces 60 to 100 plies away, some move\n# of which loses: `anywoli bench --perfect --make-sets-from FILE` (anywoli_engine::perfection::long_eights)\n",
        &long8,
    )?;
    write(
        "reach12.txt",
        &format!("# 12-seed positions of self-play games ({}), one a game, with a single best move by the\n# databases and the margin forced 50 plies away or more: `anywoli bench --perfect\n# --make-sets-from FILE` (anywoli_engine::perfection::reachable_twelves)\n", from.display()),
        &reach12,
    )
}
