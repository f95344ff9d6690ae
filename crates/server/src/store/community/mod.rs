//! What players say to and keep from each other (issue 38): chat lines stored with their
//! game (`chat.rs`), blocks between two accounts (`blocks.rs`) and the mutes moderators give
//! (`mutes.rs`), each with the `Store` methods that reach it.

mod blocks;
mod chat;
mod copy;
mod mutes;

pub(crate) use blocks::between as blocked_between;
pub use blocks::BlockRow;
pub(super) use chat::lines_by;
pub use chat::{ChatLine, Pace, Room, Said};
pub use copy::CommunityDump;
pub(super) use mutes::set_mute;
pub use mutes::MuteRow;

/// The tables, the same text in both backends (run by `schema::set_up_writer` and
/// PostgreSQL's migration 13).
pub(super) const COMMUNITY_TABLES: &str = "
CREATE TABLE IF NOT EXISTS chat_lines (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    room TEXT NOT NULL,
    author TEXT,
    side TEXT,
    text TEXT NOT NULL,
    preset TEXT,
    at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_lines_by_room ON chat_lines (game, room, at);
CREATE INDEX IF NOT EXISTS chat_lines_by_author ON chat_lines (author, at);
CREATE TABLE IF NOT EXISTS blocks (
    blocker TEXT NOT NULL REFERENCES accounts (name),
    blocked TEXT NOT NULL REFERENCES accounts (name),
    at BIGINT NOT NULL,
    PRIMARY KEY (blocker, blocked)
);
CREATE INDEX IF NOT EXISTS blocks_by_blocked ON blocks (blocked);
CREATE TABLE IF NOT EXISTS mutes (
    account TEXT PRIMARY KEY REFERENCES accounts (name),
    until BIGINT NOT NULL,
    by_account TEXT NOT NULL,
    reason TEXT NOT NULL,
    at BIGINT NOT NULL
);
";
