//! `anywoli match`: games between two players, built in or external programs speaking the
//! protocol of `docs/protocol.md`, with the score, the Elo difference and the game records.
//! `spec.rs` reads the players, `external.rs` drives an external engine with the protocol's
//! own types, `game.rs` plays one game; this file deals the games out to the jobs and sums up.

pub(crate) mod external;
mod game;
mod pairs;
mod spec;

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anywoli_core::{Move, Position, Rules, Side};
use anywoli_engine::sprt::Sprt;
use anywoli_engine::{arena, builtin};

use crate::common::{CmdResult, Failure};
use external::External;
use game::{play_one, sides, today, Contestant, Game, Played};
use pairs::Pairs;
pub(crate) use spec::split_command;
use spec::{parse_spec, Spec, SpecError};

pub struct Options {
    pub games: usize,
    pub jobs: usize,
    pub movetime: u64,
    pub opening_plies: usize,
    /// Largest skew of an opening from the start, in seeds; `None` keeps every random opening.
    pub balance: Option<u32>,
    /// Whether `balance` is around an even game rather than the start position's value.
    pub even: bool,
    pub out: Option<PathBuf>,
    pub rules: String,
    pub seed: u64,
    pub hash: usize,
    pub threads: usize,
    /// elo0, elo1, alpha, beta of a sequential test that may end the match early.
    pub sprt: Option<(f64, f64, f64, f64)>,
    pub players: [String; 2],
}

impl From<SpecError> for Failure {
    fn from(e: SpecError) -> Failure {
        Failure::Says(e.to_string())
    }
}

fn contestant(spec: &Spec, seed: u64, opts: &Options) -> Contestant {
    match spec {
        Spec::Builtin {
            name,
            hash,
            threads,
            movetime,
        } => Contestant::Builtin(
            builtin(
                name,
                seed,
                hash.unwrap_or(opts.hash),
                threads.unwrap_or(opts.threads),
            )
            .expect("checked by parse_spec"),
            movetime.map(Duration::from_millis),
        ),
        Spec::Cmd(argv) => Contestant::External(External::new(argv.clone())),
    }
}

/// A signed whole number of Elo (`+89`, `-120`, `0`), or `inf`.
pub(super) fn elo_text(x: f64, signed: bool) -> String {
    if !x.is_finite() {
        return "inf".to_string();
    }
    let r = x.round();
    if r == 0.0 {
        "0".to_string()
    } else if signed {
        format!("{r:+.0}")
    } else {
        format!("{r:.0}")
    }
}

pub fn run(opts: &Options) -> CmdResult {
    let specs = [parse_spec(&opts.players[0])?, parse_spec(&opts.players[1])?];
    let labels = opts.players.clone();
    // The rules and the test are checked before anything is played or written.
    Rules::from_name(&opts.rules, opts.seed)?;
    let sprt = opts
        .sprt
        .map(|(e0, e1, a, b)| Sprt::new(e0, e1, a, b))
        .transpose()
        .map_err(|e| Failure::Says(e.to_string()))?;
    let mut file = match &opts.out {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| Failure::Says(format!("cannot create {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let openings = openings(opts)?;
    let games = games(opts, &openings);
    let mut out = std::io::stdout();
    announce(&mut out, opts, openings.len())?;
    let mut pairs = Pairs::new(games.len(), sprt);
    let played = play_all(opts, &specs, &labels, &games, &mut pairs, &mut out)?;
    summary(&mut out, &labels, &played)?;
    for line in pairs.summary() {
        writeln!(out, "{line}")?;
    }
    if let (Some(f), Some(path)) = (file.as_mut(), &opts.out) {
        let text: Vec<String> = played.iter().map(|p| p.record.to_string()).collect();
        f.write_all(text.join("\n").as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| Failure::Says(format!("cannot write {}: {e}", path.display())))?;
        writeln!(out, "records: {} ({} games)", path.display(), played.len())?;
    }
    Ok(())
}

/// The openings, one for each pair of games (at least one, maybe empty).
fn openings(opts: &Options) -> Result<Vec<Vec<Move>>, Failure> {
    let pairs = opts.games.div_ceil(2);
    let base = Position::start(Rules::from_name(&opts.rules, opts.seed)?);
    let mut openings = match opts.balance {
        Some(seeds) => arena::openings_near(
            &base,
            pairs,
            opts.opening_plies,
            opts.seed,
            8,
            seeds as i32 * 100,
            if opts.even {
                arena::Centre::Even
            } else {
                arena::Centre::Start
            },
        ),
        None => arena::openings(&base, pairs, opts.opening_plies, opts.seed),
    };
    if openings.is_empty() {
        openings.push(Vec::new());
    }
    Ok(openings)
}

/// Every game: both games of an opening share its lottery seed, so the pair stays fair.
fn games<'a>(opts: &Options, openings: &'a [Vec<Move>]) -> Vec<Game<'a>> {
    (0..opts.games)
        .map(|i| {
            let o = (i / 2) % openings.len();
            let rules = Rules::from_name(&opts.rules, opts.seed.wrapping_add(o as u64))
                .expect("checked above");
            Game {
                index: i,
                start: Position::start(rules),
                opening: &openings[o],
                a_is_south: i % 2 == 0,
            }
        })
        .collect()
}

fn announce(out: &mut impl Write, opts: &Options, openings: usize) -> std::io::Result<()> {
    let shown = openings.min(opts.games.div_ceil(2));
    writeln!(
        out,
        "match: {} vs {}, {} games, {} opening{} of {} plies{} each played with both sides, movetime {} ms, rules {}, {} jobs",
        opts.players[0],
        opts.players[1],
        opts.games,
        shown,
        if shown == 1 { "" } else { "s" },
        opts.opening_plies,
        match opts.balance {
            Some(b) if opts.even => format!(" (within {b} seeds of an even game)"),
            Some(b) => format!(" (within {b} seeds of the start)"),
            None => String::new(),
        },
        opts.movetime,
        opts.rules,
        opts.jobs.min(opts.games)
    )
}

/// Plays every game on `opts.jobs` threads, printing each as it ends, until the games run out
/// or the test decides (the games under way are finished); the games played, in order.
fn play_all(
    opts: &Options,
    specs: &[Spec; 2],
    labels: &[String; 2],
    games: &[Game<'_>],
    pairs: &mut Pairs,
    out: &mut impl Write,
) -> Result<Vec<Played>, Failure> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Played>();
    let mut done: Vec<Option<Played>> = (0..opts.games).map(|_| None).collect();
    let mut write_err: Option<std::io::Error> = None;
    let date = today();
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.min(opts.games) {
            let tx = tx.clone();
            let (next, stop, date) = (&next, &stop, &date);
            scope.spawn(move || worker(opts, specs, labels, games, (next, stop), date, tx));
        }
        drop(tx);
        let mut finished = 0;
        for p in rx {
            finished += 1;
            if write_err.is_none() {
                write_err = game_line(out, opts, labels, &p, finished).err();
            }
            let a_score = if p.a_is_south {
                p.south_score
            } else {
                1.0 - p.south_score
            };
            if let Some(line) = pairs.add(p.index, a_score) {
                if write_err.is_none() {
                    write_err = writeln!(out, "{line}").err();
                }
            }
            if pairs.stop() {
                stop.store(true, Ordering::SeqCst);
            }
            let i = p.index;
            done[i] = Some(p);
        }
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    Ok(done.into_iter().flatten().collect())
}

/// One job: takes the next game until none is left.
fn worker(
    opts: &Options,
    specs: &[Spec; 2],
    labels: &[String; 2],
    games: &[Game<'_>],
    (next, stop): (&AtomicUsize, &AtomicBool),
    date: &str,
    tx: mpsc::Sender<Played>,
) {
    let movetime = Duration::from_millis(opts.movetime);
    // External engines live as long as the worker; built-in players are new for every game,
    // seeded by the game, so results do not depend on --jobs.
    let mut externals: [Option<Contestant>; 2] = [0, 1].map(|k| match &specs[k] {
        Spec::Cmd(_) => Some(contestant(&specs[k], 0, opts)),
        Spec::Builtin { .. } => None,
    });
    while !stop.load(Ordering::SeqCst) {
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(game) = games.get(i) else { break };
        let seed = |k: u64| {
            opts.seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(i as u64 * 2 + k)
        };
        let mut fresh: [Option<Contestant>; 2] = [0, 1].map(|k| match &specs[k] {
            Spec::Builtin { .. } => Some(contestant(&specs[k], seed(k as u64), opts)),
            Spec::Cmd(_) => None,
        });
        let [ea, eb] = &mut externals;
        let [fa, fb] = &mut fresh;
        let a = fa.as_mut().or(ea.as_mut()).expect("one of the two");
        let b = fb.as_mut().or(eb.as_mut()).expect("one of the two");
        let played = play_one(game, labels, [a, b], movetime, date);
        if tx.send(played).is_err() {
            break;
        }
    }
}

fn game_line(
    out: &mut impl Write,
    opts: &Options,
    labels: &[String; 2],
    p: &Played,
    finished: usize,
) -> std::io::Result<()> {
    let (s, n) = (p.end.store(Side::South), p.end.store(Side::North));
    let (sl, nl) = sides(p.a_is_south, labels);
    writeln!(
        out,
        "game {}/{} (done {finished}): {sl} (South) {s}-{n} {nl} (North), {} {}, {} plies",
        p.index + 1,
        opts.games,
        p.record.result,
        p.termination,
        p.record.moves.len()
    )
}

/// The score and the Elo difference of the first player.
fn summary(out: &mut impl Write, labels: &[String; 2], played: &[Played]) -> CmdResult {
    let a_scores: Vec<f64> = played
        .iter()
        .map(|p| {
            if p.a_is_south {
                p.south_score
            } else {
                1.0 - p.south_score
            }
        })
        .collect();
    let wins = a_scores.iter().filter(|&&s| s == 1.0).count();
    let losses = a_scores.iter().filter(|&&s| s == 0.0).count();
    let draws = a_scores.len() - wins - losses;
    let est = arena::elo(&a_scores);
    writeln!(
        out,
        "score: {} {} - {} {} ({} games: {} +{wins} ={draws} -{losses})",
        labels[0],
        est.score,
        a_scores.len() as f64 - est.score,
        labels[1],
        a_scores.len(),
        labels[0]
    )?;
    writeln!(
        out,
        "elo: {} - {} = {} +/- {} (95%)",
        labels[0],
        labels[1],
        elo_text(est.elo, true),
        elo_text(est.error, false)
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::external::hard_limit;
    use super::spec::{parse_spec, split_command, Spec};
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command("target/release/anywoli engine").unwrap(),
            ["target/release/anywoli", "engine"]
        );
        assert_eq!(
            split_command(r#"  "/opt/my engine/run" --x 'a b' c\ d "q\"" "#).unwrap(),
            ["/opt/my engine/run", "--x", "a b", "c d", "q\""]
        );
        assert_eq!(split_command("''").unwrap(), [""]);
        assert!(split_command("'open").is_err());
        assert!(split_command("end\\").is_err());
    }

    #[test]
    fn a_builtin_may_play_with_its_own_time() {
        let Ok(Spec::Builtin {
            name,
            movetime,
            threads,
            hash,
        }) = parse_spec("level10:movetime=200:threads=2")
        else {
            panic!("level10:movetime=200:threads=2 is a built-in player")
        };
        assert_eq!(
            (name.as_str(), movetime, threads, hash),
            ("level10", Some(200), Some(2), None)
        );
        for bad in [
            "level10:movetime=0",
            "level10:movetime=600001",
            "level10:movetime=",
        ] {
            let e = parse_spec(bad).unwrap_err().to_string();
            assert!(e.contains("movetime=MS (1 to 600000)"), "{bad}: {e}");
        }
    }

    #[test]
    fn dates_are_civil() {
        let d = today();
        assert_eq!(d.len(), 10, "{d}");
        assert!(d.starts_with("20"), "{d}");
    }

    #[test]
    fn the_hard_limit_is_five_movetimes_and_a_second() {
        assert_eq!(
            hard_limit(Duration::from_millis(100)),
            Duration::from_millis(1500)
        );
    }
}
