//! What the instances sharing a PostgreSQL database tell each other: the games they changed
//! (one line per change, `Heard::line`) and their lobbies' messages.

use super::{ClockRow, EngineClaim};

/// What the store heard that other server instances changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Changed {
    /// These changes, in the order they were committed.
    Games(Vec<Heard>),
    /// The way to hear about changes was lost and is back: any game may have changed.
    Missed,
    /// Another instance's lobby message (crate::lobby::bus), as it published it.
    Lobby(String),
}

/// One change another instance made to a game: the revision it brought the game to, and the
/// move when the change was a move (so that a game one revision behind takes it without
/// reading the database).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heard {
    pub id: String,
    pub revision: i64,
    pub mv: Option<HeardMove>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeardMove {
    pub ply: i64,
    pub mv: String,
    pub at: i64,
    /// Who owes the engine's reply after the move.
    pub engine: Option<EngineClaim>,
    /// The clocks after the move (the lag the mover was granted is known only where it moved).
    pub clock: Option<ClockRow>,
}

impl Heard {
    /// One line of an announcement: `ID REVISION`, and for a move `PLY MOVE AT OWNER UNTIL`
    /// (`- 0` when nobody owes the engine's reply), then for a game with clocks `CONTROL SOUTH
    /// NORTH SINCE DEADLINE` (`-` for a clock that does not run).
    pub(crate) fn line(&self) -> String {
        let Some(m) = &self.mv else {
            return format!("{} {}", self.id, self.revision);
        };
        let (owner, until) = match &m.engine {
            Some(c) => (c.owner.as_str(), c.until),
            None => ("-", 0),
        };
        let mut line = format!(
            "{} {} {} {} {} {owner} {until}",
            self.id, self.revision, m.ply, m.mv, m.at
        );
        if let Some(c) = &m.clock {
            let opt = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
            line.push_str(&format!(
                " {} {} {} {} {}",
                c.control,
                c.left[0],
                c.left[1],
                opt(c.since),
                opt(c.deadline)
            ));
        }
        line
    }

    /// Reads a line; `None` if it is not one (from an instance of another version, say).
    pub(crate) fn parse(line: &str) -> Option<Heard> {
        let f: Vec<&str> = line.split(' ').collect();
        let (id, revision) = (f.first()?.to_string(), f.get(1)?.parse().ok()?);
        let opt = |s: &str| -> Option<Option<i64>> {
            if s == "-" {
                Some(None)
            } else {
                s.parse().ok().map(Some)
            }
        };
        let mv = match f.len() {
            2 => None,
            7 | 12 => Some(HeardMove {
                ply: f[2].parse().ok()?,
                mv: f[3].to_string(),
                at: f[4].parse().ok()?,
                engine: (f[5] != "-").then(|| EngineClaim {
                    owner: f[5].to_string(),
                    until: f[6].parse().unwrap_or(0),
                }),
                clock: match f.len() {
                    12 => Some(ClockRow {
                        control: f[7].to_string(),
                        left: [f[8].parse().ok()?, f[9].parse().ok()?],
                        since: opt(f[10])?,
                        deadline: opt(f[11])?,
                    }),
                    _ => None,
                },
            }),
            _ => return None,
        };
        Some(Heard { id, revision, mv })
    }
}
