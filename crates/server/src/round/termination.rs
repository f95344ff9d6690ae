//! How a finished game ended: the words the store, the API and records use for it, and how
//! an imported record's own words are read.

/// Why a finished game ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Termination {
    /// The last seeds were handed over (docs/rules.md, "The end").
    LastSeeds,
    /// 100 plies without a capture.
    Quiet,
    Resignation,
    /// The side to move ran out of time.
    Time,
    /// The players agreed to a draw.
    Agreement,
    /// The loser left the game and the winner claimed it.
    Abandoned,
    /// An imported record's own words.
    Recorded(String),
}

impl Termination {
    pub fn to_db(&self) -> &str {
        match self {
            Termination::LastSeeds => "last_seeds",
            Termination::Quiet => "quiet",
            Termination::Resignation => "resignation",
            Termination::Time => "time",
            Termination::Agreement => "agreement",
            Termination::Abandoned => "abandoned",
            Termination::Recorded(s) => s,
        }
    }

    pub fn from_db(s: &str) -> Termination {
        match s {
            "last_seeds" => Termination::LastSeeds,
            "quiet" => Termination::Quiet,
            "resignation" => Termination::Resignation,
            "time" => Termination::Time,
            "agreement" => Termination::Agreement,
            "abandoned" => Termination::Abandoned,
            other => Termination::Recorded(other.to_string()),
        }
    }

    /// An imported record's `Termination` tag: the words this server writes are read back as
    /// what they say; anything else is kept as the record's own words, but only as printable
    /// text of at most [`MAX_RECORDED`] characters (issue 36: the tag was stored and echoed as
    /// it came, up to the size of the whole record).
    pub fn from_record(tag: &str) -> Termination {
        let words: String = tag
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_RECORDED)
            .collect();
        match words.as_str() {
            "last seeds" | "last_seeds" => Termination::LastSeeds,
            "quiet rule" | "quiet" => Termination::Quiet,
            "resignation" => Termination::Resignation,
            "time" => Termination::Time,
            "agreement" => Termination::Agreement,
            "abandoned" => Termination::Abandoned,
            "" => Termination::Recorded("recorded".to_string()),
            _ => Termination::Recorded(words),
        }
    }

    /// The words of a record's `Termination` tag.
    pub fn record_text(&self) -> &str {
        match self {
            Termination::LastSeeds => "last seeds",
            Termination::Quiet => "quiet rule",
            other => other.to_db(),
        }
    }
}

/// The most characters of an imported record's own `Termination` words that are kept.
pub const MAX_RECORDED: usize = 60;

#[cfg(test)]
mod termination_tests {
    use super::*;

    #[test]
    fn a_record_s_termination_is_read_or_kept_short_and_printable() {
        assert_eq!(
            Termination::from_record("last seeds"),
            Termination::LastSeeds
        );
        assert_eq!(
            Termination::from_record(" quiet   rule "),
            Termination::Quiet
        );
        assert_eq!(Termination::from_record("time"), Termination::Time);
        assert_eq!(
            Termination::from_record("adjudicated\u{7}\nby  the   elders"),
            Termination::Recorded("adjudicated by the elders".to_string())
        );
        let long = "x".repeat(100_000);
        assert_eq!(
            Termination::from_record(&long).to_db().chars().count(),
            MAX_RECORDED
        );
        assert_eq!(
            Termination::from_record("\u{0}\u{1b}"),
            Termination::Recorded("recorded".to_string())
        );
    }
}
