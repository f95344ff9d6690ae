//! `anywoli`: the command line for players, analysts and engine authors.

mod analyse;
mod backup;
mod bench;
mod board;
mod book;
mod common;
mod compose;
mod db;
mod engine;
mod loadtest;
mod matches;
mod play;
mod review;
mod tablebase;
mod trace;

use std::io::Write;
use std::process::ExitCode;

use anywoli_core::VARIANTS;
use clap::{Args, Parser, Subcommand};

use common::{parse_moves, play_all, usize_in, CmdResult, Failure, Start};

#[derive(Parser)]
#[command(name = "anywoli", version, about = "Anywoli, the 2x12 mancala of the Anuak", long_about = None)]
struct Cli {
    /// With no command, `anywoli` serves the web app as `anywoli serve` does with its defaults.
    #[command(subcommand)]
    command: Option<Command>,
}

/// What `anywoli serve` takes; `anywoli` with no command uses the defaults.
#[derive(Args, Clone)]
struct ServeArgs {
    /// Address to listen on: 127.0.0.1 (this machine only) or 0.0.0.0 (every network
    /// interface, so that a friend on another device can join).
    #[arg(long, default_value = "127.0.0.1")]
    addr: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// SQLite file holding the games (created if missing), or a PostgreSQL URL
    /// (postgres://USER:PASS@HOST/DB, whose tables are created if missing).
    #[arg(long, default_value = "anywoli.sqlite", value_name = "PATH|URL")]
    db: std::path::PathBuf,
    /// The address people reach the server at, when it sits behind a reverse proxy
    /// (e.g. https://anywoli.example.org): the page builds the links it shows from it.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Connections open at once, WebSockets included: one more is closed as soon as it is
    /// accepted. Lowered at start to what the open-file limit (ulimit -n) allows.
    #[arg(long, value_name = "N", value_parser = usize_in(1, 10_000_000),
          default_value_t = anywoli_server::Limits::default().max_connections)]
    max_connections: usize,
    /// Connections open at once from one client (an IPv4 address, an IPv6 /64), 0 for no cap;
    /// a --trusted-proxy has none [default: 48, or 0 with --public-url and no --trusted-proxy,
    /// where every connection comes from the proxy]
    #[arg(long, value_name = "N", value_parser = usize_in(0, 10_000_000))]
    max_connections_per_client: Option<usize>,
    /// Seconds a client may take to send a request's headers, from their first byte.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = anywoli_server::Limits::default().header_timeout.as_secs())]
    header_timeout: u64,
    /// Seconds a connection may stay open with no request in flight (WebSockets excepted).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = anywoli_server::Limits::default().idle_timeout.as_secs())]
    idle_timeout: u64,
    /// Seconds a client may take to send a request's body once its headers are in (then 408),
    /// and to take a byte of a response.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = anywoli_server::Limits::default().request_timeout.as_secs())]
    request_timeout: u64,
    /// New games one client (address) may make per minute, after a burst of 10; 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = anywoli_server::RateLimits::default().games_per_minute)]
    games_per_minute: u32,
    /// Hints one client may ask for per minute, after a burst of 4; 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = anywoli_server::RateLimits::default().hints_per_minute)]
    hints_per_minute: u32,
    /// Imports one client may make per minute, after a burst of 5; 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = anywoli_server::RateLimits::default().imports_per_minute)]
    imports_per_minute: u32,
    /// Signups and logins one client may try per minute, after a burst of 5; 0 for no limit
    /// (failed logins of one name are limited whatever this says: 5 in 15 minutes).
    #[arg(long, value_name = "N", default_value_t = anywoli_server::RateLimits::default().logins_per_minute)]
    logins_per_minute: u32,
    /// A host name the server answers to (repeatable), besides IP addresses, localhost and
    /// the --public-url's host: requests to any other name are refused (DNS rebinding).
    #[arg(long = "allowed-host", value_name = "NAME")]
    allowed_hosts: Vec<String>,
    /// Seconds this server's claim on the engine's turn in a game holds: when it dies, another
    /// server on the same PostgreSQL database plays the engine's move after at most this
    /// long (docs/hosting.md, "Several instances").
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3_600),
          default_value_t = anywoli_server::round::ENGINE_LEASE.as_secs())]
    engine_lease: u64,
    /// A reverse proxy whose X-Forwarded-For (or X-Real-IP) names the client, as an address
    /// or network (repeatable; e.g. 127.0.0.1/32 for nginx on this machine). Every limit per
    /// client then counts the client's address, not the proxy's. None by default: a peer that
    /// is not trusted cannot pick the address it is counted under.
    #[arg(long = "trusted-proxy", value_name = "CIDR")]
    trusted_proxies: Vec<anywoli_server::TrustedProxies>,
    /// WebSockets (live games, the lobby, the analysis board) open at once, all clients
    /// together; one more is refused with 503.
    #[arg(long, value_name = "N", value_parser = usize_in(1, 10_000_000),
          default_value_t = anywoli_server::ws::SocketLimits::default().max_sockets)]
    max_sockets: usize,
    /// WebSockets open at once from one client (an IPv4 address, an IPv6 /64; the forwarded
    /// one behind a --trusted-proxy); one more is refused with 429. 0 for no cap.
    #[arg(long, value_name = "N", value_parser = usize_in(0, 10_000_000),
          default_value_t = anywoli_server::ws::SocketLimits::default().max_sockets_per_client)]
    max_sockets_per_client: usize,
    /// Seconds between the server's pings on each WebSocket.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3_600),
          default_value_t = anywoli_server::ws::SocketLimits::default().ping_interval.as_secs())]
    socket_ping_interval: u64,
    /// Seconds a WebSocket may stay silent (not even answering a ping) before it is closed
    /// at the next ping.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400),
          default_value_t = anywoli_server::ws::SocketLimits::default().idle_timeout.as_secs())]
    socket_idle_timeout: u64,
}

impl Default for ServeArgs {
    fn default() -> ServeArgs {
        let c = anywoli_server::Config::default();
        ServeArgs {
            addr: c.addr,
            port: c.port,
            db: c.db,
            public_url: None,
            max_connections: c.limits.max_connections,
            max_connections_per_client: None,
            header_timeout: c.limits.header_timeout.as_secs(),
            idle_timeout: c.limits.idle_timeout.as_secs(),
            request_timeout: c.limits.request_timeout.as_secs(),
            games_per_minute: c.rates.games_per_minute,
            hints_per_minute: c.rates.hints_per_minute,
            imports_per_minute: c.rates.imports_per_minute,
            logins_per_minute: c.rates.logins_per_minute,
            allowed_hosts: Vec::new(),
            engine_lease: c.engine_lease.as_secs(),
            trusted_proxies: Vec::new(),
            max_sockets: c.sockets.max_sockets,
            max_sockets_per_client: c.sockets.max_sockets_per_client,
            socket_ping_interval: c.sockets.ping_interval.as_secs(),
            socket_idle_timeout: c.sockets.idle_timeout.as_secs(),
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), Failure> {
    let public_url = match args.public_url.as_deref() {
        None => None,
        Some(u) => {
            Some(anywoli_server::PublicUrl::parse(u).map_err(|e| Failure::Says(e.to_string()))?)
        }
    };
    let trusted = anywoli_server::TrustedProxies::join(args.trusted_proxies);
    // Behind a reverse proxy that is not trusted, every connection comes from the proxy: a
    // cap per client would be a cap on everyone. A trusted proxy is exempt from the cap.
    let per_client = match (args.max_connections_per_client, &public_url) {
        (Some(n), _) => n,
        (None, Some(_)) if trusted.is_empty() => 0,
        _ => anywoli_server::Limits::default().max_connections_per_client,
    };
    let sockets = anywoli_server::ws::SocketLimits {
        max_sockets: args.max_sockets,
        max_sockets_per_client: args.max_sockets_per_client,
        ping_interval: std::time::Duration::from_secs(args.socket_ping_interval),
        idle_timeout: std::time::Duration::from_secs(args.socket_idle_timeout),
        ..anywoli_server::ws::SocketLimits::default()
    };
    let limits = anywoli_server::Limits {
        max_connections: args.max_connections,
        max_connections_per_client: per_client,
        header_timeout: std::time::Duration::from_secs(args.header_timeout),
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        request_timeout: std::time::Duration::from_secs(args.request_timeout),
    };
    anywoli_server::run(anywoli_server::Config {
        addr: args.addr,
        port: args.port,
        db: args.db,
        public_url,
        limits,
        rates: anywoli_server::RateLimits {
            games_per_minute: args.games_per_minute,
            hints_per_minute: args.hints_per_minute,
            imports_per_minute: args.imports_per_minute,
            logins_per_minute: args.logins_per_minute,
        },
        allowed_hosts: args.allowed_hosts,
        engine_lease: std::time::Duration::from_secs(args.engine_lease),
        trusted_proxies: trusted,
        sockets,
        ..anywoli_server::Config::default()
    })
    .map_err(|e| Failure::Says(e.to_string()))
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web app (what `anywoli` with no command does): open http://ADDR:PORT.
    Serve(ServeArgs),
    /// Copy the games database while the server runs, check the copy and count its games.
    ///
    /// To restore: stop the server, put the copy in place of --db (removing its -wal and -shm
    /// files), start the server (docs/hosting.md).
    Backup(backup::BackupArgs),
    /// Maintain game stores: `db migrate` copies every game between SQLite and PostgreSQL.
    Db {
        #[command(subcommand)]
        command: db::DbCommand,
    },
    /// Play moves and print the position string after each, one line per move.
    Apply {
        #[command(flatten)]
        start: Start,
        /// Move letters (a..l South, A..L North); one argument may hold several, space-separated.
        #[arg(value_name = "MOVE")]
        moves: Vec<String>,
    },
    /// List the rules variants.
    Rules,
    /// Count move sequences of exactly DEPTH plies.
    Perft {
        #[command(flatten)]
        start: Start,
        /// Print the count for each first move too.
        #[arg(long)]
        divide: bool,
        depth: u32,
    },
    /// Endgame databases: build, verify, figures, puzzles, a match (docs/tablebase.md).
    Tablebase {
        #[command(subcommand)]
        command: tablebase::TablebaseCommand,
    },
    /// Prove the result of a position with the endgame databases and exact search.
    Solve(tablebase::SolveArgs),
    /// Solve an endgame puzzle in the terminal (the puzzle of the day unless --id or --date).
    Puzzle(tablebase::PuzzleArgs),
    /// Whether a position is a puzzle: the side to move forces the win with exactly one
    /// winning first move (and one line after it); the solution, grade and themes, or why not.
    Compose(compose::ComposeArgs),
    /// Draw the board in the terminal from South's side.
    Show {
        #[command(flatten)]
        start: Start,
        #[arg(value_name = "MOVE")]
        moves: Vec<String>,
    },
    /// Print every event of one move: laps, seeds sown, captures, extra moves, passes, the end.
    Trace {
        #[command(flatten)]
        start: Start,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[arg(value_name = "MOVE")]
        mv: String,
    },
    /// Measure random-playout and perft speed on one thread.
    Bench {
        /// Seconds for each measured run.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Runs of each measurement; the median is reported.
        #[arg(long, default_value_t = 5)]
        runs: u32,
        /// Perft depth from the start position.
        #[arg(long, default_value_t = 6)]
        perft_depth: u32,
        /// Search depth timed from the start position.
        #[arg(long, default_value_t = 11)]
        search_depth: u32,
        /// Also compare N search threads with one: time to --search-depth from eight fixed
        /// positions, and nodes per second (does lazy SMP pay on this machine?).
        #[arg(long, value_name = "N", value_parser = usize_in(2, 64))]
        threads: Option<usize>,
    },
    /// Speak the engine protocol (docs/protocol.md) on stdin and stdout, for GUIs and programs.
    Engine,
    /// The opening book's moves and scores for a position (the start unless --position or
    /// moves); `book build` remakes the book (docs/book.md).
    Book(book::BookArgs),
    /// Search a position: per-depth lines, then the best move, its score in seeds and the line.
    #[command(alias = "analyze")]
    Analyse {
        #[command(flatten)]
        start: Start,
        /// Think this long, in milliseconds (1000 when neither --movetime nor --depth is given).
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
        movetime: Option<u64>,
        /// Search this many plies deep (1 to 96).
        #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=96))]
        depth: Option<u32>,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = usize_in(1, 4096))]
        hash: usize,
        /// Search threads.
        #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 64))]
        threads: usize,
        /// Report the best N moves, each with its exact score and line (1 to 12).
        #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 12))]
        multipv: usize,
        /// Moves to play before searching.
        #[arg(value_name = "MOVE")]
        moves: Vec<String>,
    },
    /// Judge every move of a recorded game: the engine's view after each move, the moves that
    /// threw seeds away (inaccuracy from 2, mistake from 5, blunder from 10) with the better
    /// move, and each player's accuracy.
    Review(review::ReviewArgs),
    /// Play games between two players and print the score and the Elo difference.
    ///
    /// A PLAYER is a built-in one (level1..level10, greedy, random, minimax1..minimax6) or cmd:COMMAND,
    /// a program speaking the engine protocol, e.g. "cmd:target/release/anywoli engine".
    /// A built-in level may set its own threads and table, e.g. "level10:threads=2:hash=64";
    /// otherwise --threads and --hash apply.
    Match {
        /// Games to play; each opening is played twice, sides swapped.
        #[arg(long, default_value_t = 10, value_name = "N", value_parser = usize_in(1, 1_000_000))]
        games: usize,
        /// Games played at once.
        #[arg(long, default_value_t = 2, value_name = "J", value_parser = usize_in(1, 256))]
        jobs: usize,
        /// Thinking time per move, in milliseconds.
        #[arg(long, default_value_t = 100, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        movetime: u64,
        /// Random plies of each opening.
        #[arg(long, default_value_t = 4, value_name = "K", value_parser = usize_in(0, 40))]
        opening_plies: usize,
        /// Keep only openings that a depth-8 search scores within this many seeds of the start
        /// position (a random move is often a gross blunder in Anywoli).
        #[arg(long, default_value_t = 3, value_name = "SEEDS", value_parser = clap::value_parser!(u32).range(0..=96))]
        balance: u32,
        /// Use the random openings as they come, without the balance filter.
        #[arg(long)]
        unbalanced: bool,
        /// Save the games to FILE as records.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
        /// Rules variant (see `anywoli rules`).
        #[arg(long, default_value = "anywoli", value_name = "NAME")]
        rules: String,
        /// Seed of the openings (and of the lottery draws of anywoli-lottery).
        #[arg(long, default_value_t = 0, value_name = "N")]
        seed: u64,
        /// Transposition table of each built-in level player, in MiB.
        #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = usize_in(1, 4096))]
        hash: usize,
        /// Search threads of each built-in level player.
        #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 64))]
        threads: usize,
        /// The first player.
        #[arg(value_name = "PLAYER_A")]
        player_a: String,
        /// The second player.
        #[arg(value_name = "PLAYER_B")]
        player_b: String,
    },
    /// Play many live games against servers and report moves/s, round trips, WebSocket
    /// delivery, errors and server memory (docs/scaling.md).
    ///
    /// Start the server with --games-per-minute 0 (it lets one client make 30 games a minute
    /// after a burst of 10, and refuses more with 429), and, when the tool's connections and
    /// watchers exceed 64, --max-connections-per-client 0 and --max-connections above their
    /// total. Load only servers you run.
    Loadtest(loadtest::LoadtestArgs),
    /// Play the engine in the terminal: type move letters, undo, hint or quit.
    Play {
        #[command(flatten)]
        start: Start,
        /// The engine's level, 1 (weakest) to 10 (timed full-strength search).
        #[arg(long, default_value_t = 5, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=10))]
        level: u8,
        /// The side you play (South moves first).
        #[arg(long, value_enum, default_value = "south", value_name = "SIDE")]
        side: play::SideArg,
        /// Thinking time in milliseconds: level 10's, the most levels 6 to 9 take, and hints'.
        #[arg(long, default_value_t = 1000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        movetime: u64,
        /// Search threads of levels 6 to 10.
        #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 64))]
        threads: usize,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || matches!(
                    e.kind(),
                    ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                )
            {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // One line, as the contract says; `--help` gives the rest.
            let text = e.render().to_string();
            let line: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("tip:"))
                .filter(|l| !l.is_empty())
                .collect();
            eprintln!("{} (see anywoli --help)", line.join(" "));
            return ExitCode::from(2);
        }
    };
    let command = cli
        .command
        .unwrap_or_else(|| Command::Serve(ServeArgs::default()));
    let result = match command {
        Command::Serve(args) => serve(args),
        Command::Backup(args) => backup::run(&args),
        Command::Db { command } => db::run(&command),
        Command::Apply { start, moves } => apply(&start, &moves),
        Command::Rules => rules(),
        Command::Perft {
            start,
            divide,
            depth,
        } => perft(&start, divide, depth),
        Command::Show { start, moves } => show(&start, &moves),
        Command::Tablebase { command } => tablebase::run(&command),
        Command::Solve(args) => tablebase::solve(&args),
        Command::Puzzle(args) => tablebase::puzzle(&args),
        Command::Compose(args) => compose::run(&args),
        Command::Trace { start, json, mv } => trace::run(&start, &mv, json),
        Command::Bench {
            seconds,
            runs,
            perft_depth,
            search_depth,
            threads,
        } => bench::run(seconds, runs, perft_depth, search_depth, threads),
        Command::Engine => engine::run(),
        Command::Loadtest(args) => loadtest::run(&args),
        Command::Review(args) => review::run(&args),
        Command::Book(args) => book::run(&args),
        Command::Analyse {
            start,
            movetime,
            depth,
            hash,
            threads,
            multipv,
            moves,
        } => analyse::run(
            &start,
            &moves,
            &analyse::Options {
                movetime,
                depth,
                hash,
                threads,
                multipv,
            },
        ),
        Command::Match {
            games,
            jobs,
            movetime,
            opening_plies,
            balance,
            unbalanced,
            out,
            rules,
            seed,
            hash,
            threads,
            player_a,
            player_b,
        } => matches::run(&matches::Options {
            games,
            jobs,
            movetime,
            opening_plies,
            balance: (!unbalanced).then_some(balance),
            out,
            rules,
            seed,
            hash,
            threads,
            players: [player_a, player_b],
        }),
        Command::Play {
            start,
            level,
            side,
            movetime,
            threads,
        } => play::run(
            &start,
            &play::Options {
                level,
                human: side.into(),
                movetime,
                threads,
            },
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::ReaderGone) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn apply(start: &Start, moves: &[String]) -> CmdResult {
    let pos = start.position()?;
    let moves = parse_moves(moves)?;
    // Every move is checked before anything is printed, so a failed call prints nothing.
    let after = play_all(pos, &moves)?;
    let mut out = std::io::stdout().lock();
    for p in after {
        writeln!(out, "{p}")?;
    }
    Ok(())
}

fn rules() -> CmdResult {
    let mut out = std::io::stdout().lock();
    for (name, what) in VARIANTS {
        writeln!(out, "{name:<20} {what}")?;
    }
    Ok(())
}

fn perft(start: &Start, divide: bool, depth: u32) -> CmdResult {
    let pos = start.position()?;
    let mut out = std::io::stdout().lock();
    if divide {
        let mut total = 0;
        for (mv, n) in anywoli_core::divide(&pos, depth) {
            writeln!(out, "{mv} {n}")?;
            total += n;
        }
        writeln!(out, "total {total}")?;
    } else {
        writeln!(out, "{}", anywoli_core::perft(&pos, depth))?;
    }
    Ok(())
}

fn show(start: &Start, moves: &[String]) -> CmdResult {
    let pos = start.position()?;
    let moves = parse_moves(moves)?;
    let last = play_all(pos, &moves)?.pop().unwrap_or(pos);
    print!("{}", board::draw(&last, moves.last().copied()));
    Ok(())
}
