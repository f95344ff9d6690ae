//! What the lobbies of several instances tell each other, over PostgreSQL's `NOTIFY`
//! (crate::store::Store::publish): one JSON object a message, naming the instance it comes
//! from, each well under PostgreSQL's 8000-byte payload limit.

use serde::{Deserialize, Serialize};

use super::message::Seek;

/// Seeks in one `alive` message: each is under 400 bytes as JSON.
pub const SEEKS_PER_MESSAGE: usize = 15;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BusMessage {
    /// A seek opened on the sender, by its connection `conn`.
    Open { seek: Seek, conn: u64 },
    /// The sender still holds these seeks (its connections are open).
    Alive { seeks: Vec<(Seek, u64)> },
    /// A seek went (taken, cancelled, or its connection closed).
    Gone { id: String },
    /// A message for every lobby connection of account `name`.
    Tell { name: String, text: String },
    /// A message for connection `conn` of `instance`.
    TellConn {
        instance: String,
        conn: u64,
        text: String,
    },
    /// A new instance (or one that lost its connection): the others say which seeks they
    /// hold.
    Hello,
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    from: String,
    #[serde(flatten)]
    message: BusMessage,
}

impl BusMessage {
    pub fn text(self, from: &str) -> String {
        serde_json::to_string(&Envelope {
            from: from.to_string(),
            message: self,
        })
        .unwrap_or_default()
    }

    /// The sender and its message; `None` for anything else (an instance of another version).
    pub fn parse(payload: &str) -> Option<(String, BusMessage)> {
        let e: Envelope = serde_json::from_str(payload).ok()?;
        Some((e.from, e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lobby::message::SideChoice;
    use crate::rating::Category;

    fn seek(id: &str) -> Seek {
        Seek {
            id: id.to_string(),
            by: Some("Abulaabulaabulaabula".to_string()),
            rating: Some(1234.56789012345),
            provisional: true,
            rules: "anywoli-first-final".to_string(),
            clock: "180+60".to_string(),
            category: Category::Correspondence,
            rated: true,
            side: SideChoice::Random,
            range: Some([4000, 4000]),
        }
    }

    #[test]
    fn messages_round_trip() {
        for m in [
            BusMessage::Open {
                seek: seek("a"),
                conn: 7,
            },
            BusMessage::Gone { id: "a".into() },
            BusMessage::Tell {
                name: "Abula".into(),
                text: r#"{"type":"pong"}"#.into(),
            },
            BusMessage::Hello,
        ] {
            let text = m.clone().text("inst1");
            let (from, back) = BusMessage::parse(&text).unwrap();
            assert_eq!(from, "inst1");
            assert_eq!(back.text("inst1"), text);
        }
        assert!(BusMessage::parse("inst1\nabc 3").is_none());
    }

    #[test]
    fn alive_fits_in_a_notify() {
        let seeks: Vec<(Seek, u64)> = (0..SEEKS_PER_MESSAGE)
            .map(|i| (seek(&format!("{i:012}")), u64::MAX))
            .collect();
        let text = BusMessage::Alive { seeks }.text("0123456789ab");
        assert!(text.len() < 7900, "{} bytes", text.len());
    }
}
