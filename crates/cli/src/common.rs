//! What every command shares: where it starts ([`Start`]), why it stops ([`Failure`]), and
//! the moves of its arguments read and played. The commands import these from here, not from
//! the binary's root.

use anywoli_core::{parse_position, Move, Position, Rules};
use clap::Args;

/// Where a command starts: rules, lottery seed and position.
#[derive(Args, Clone)]
pub struct Start {
    /// Rules variant (see `anywoli rules`).
    #[arg(long, default_value = "anywoli", value_name = "NAME")]
    pub rules: String,
    /// The game seed of anywoli-lottery (it draws who takes the last seeds).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seed: u64,
    /// Start from this position string instead of the start position.
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub position: Option<String>,
}

/// Why a command stopped: each variant names what failed. `main` prints it as one line on
/// stderr with exit status 2, except [`Failure::ReaderGone`].
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Standard output was closed (`anywoli perft --divide 5 | head`): the reader's choice, not
    /// an error; the command stops quietly with status 0.
    #[error("the reader of the output is gone")]
    ReaderGone,
    /// Writing the output failed otherwise.
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
    /// Writing JSON failed otherwise than by the output.
    #[error("cannot write JSON: {0}")]
    Json(serde_json::Error),
    #[error(transparent)]
    Position(#[from] anywoli_core::PositionError),
    #[error(transparent)]
    Play(#[from] anywoli_core::PlayError),
    #[error(transparent)]
    Rules(#[from] anywoli_core::UnknownRules),
    #[error(transparent)]
    ParseMove(#[from] anywoli_core::ParseMoveError),
    /// A move argument (counted from 1) is not a move.
    #[error("move {number}: {error}")]
    MoveArgument {
        number: usize,
        error: anywoli_core::ParseMoveError,
    },
    /// A move argument (counted from 1) cannot be played there.
    #[error("move {number} is illegal: {error}")]
    IllegalMove {
        number: usize,
        error: anywoli_core::PlayError,
    },
    #[error(transparent)]
    Bench(#[from] crate::bench::BenchError),
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    #[error(transparent)]
    Store(#[from] anywoli_server::store::StoreError),
    #[error(transparent)]
    Loadtest(#[from] crate::loadtest::LoadtestError),
    #[error(transparent)]
    PublicUrl(#[from] anywoli_server::PublicUrlError),
    #[error(transparent)]
    Serve(#[from] anywoli_server::StartError),
    /// Standard input could not be read (`engine`, `play`).
    #[error("cannot read the input: {0}")]
    Input(std::io::Error),
    /// A file named on the command line could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// `backup` was given a PostgreSQL database (not echoed: the URL may hold a password).
    #[error(
        "anywoli backup copies a SQLite file, and that --db is a PostgreSQL database: \
         back it up with pg_dump (e.g. pg_dump --format=custom --file=anywoli.dump URL; \
         pg_restore puts it back)"
    )]
    BackupOfPostgres,
    #[error(transparent)]
    Backup(#[from] anywoli_server::backup::BackupError),
    /// A `--book` file that is not a book.
    #[error("{}: {error}", path.display())]
    BookFile {
        path: std::path::PathBuf,
        error: anywoli_engine::book::BookError,
    },
    #[error("the built-in book: {0}")]
    ShippedBook(&'static anywoli_engine::book::BookError),
    #[error("--margin {0} is not a number of seeds from 0 to 96")]
    BookMargin(f64),
    /// `book build` could not write its output.
    #[error("cannot write {}: {error}", path.display())]
    BookWrite {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// `play --level` outside the levels (clap checks it first).
    #[error("no level {0}: levels are 1 to 10")]
    Level(u8),
    #[error("the engine played an illegal move: {0}")]
    EngineMove(anywoli_core::PlayError),
    /// A game record that cannot be read (`review`).
    #[error("{0}")]
    Record(anywoli_core::RecordError),
    /// The engine's review of a game failed.
    #[error("{0}")]
    Review(String),
    /// The review as JSON.
    #[error("{0}")]
    ReviewJson(serde_json::Error),
    /// A failure told in words, by the commands whose errors have no type of their own yet.
    #[error("{0}")]
    Says(String),
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Failure {
        match e.io_error_kind() {
            Some(kind) => std::io::Error::from(kind).into(),
            None => Failure::Json(e),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::ReaderGone
        } else {
            Failure::Output(e)
        }
    }
}

pub type CmdResult = Result<(), Failure>;

impl Start {
    pub fn position(&self) -> Result<Position, Failure> {
        let rules = Rules::from_name(&self.rules, self.seed)?;
        match &self.position {
            None => Ok(Position::start(rules)),
            Some(text) => Ok(parse_position(text, rules)?),
        }
    }
}

/// Splits the move arguments into moves, naming the first bad one by its number.
pub fn parse_moves(args: &[String]) -> Result<Vec<Move>, Failure> {
    let mut out = Vec::new();
    for tok in args.iter().flat_map(|a| a.split_whitespace()) {
        let mv: Move = tok.parse().map_err(|error| Failure::MoveArgument {
            number: out.len() + 1,
            error,
        })?;
        out.push(mv);
    }
    Ok(out)
}

/// Plays `moves` from `pos`, returning every position after a move; the first illegal move is
/// named by its number.
pub fn play_all(mut pos: Position, moves: &[Move]) -> Result<Vec<Position>, Failure> {
    let mut out = Vec::with_capacity(moves.len());
    for (i, &mv) in moves.iter().enumerate() {
        pos.play(mv).map_err(|error| Failure::IllegalMove {
            number: i + 1,
            error,
        })?;
        out.push(pos);
    }
    Ok(out)
}

/// A clap parser for a whole number from `min` to `max`.
pub fn usize_in(min: u64, max: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(min..=max)
}
