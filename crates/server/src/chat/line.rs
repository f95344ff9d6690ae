//! What a chat line may be, checked before anything is stored or sent: its text's length
//! and characters, the presets anonymous players choose from, and how often one may speak.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::ws::SocketError;

/// The longest line, in characters after trimming (lichess's limit).
pub const MAX_CHARS: usize = 140;
/// Lines one account may say per [`WINDOW`]: the next is refused.
pub const LINES_PER_WINDOW: usize = 5;
/// Lines one client address may say per [`WINDOW`], however many accounts it uses (a shared
/// address carries several people, hence more than one account's).
pub const LINES_PER_CLIENT: usize = 20;
pub const WINDOW: Duration = Duration::from_secs(10);

/// The phrases an anonymous player may say, each shown in its reader's language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    GoodLuck,
    WellPlayed,
    ThankYou,
    Rematch,
}

impl Preset {
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::GoodLuck => "good_luck",
            Preset::WellPlayed => "well_played",
            Preset::ThankYou => "thank_you",
            Preset::Rematch => "rematch",
        }
    }
}

pub fn refusal(error: ErrorCode, message: impl Into<String>) -> SocketError {
    SocketError {
        error,
        message: message.into(),
    }
}

/// A line's text as it is kept (trimmed), or why it is refused. Control characters and the
/// marks that turn text around (bidirectional overrides) are refused, not stripped, so that
/// what the author sees refused is what the server would have sent.
pub fn checked_text(text: &str) -> Result<String, SocketError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(refusal(ErrorCode::BadText, "the line is empty"));
    }
    let n = t.chars().count();
    if n > MAX_CHARS {
        return Err(refusal(
            ErrorCode::TooLarge,
            format!("a line has at most {MAX_CHARS} characters (this one {n})"),
        ));
    }
    let turns = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if let Some(c) = t.chars().find(|&c| c.is_control() || turns(c)) {
        return Err(refusal(
            ErrorCode::BadText,
            format!(
                "a line may not hold control characters (U+{:04X})",
                c as u32
            ),
        ));
    }
    Ok(t.to_string())
}

/// What one speaker said lately: when (within the window), and its last two lines.
#[derive(Default)]
struct Said {
    at: VecDeque<Instant>,
    last: VecDeque<String>,
}

/// How often each speaker (an account, a client address) spoke lately. Kept in memory per
/// instance, a first and cheap check: an account's allowance and repeats are checked again in
/// the store as the line is written ([`PACE`]), which holds across instances; an address's
/// (anonymous players' presets) is per instance.
#[derive(Default)]
pub struct Rates {
    said: HashMap<String, Said>,
}

/// Speakers remembered at most; past it, those quiet for a [`WINDOW`] are forgotten.
const SPEAKERS: usize = 50_000;

impl Rates {
    /// Records a line by `account` (if any) from `client`, or says why it is refused (and
    /// records nothing): a sixth line within the window, the same as one of the account's
    /// last two, or too many from the address.
    pub fn allow(
        &mut self,
        account: Option<&str>,
        client: &str,
        text: &str,
        now: Instant,
    ) -> Result<(), SocketError> {
        if self.said.len() > SPEAKERS {
            self.said
                .retain(|_, s| s.at.back().is_some_and(|t| now - *t < WINDOW));
        }
        let account_key = account.map(|a| format!("a:{}", a.to_lowercase()));
        let client_key = format!("c:{client}");
        if let Some(k) = &account_key {
            let s = self.said.entry(k.clone()).or_default();
            if !text.is_empty() && s.last.iter().any(|l| l == text) {
                return Err(repeated());
            }
            if recent(s, now) >= LINES_PER_WINDOW {
                return Err(too_many());
            }
        }
        if recent(self.said.entry(client_key.clone()).or_default(), now) >= LINES_PER_CLIENT {
            return Err(too_many());
        }
        for k in account_key.iter().chain([&client_key]) {
            let s = self.said.entry(k.clone()).or_default();
            s.at.push_back(now);
            if k.starts_with("a:") && !text.is_empty() {
                s.last.push_back(text.to_string());
                if s.last.len() > 2 {
                    s.last.pop_front();
                }
            }
        }
        Ok(())
    }
}

/// Lines within the window (older ones forgotten).
fn recent(s: &mut Said, now: Instant) -> usize {
    while s.at.front().is_some_and(|t| now - *t >= WINDOW) {
        s.at.pop_front();
    }
    s.at.len()
}

/// The store's check of [`LINES_PER_WINDOW`] and repeats, which holds across instances (the
/// counts here are this instance's only).
pub const PACE: crate::store::Pace = crate::store::Pace {
    lines: LINES_PER_WINDOW,
    window_ms: WINDOW.as_millis() as i64,
};

pub(crate) fn repeated() -> SocketError {
    refusal(ErrorCode::Repeated, "you said this just now")
}

pub(crate) fn too_many() -> SocketError {
    refusal(
        ErrorCode::RateLimited,
        format!("at most {LINES_PER_WINDOW} lines in 10 seconds"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_trimmed_bounded_and_free_of_control_characters() {
        assert_eq!(checked_text("  gg  ").unwrap(), "gg");
        assert_eq!(checked_text(&"é".repeat(140)).unwrap().chars().count(), 140);
        assert_eq!(
            checked_text(&"é".repeat(141)).unwrap_err().error,
            ErrorCode::TooLarge
        );
        assert_eq!(checked_text(" \n ").unwrap_err().error, ErrorCode::BadText);
        assert_eq!(
            checked_text("a\u{7}b").unwrap_err().error,
            ErrorCode::BadText
        );
        assert_eq!(checked_text("a\nb").unwrap_err().error, ErrorCode::BadText);
        assert_eq!(
            checked_text("a\u{202e}b").unwrap_err().error,
            ErrorCode::BadText
        );
        assert_eq!(
            checked_text("<b>hi</b>").unwrap(),
            "<b>hi</b>",
            "shown as text"
        );
    }

    #[test]
    fn a_sixth_line_or_a_repeat_is_refused() {
        let mut r = Rates::default();
        let t0 = Instant::now();
        for i in 0..5 {
            r.allow(Some("Abula"), "1.2.3.4", &format!("l{i}"), t0)
                .unwrap();
        }
        let e = r.allow(Some("abula"), "1.2.3.4", "l9", t0).unwrap_err();
        assert_eq!(e.error, ErrorCode::RateLimited);
        let later = t0 + WINDOW;
        assert_eq!(
            r.allow(Some("Abula"), "1.2.3.4", "l3", later)
                .unwrap_err()
                .error,
            ErrorCode::Repeated
        );
        r.allow(Some("Abula"), "1.2.3.4", "l2", later).unwrap();
        r.allow(Some("Bao"), "1.2.3.4", "l2", later).unwrap();
    }
}
