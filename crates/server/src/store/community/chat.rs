//! Chat lines, stored with their game: the players' room and the spectators' room of each
//! game, read back in the order they were said.

use serde::{Deserialize, Serialize};

use crate::store::sql::{FromRow, Row, Sql};
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreError, StoreResult};

/// A game's two chat rooms: its seated players', and everyone else's who watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Room {
    Players,
    Spectators,
}

impl Room {
    pub fn as_str(self) -> &'static str {
        match self {
            Room::Players => "players",
            Room::Spectators => "spectators",
        }
    }

    fn parse(s: &str) -> StoreResult<Room> {
        match s {
            "players" => Ok(Room::Players),
            "spectators" => Ok(Room::Spectators),
            _ => Err(StoreError::Failed(format!(
                "chat line in unknown room {s:?}"
            ))),
        }
    }
}

/// One line said in a game's room: what its author wrote (checked by the server before it
/// is stored), or for an anonymous player a preset phrase, which each reader sees in its own
/// language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub id: String,
    pub game: String,
    pub room: Room,
    /// The author's account (none: an anonymous player).
    pub author: Option<String>,
    /// The seat the author held (`south`, `north`), if any.
    pub side: Option<String>,
    /// What the author wrote; empty for a preset.
    pub text: String,
    /// The preset's key (`good_luck`), for an anonymous player's line.
    pub preset: Option<String>,
    pub at: i64,
}

impl FromRow for ChatLine {
    fn from_row(r: &Row) -> StoreResult<ChatLine> {
        Ok(ChatLine {
            id: r.text("id")?,
            game: r.text("game")?,
            room: Room::parse(&r.text("room")?)?,
            author: r.opt_text("author")?,
            side: r.opt_text("side")?,
            text: r.text("text")?,
            preset: r.opt_text("preset")?,
            at: r.int("at")?,
        })
    }
}

struct SaveLine(ChatLine);

impl Change for SaveLine {
    type Out = ();

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<()> {
        insert_line(c.sql(), &self.0, "").map(drop)
    }
}

/// The last `limit` lines of a game's room, oldest first.
/// Writes line `l` (`tail` ends the statement: `ON CONFLICT DO NOTHING` for a copy); the rows
/// written.
pub(super) fn insert_line(db: &mut dyn Sql, l: &ChatLine, tail: &str) -> StoreResult<u64> {
    db.execute(
        &format!(
            "INSERT INTO chat_lines (id, game, room, author, side, text, preset, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) {tail}"
        ),
        &[
            (&l.id).into(),
            (&l.game).into(),
            l.room.as_str().into(),
            l.author.clone().into(),
            l.side.clone().into(),
            (&l.text).into(),
            l.preset.clone().into(),
            l.at.into(),
        ],
    )
}

/// An account's last `limit` lines in any game, newest first (also a report's evidence).
pub(in crate::store) fn lines_by(
    db: &mut dyn Sql,
    author: &str,
    limit: usize,
) -> StoreResult<Vec<ChatLine>> {
    db.rows(
        "SELECT id, game, room, author, side, text, preset, at FROM chat_lines
         WHERE author = $1 ORDER BY at DESC, id DESC LIMIT $2",
        &[author.into(), (limit as i64).into()],
    )
}

fn recent(db: &mut dyn Sql, game: &str, room: Room, limit: usize) -> StoreResult<Vec<ChatLine>> {
    let mut lines: Vec<ChatLine> = db.rows(
        "SELECT id, game, room, author, side, text, preset, at FROM chat_lines
         WHERE game = $1 AND room = $2 ORDER BY at DESC, id DESC LIMIT $3",
        &[game.into(), room.as_str().into(), (limit as i64).into()],
    )?;
    lines.reverse();
    Ok(lines)
}

/// Chat lines.
impl Store {
    /// Stores a line (its id is unique: a new random one per line).
    pub fn save_chat_line(&self, line: ChatLine) -> StoreResult<()> {
        self.writer.call(SaveLine(line))
    }

    /// An account's last `limit` lines in any game, newest first: what a report on it
    /// attaches and a moderator reads.
    pub fn chat_lines_by(&self, author: &str, limit: usize) -> StoreResult<Vec<ChatLine>> {
        self.readers.sql(|db| lines_by(db, author, limit))
    }

    /// The last `limit` lines of a game's room, oldest first.
    pub fn chat_lines(&self, game: &str, room: Room, limit: usize) -> StoreResult<Vec<ChatLine>> {
        self.readers.sql(|db| recent(db, game, room, limit))
    }
}
