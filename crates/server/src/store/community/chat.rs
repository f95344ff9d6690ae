//! Chat lines, stored with their game: the players' room and the spectators' room of each
//! game, read back in the order they were said.

use serde::{Deserialize, Serialize};

use crate::store::sql::{FromRow, Row, Sql};
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreError, StoreResult};

/// A game's two chat rooms: its seated players', and everyone else's who watches; and a
/// tournament's one room (its lines stored under the tournament's id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Room {
    Players,
    Spectators,
    Tournament,
}

impl Room {
    pub fn as_str(self) -> &'static str {
        match self {
            Room::Players => "players",
            Room::Spectators => "spectators",
            Room::Tournament => "tournament",
        }
    }

    fn parse(s: &str) -> StoreResult<Room> {
        match s {
            "players" => Ok(Room::Players),
            "spectators" => Ok(Room::Spectators),
            "tournament" => Ok(Room::Tournament),
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

/// How often one account may speak, checked in the store so that it holds across instances:
/// at most `lines` lines within `window_ms`, none the same as one of its last two.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub lines: usize,
    pub window_ms: i64,
}

/// What saying a line did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    Saved,
    /// The author said [`Pace::lines`] lines within the window already: nothing written.
    TooMany,
    /// The same text as one of the author's last two lines: nothing written.
    Repeated,
}

/// A line said by someone: written unless its author's pace forbids it.
struct SayLine {
    line: ChatLine,
    pace: Pace,
}

impl Change for SayLine {
    type Out = Said;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<Said> {
        let (db, l) = (c.sql(), &self.line);
        if let Some(author) = &l.author {
            // PostgreSQL: the author's account row, locked, orders two lines said at once on
            // two instances, so that both see each other in the count.
            let lock = db.dialect().for_update();
            db.query(
                &format!("SELECT name FROM accounts WHERE name = $1{lock}"),
                &[author.into()],
            )?;
            let last = lines_by(db, author, self.pace.lines.max(2))?;
            if !l.text.is_empty() && last.iter().take(2).any(|p| p.text == l.text) {
                return Ok(Said::Repeated);
            }
            let in_window = last
                .iter()
                .filter(|p| p.at > l.at - self.pace.window_ms)
                .count();
            if in_window >= self.pace.lines {
                return Ok(Said::TooMany);
            }
        }
        insert_line(db, l, "")?;
        Ok(Said::Saved)
    }
}

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

    /// Stores a line said now, unless its author went past `pace` (see [`Said`]).
    pub fn say_chat_line(&self, line: ChatLine, pace: Pace) -> StoreResult<Said> {
        self.writer.call(SayLine { line, pace })
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
