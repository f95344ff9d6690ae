//! Why a command stops: [`Failure`], the cli's one error type, with the errors of the commands
//! that have several of their own (`bench`, `db`, `loadtest`). Below every command: it names
//! their errors, never their code.

mod admin;
mod bench;
mod bot;
mod db;
mod export;
mod loadtest;

pub use admin::AdminError;
pub use bench::BenchError;
pub use bot::BotError;
pub use db::DbError;
pub use export::ExportError;
pub use loadtest::LoadtestError;

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
    Endgame(#[from] anywoli_engine::endgame::EndgameError),
    #[error(transparent)]
    Compact(#[from] anywoli_engine::endgame::CompactError),
    #[error(transparent)]
    Bench(#[from] BenchError),
    #[error(transparent)]
    Bot(#[from] BotError),
    #[error(transparent)]
    House(#[from] anywoli_server::house::HouseError),
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error(transparent)]
    Db(#[from] DbError),
    /// `anywoli admin`: exit status 1.
    #[error(transparent)]
    Admin(#[from] AdminError),
    #[error(transparent)]
    Store(#[from] anywoli_server::store::StoreError),
    #[error(transparent)]
    Loadtest(#[from] LoadtestError),
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
    Review(anywoli_engine::review::ReviewError),
    /// The review as JSON.
    #[error("{0}")]
    ReviewJson(serde_json::Error),
    /// `tournament pair`: the JSON on standard input is not the state it reads.
    #[error("the input is not a {system} round's state: {error}")]
    TournamentInput {
        system: &'static str,
        error: serde_json::Error,
    },
    /// `tournament pair`: a state that cannot be paired.
    #[error(transparent)]
    Pairing(#[from] anywoli_tournament::PairError),
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
