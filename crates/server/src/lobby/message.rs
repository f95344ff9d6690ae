//! What the lobby's WebSocket carries, both ways, as types (docs/api-players.md).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::rating::Category;

/// Which side the creator of a seek or challenge plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SideChoice {
    South,
    North,
    #[default]
    Random,
}

/// An open seek, as everyone in the lobby sees it. Fields without a value are left out: every
/// watcher of the lobby receives every seek, and with 1,000 watchers and 20 seeks a second
/// coming and going the nulls were a tenth of each watcher's 4 KB a second (issue 36).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seek {
    pub id: String,
    /// The creator's account; absent for an anonymous player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The creator's rating in the seek's category and rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    pub provisional: bool,
    pub rules: String,
    pub clock: String,
    pub category: Category,
    pub rated: bool,
    pub side: SideChoice,
    /// Opponents' ratings the creator accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[u32; 2]>,
}

/// A challenge from one player to another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Challenge {
    pub id: String,
    pub from: String,
    pub to: String,
    pub rules: String,
    pub clock: Option<String>,
    pub category: Option<Category>,
    pub rated: bool,
    pub side: SideChoice,
    /// When it was made (milliseconds since the epoch).
    pub at: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GoneReason {
    Accepted,
    Declined,
    Cancelled,
    Expired,
}

/// A message from the server.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    Lobby {
        seeks: Vec<Seek>,
        you: Option<String>,
    },
    Seek {
        seek: Seek,
    },
    /// To its creator only: the seek just made is theirs (the lobby's `seek` follows).
    Seeking {
        id: String,
    },
    Unseek {
        id: String,
    },
    Started {
        game: String,
        seat: &'static str,
        secret: String,
    },
    Challenge {
        challenge: Challenge,
    },
    ChallengeGone {
        id: String,
        reason: GoneReason,
    },
    /// It is your move in a correspondence game (told to every lobby connection of the
    /// player, for a notification wherever they are on the site).
    YourMove {
        game: String,
        /// The opponent's name, if they have an account.
        opponent: Option<String>,
    },
    /// A tournament made the player's next game (told to every lobby connection of the
    /// player, so that they hear of it wherever they are on the site).
    TournamentGame {
        game: String,
        tournament: String,
        /// The tournament's name.
        name: String,
        opponent: String,
    },
    /// A game with the player in a seat began (told to every lobby connection of the player:
    /// the event streams of programs hear it, docs/api-bots.md; the page ignores it).
    GameStart {
        game: String,
    },
    /// A game with the player in a seat is over.
    GameFinish {
        game: String,
    },
    Error {
        error: crate::error::ErrorCode,
        message: String,
    },
    Pong,
}

impl ServerMessage {
    pub fn text(&self) -> Arc<str> {
        Arc::from(serde_json::to_string(self).unwrap_or_default())
    }

    pub fn error(e: &crate::error::ApiError) -> ServerMessage {
        ServerMessage::Error {
            error: e.code,
            message: e.message.clone(),
        }
    }
}

/// What a seek asks for, as its creator sends it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekRequest {
    #[serde(default = "default_rules")]
    pub rules: String,
    pub clock: String,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub side: SideChoice,
    pub range: Option<[u32; 2]>,
}

pub fn default_rules() -> String {
    "anywoli".to_string()
}

/// A message from a client.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    Seek(SeekRequest),
    Cancel { id: String },
    Accept { id: String },
    Ping,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages() {
        let m: ClientMessage =
            serde_json::from_str(r#"{"type":"seek","clock":"3+2","rated":true}"#).unwrap();
        match m {
            ClientMessage::Seek(s) => {
                assert_eq!(
                    (s.rules.as_str(), s.clock.as_str(), s.rated),
                    ("anywoli", "3+2", true)
                );
                assert_eq!(s.side, SideChoice::Random);
            }
            other => panic!("{other:?}"),
        }
        assert!(serde_json::from_str::<ClientMessage>(r#"{"type":"seek"}"#).is_err());
        assert!(
            serde_json::from_str::<ClientMessage>(r#"{"type":"accept","id":"x","y":1}"#).is_err()
        );
        assert!(serde_json::from_str::<ClientMessage>(r#"{"type":"ping"}"#).is_ok());
    }

    #[test]
    fn server_messages() {
        let m = ServerMessage::ChallengeGone {
            id: "c".into(),
            reason: GoneReason::Declined,
        };
        assert_eq!(
            &*m.text(),
            r#"{"type":"challenge_gone","id":"c","reason":"declined"}"#
        );
        assert_eq!(&*ServerMessage::Pong.text(), r#"{"type":"pong"}"#);
    }
}
