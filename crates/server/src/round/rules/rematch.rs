//! The next game between the same players, sides changed.

use anywoli_core::{BySide, Position, Rules, Side};

use super::Refusal;
use crate::rating::GameRatings;
use crate::round::game::{Game, NewGame, People};

/// The rematch of the finished game `g`, to be made as `id` at `at`; `seed` draws a lottery
/// game's last seeds again (other rules ignore it).
pub fn rematch_of(g: &Game, id: String, at: i64, seed: u64) -> Result<Game, Refusal> {
    if g.is_playing() {
        return Err(Refusal::StillPlaying);
    }
    let seed = if matches!(g.rules, Rules::Lottery { .. }) {
        seed
    } else {
        0
    };
    let rules = Rules::from_name(g.rules.name(), seed).unwrap_or(g.rules);
    // The players change sides and keep their secrets, so each browser already holds the key
    // to its new seat.
    let mut next = Game::new(NewGame {
        id,
        at,
        mode: g.mode,
        rules,
        players: g.players.swapped(),
        secrets: g.secrets().clone().swapped(),
        start: Position::start(rules),
        hints: g.hints,
        invite: None,
        clock: g.clock.map(|c| c.control),
        // A rated game's rematch is rated too, each player's rating as the last game left it.
        people: People {
            accounts: g.people.accounts.clone().swapped(),
            rated: g.people.rated,
            public: g.people.public,
            ratings: match g.people.ratings.change {
                Some([s, n]) => GameRatings {
                    start: BySide::new(Some(n.into()), Some(s.into())),
                    change: None,
                },
                None => GameRatings {
                    start: g.people.ratings.start.swapped(),
                    change: None,
                },
            },
        },
    });
    // The players keep their titles in their new seats.
    let bots: Vec<String> = Side::ALL
        .into_iter()
        .filter(|s| crate::round::game::title_of(&g.tags, *s) == Some("BOT"))
        .filter_map(|s| g.people.accounts[s].clone())
        .collect();
    next.set_bot_titles(&bots);
    Ok(next)
}
