//! A game as a record (docs/record-format.md): written for export, read for an import.

use anywoli_core::{lottery_draw, IllegalMove, Record, Rules, Side};

use super::game::{Game, NewGame, Player, Status, Termination};

/// Why a record cannot become a game.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// `move {n} is illegal: {error}`.
    #[error(transparent)]
    IllegalMove(#[from] IllegalMove),
}

impl Game {
    /// A game read from a record, its moves replayed (an import).
    pub fn from_record(n: NewGame, rec: &Record) -> Result<Game, RecordError> {
        let mut g = Game::new(n);
        g.start = rec.start;
        g.pos = rec.line().end()?;
        g.moves = rec.moves.clone();
        let recorded = rec.tag("Termination").map(Termination::from_record);
        g.status = match (g.pos.outcome(), rec.result.parse().ok()) {
            (Some(outcome), _) => Status::Over {
                outcome,
                termination: recorded.or(Some(Termination::Recorded("recorded".into()))),
            },
            (None, Some(outcome)) => Status::Over {
                outcome,
                termination: recorded.or(Some(Termination::Recorded("recorded".into()))),
            },
            (None, None) => Status::Playing,
        };
        g.tags = rec
            .tags
            .iter()
            .filter(|(k, _)| k != "Termination")
            .cloned()
            .collect();
        Ok(g)
    }

    /// The game as a record (docs/record-format.md).
    pub fn record(&self) -> Record {
        let mut r = Record::new(self.start);
        // All stored tags at once (`set_tag` for each would be quadratic in their number).
        r.set_tags(self.tags.clone());
        if r.tag("Event").is_none() {
            r.set_tag("Event", "Anywoli web game");
        }
        if r.tag("Date").is_none() {
            r.set_tag("Date", &crate::dates::record_date(self.created));
        }
        // Which game of the site it is, so that an export's record leads back to it.
        // (always this game's: an imported record's own GameId named another game).
        r.set_tag("GameId", &self.id);
        for side in [Side::South, Side::North] {
            let tag = if side == Side::South {
                "South"
            } else {
                "North"
            };
            if r.tag(tag).is_none() {
                let name = match (self.players[side], &self.people.accounts[side]) {
                    // A house bot's seat: the computer's, under the BOT's name.
                    (_, Some(account)) => account.clone(),
                    (Player::Human, None) => "Player".to_string(),
                    (Player::Computer(l), None) => format!("Anywoli engine, level {l}"),
                };
                r.set_tag(tag, &name);
            }
            if let Some(shown) = self.people.ratings.start[side] {
                r.set_tag(&format!("{tag}Rating"), &format!("{:.0}", shown.rating));
            }
        }
        if self.people.rated {
            r.set_tag("Rated", "yes");
        }
        if let Rules::Lottery { seed } = self.rules {
            // The Seed tag fixes the draw already; this says it in words for people.
            let winner = if lottery_draw(seed) == Side::South {
                "South"
            } else {
                "North"
            };
            r.set_tag("LastSeeds", winner);
        }
        if let Status::Over {
            outcome,
            termination,
        } = &self.status
        {
            if let Some(t) = termination {
                r.set_tag("Termination", t.record_text());
            }
            r.result = outcome.as_str().to_string();
        } else {
            if self.status == Status::Aborted {
                r.set_tag("Termination", "aborted");
            }
            r.result = "*".to_string();
        }
        if let Some(c) = &self.clock {
            r.set_tag("TimeControl", &c.control.name());
        }
        r.moves = self.moves.clone();
        r
    }
}
