//! Personal API tokens (issue 40, docs/api-bots.md): what a token's text looks like, what the
//! store keeps of it, and the scopes, named as lichess names them so that programs written
//! for it need little change.

use base64::Engine;

use crate::ids::random_bytes;

/// Every token's text starts so: a leaked one is recognised in a log or a paste, and a
/// request's `Authorization` that does not is no token of ours (and is not looked up).
pub const PREFIX: &str = "anw_";
/// The random part: 24 bytes, 32 characters of base64url.
const RANDOM_CHARS: usize = 32;

/// Tokens one account may hold: one per program and machine, with room.
pub const TOKENS_PER_ACCOUNT: i64 = 20;

/// A new token's text (shown once) and what the store keeps of it.
pub fn new_token() -> (String, String) {
    let text = format!(
        "{PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes::<24>())
    );
    let hash = crate::account::session::token_of(&text);
    (text, hash)
}

/// Whether `text` has a token's shape.
pub fn looks_like_token(text: &str) -> bool {
    text.strip_prefix(PREFIX).is_some_and(|r| {
        r.len() == RANDOM_CHARS
            && r.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

/// What a token lets its holder do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Play as a BOT account (the Bot API).
    BotPlay,
    /// Play one's own games as a person with another program (the Board API).
    BoardPlay,
    /// Read the challenges to and from the account (the event stream).
    ChallengeRead,
    /// Send, accept and decline challenges.
    ChallengeWrite,
    /// Read the account's games that are not public (friend games), in exports.
    GameRead,
    /// Make and join tournaments.
    TournamentWrite,
}

impl Scope {
    pub const ALL: [Scope; 6] = [
        Scope::BotPlay,
        Scope::BoardPlay,
        Scope::ChallengeRead,
        Scope::ChallengeWrite,
        Scope::GameRead,
        Scope::TournamentWrite,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scope::BotPlay => "bot:play",
            Scope::BoardPlay => "board:play",
            Scope::ChallengeRead => "challenge:read",
            Scope::ChallengeWrite => "challenge:write",
            Scope::GameRead => "game:read",
            Scope::TournamentWrite => "tournament:write",
        }
    }

    pub fn from_name(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A token's scopes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes(Vec<Scope>);

/// A scope named that is none of [`Scope::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope '{0}': the scopes are bot:play, board:play, challenge:read, challenge:write, game:read and tournament:write")]
pub struct UnknownScope(pub String);

impl Scopes {
    /// Reads scopes from names (repeats are one), refusing the first unknown one.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Scopes, UnknownScope> {
        let mut v = Vec::new();
        for n in names {
            let n = n.trim();
            if n.is_empty() {
                continue;
            }
            let s =
                Scope::from_name(n).ok_or_else(|| UnknownScope(n.chars().take(40).collect()))?;
            v.push(s);
        }
        v.sort();
        v.dedup();
        Ok(Scopes(v))
    }

    /// Reads scopes as the store keeps them (space-separated); an unknown one (from a newer
    /// server) is left out.
    pub fn stored(text: &str) -> Scopes {
        let mut v: Vec<Scope> = text
            .split_whitespace()
            .filter_map(Scope::from_name)
            .collect();
        v.sort();
        v.dedup();
        Scopes(v)
    }

    pub fn has(&self, s: Scope) -> bool {
        self.0.contains(&s)
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|s| s.name()).collect()
    }

    /// As the store keeps them.
    pub fn text(&self) -> String {
        self.names().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_their_shape_and_are_kept_hashed() {
        let (text, hash) = new_token();
        assert!(looks_like_token(&text), "{text}");
        assert_eq!(text.len(), PREFIX.len() + RANDOM_CHARS);
        assert_eq!(hash, crate::account::session::token_of(&text));
        assert!(!hash.contains(&text[PREFIX.len()..]));
        assert_ne!(new_token().0, text);
        for bad in [
            "",
            "anw_",
            "lip_abc",
            &text[1..],
            &format!("{text}x"),
            "anw_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
        ] {
            assert!(!looks_like_token(bad), "{bad}");
        }
    }

    #[test]
    fn scopes_read_by_lichess_s_names() {
        let s = Scopes::parse(["challenge:write", "bot:play", "bot:play", " "]).unwrap();
        assert_eq!(s.names(), ["bot:play", "challenge:write"]);
        assert_eq!(Scopes::stored(&s.text()), s);
        assert!(s.has(Scope::BotPlay) && !s.has(Scope::BoardPlay));
        let e = Scopes::parse(["bot:play", "email:read"]).unwrap_err();
        assert_eq!(e.0, "email:read");
        assert!(e.to_string().contains("'email:read'"));
        assert_eq!(
            Scopes::stored("bot:play future:scope").names(),
            ["bot:play"]
        );
        for s in Scope::ALL {
            assert_eq!(Scope::from_name(s.name()), Some(s));
        }
    }
}
