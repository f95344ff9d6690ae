//! The command line's grammar: every command and its flags, as clap reads them. The flags
//! of a command live beside the command's code when it has a module of its own; `main`
//! dispatches.

use clap::{Args, Parser, Subcommand};

use crate::common::usize_in;
use crate::{
    admin, analyse, backup, bench, book, bot, compose, db, export, loadtest, matches, play,
    position, review, serve, tablebase, tournament, trace,
};

#[derive(Parser)]
#[command(name = "anywoli", version, about = "Anywoli, the 2x12 mancala of the Anuak", long_about = None)]
pub struct Cli {
    /// With no command, `anywoli` serves the web app as `anywoli serve` does with its defaults.
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve the web app (what `anywoli` with no command does): open http://ADDR:PORT.
    Serve(serve::ServeArgs),
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
    /// Write a month's rated games, compressed, with a checksum: the open database
    /// (docs/api-bots.md); `--check FILE` verifies one.
    Export(export::ExportArgs),
    /// Bring an engine online as a BOT account: accept challenges by rules, play several
    /// games at once, reconnect (docs/api-bots.md).
    Bot(bot::BotArgs),
    /// Moderators, closed accounts, reset links and the report queue, on the server's --db
    /// while it runs (docs/community.md).
    Admin {
        #[command(subcommand)]
        command: admin::AdminCommand,
    },
    /// Play moves and print the position string after each, one line per move.
    Apply(position::ApplyArgs),
    /// List the rules variants.
    Rules,
    /// Count move sequences of exactly DEPTH plies.
    Perft(position::PerftArgs),
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
    Show(position::ShowArgs),
    /// Print every event of one move: laps, seeds sown, captures, extra moves, passes, the end.
    Trace(trace::TraceArgs),
    /// Measure random-playout and perft speed on one thread.
    Bench(bench::BenchArgs),
    /// Speak the engine protocol (docs/protocol.md) on stdin and stdout, for GUIs and programs.
    Engine,
    /// The opening book's moves and scores for a position (the start unless --position or
    /// moves); `book build` remakes the book (docs/book.md).
    Book(book::BookArgs),
    /// Search a position: per-depth lines, then the best move, its score in seeds and the line.
    #[command(alias = "analyze")]
    Analyse(analyse::AnalyseArgs),
    /// Judge every move of a recorded game: the engine's view after each move as seeds and as
    /// South's expected score, the moves that threw expected score away (inaccuracy from 5
    /// points, mistake from 10, blunder from 15) with the better move, and each player's
    /// accuracy.
    Review(review::ReviewArgs),
    /// Play games between two players and print the score and the Elo difference.
    ///
    /// A PLAYER is a built-in one (level1..level10, greedy, random, minimax1..minimax6) or cmd:COMMAND,
    /// a program speaking the engine protocol, e.g. "cmd:target/release/anywoli engine".
    /// A built-in level may set its own threads, table and time a move, e.g.
    /// "level10:threads=2:hash=64" or "level10:movetime=200" (time odds); otherwise --threads,
    /// --hash and --movetime apply.
    Match(MatchArgs),
    /// Play many live games against servers and report moves/s, round trips, WebSocket
    /// delivery, errors and server memory (docs/scaling.md).
    ///
    /// Start the server with --games-per-minute 0 (it lets one client make 30 games a minute
    /// after a burst of 10, and refuses more with 429), and, when the tool's connections and
    /// watchers exceed 64, --max-connections-per-client 0 and --max-connections above their
    /// total. Load only servers you run.
    Loadtest(loadtest::LoadtestArgs),
    /// Play the engine in the terminal: type move letters, undo, hint or quit.
    Play(play::PlayArgs),
    /// Tournaments: `tournament pair` pairs a Swiss round, an arena wave or a round robin from
    /// JSON on standard input (docs/tournaments.md).
    Tournament {
        #[command(subcommand)]
        command: tournament::TournamentCommand,
    },
}

/// What `anywoli match` takes (`matches::Options` once resolved).
#[derive(Args)]
pub struct MatchArgs {
    /// Games to play; each opening is played twice, sides swapped.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = usize_in(1, 1_000_000))]
    pub games: usize,
    /// Games played at once.
    #[arg(long, default_value_t = 2, value_name = "J", value_parser = usize_in(1, 256))]
    pub jobs: usize,
    /// Thinking time per move, in milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: u64,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 4, value_name = "K", value_parser = usize_in(0, 40))]
    pub opening_plies: usize,
    /// Keep only openings that a depth-8 search scores within this many seeds of the start
    /// position (a random move is often a gross blunder in Anywoli).
    #[arg(long, default_value_t = 3, value_name = "SEEDS", value_parser = clap::value_parser!(u32).range(0..=96))]
    pub balance: u32,
    /// Use the random openings as they come, without the balance filter.
    #[arg(long, conflicts_with = "even")]
    pub unbalanced: bool,
    /// Keep openings within --balance seeds of an even game (0 for both sides) instead of the
    /// start position's value, which favours South by about 7 seeds: between strong players
    /// South wins almost every game from the start's openings whoever plays it, so even
    /// openings tell the players apart (docs/strength.md, "Which openings").
    #[arg(long)]
    pub even: bool,
    /// Save the games to FILE as records.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Rules variant (see `anywoli rules`).
    #[arg(long, default_value = "anywoli", value_name = "NAME")]
    pub rules: String,
    /// Seed of the openings (and of the lottery draws of anywoli-lottery).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seed: u64,
    /// Transposition table of each built-in level player, in MiB.
    #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = usize_in(1, 4096))]
    pub hash: usize,
    /// Search threads of each built-in level player.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = usize_in(1, 64))]
    pub threads: usize,
    /// Stop as soon as a sequential probability ratio test on the pairs of games decides
    /// between --elo0 and --elo1 (--games is then the most it plays; docs/strength.md, "SPRT").
    #[arg(long)]
    pub sprt: bool,
    /// The SPRT's H0: PLAYER_A is this many (logistic) Elo stronger.
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "ELO",
        allow_hyphen_values = true
    )]
    pub elo0: f64,
    /// The SPRT's H1: PLAYER_A is this many Elo stronger.
    #[arg(
        long,
        default_value_t = 50.0,
        value_name = "ELO",
        allow_hyphen_values = true
    )]
    pub elo1: f64,
    /// The SPRT's chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub alpha: f64,
    /// The SPRT's chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub beta: f64,
    /// The first player.
    #[arg(value_name = "PLAYER_A")]
    pub player_a: String,
    /// The second player.
    #[arg(value_name = "PLAYER_B")]
    pub player_b: String,
}

impl MatchArgs {
    pub fn options(self) -> matches::Options {
        matches::Options {
            games: self.games,
            jobs: self.jobs,
            movetime: self.movetime,
            opening_plies: self.opening_plies,
            balance: (!self.unbalanced).then_some(self.balance),
            even: self.even,
            out: self.out,
            rules: self.rules,
            seed: self.seed,
            hash: self.hash,
            threads: self.threads,
            sprt: self
                .sprt
                .then_some((self.elo0, self.elo1, self.alpha, self.beta)),
            players: [self.player_a, self.player_b],
        }
    }
}
