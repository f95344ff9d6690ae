//! Why `anywoli db` (migrate, reset-password, explorer) stops.

use anywoli_server::store::StoreError;

/// Why `anywoli db` stopped; each variant names the store, player, game or puzzle at fault.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("no such database file: {label}")]
    NoSuchFile { label: String },
    #[error("{label} has no player named {name}")]
    NoPlayer { label: String, name: String },
    /// The new password is refused (too short, too long).
    #[error("{0}")]
    Password(String),
    #[error("the explorer's counts differ from a recount of the games in {rows} rows")]
    ExplorerDiffers { rows: usize },
    #[error("{0}")]
    PasswordHash(anywoli_server::account::password::HashError),
    #[error("--from and --to are the same store ({from}): nothing to copy")]
    SameStore { from: String },
    #[error(
        "{to} already holds {existing} of the games of {from} (game {first}); \
         nothing copied (--skip-existing skips them)"
    )]
    GamesThere {
        to: String,
        existing: u64,
        from: String,
        first: String,
    },
    #[error(
        "{to} already has an account named {name}; nothing copied \
         (--skip-existing skips the accounts and games it has)"
    )]
    AccountThere { to: String, name: String },
    #[error(
        "{to} already has the community puzzle {id}; nothing copied \
         (--skip-existing skips what it has)"
    )]
    PuzzleThere { to: String, id: String },
    #[error("cannot copy game {id}: {error}")]
    CopyGame { id: String, error: StoreError },
    #[error("game {id} reads back differently from {to} than from {from}")]
    GameDiffers {
        id: String,
        to: String,
        from: String,
    },
    #[error("community puzzle {id} reads back differently from {to}")]
    PuzzleDiffers { id: String, to: String },
    /// Made there since the check before copying.
    #[error(
        "{to} has had an account named {name} made meanwhile; the accounts before it \
         were copied, no game was"
    )]
    AccountMadeMeanwhile { to: String, name: String },
}
