//! Making the game that an accepted seek or challenge starts: two people, each with a secret
//! of their own, named where they have accounts, listed from the start.

use anywoli_core::{BySide, Position, Rules, Side};

use crate::dates::now_ms;
use crate::error::ApiResult;
use crate::ids::{new_id, new_secret, random_bytes};
use crate::rating::{Category, GameRatings, Rating};
use crate::round::clock::TimeControl;
use crate::round::game::{Game, Mode, NewGame, People, Player};
use crate::round::Rounds;

use super::message::SideChoice;

/// Two players who agreed on a game.
pub struct Pairing {
    pub rules: Rules,
    pub clock: Option<TimeControl>,
    pub rated: bool,
    /// The side the seek's or challenge's creator asked for.
    pub side: SideChoice,
    pub creator: Option<String>,
    pub joiner: Option<String>,
}

/// The game made: its id, and each player's side and secret.
pub struct Started {
    pub game: String,
    pub creator: (Side, String),
    pub joiner: (Side, String),
}

/// `name`'s rating in a category and rules; the starting rating if they have none yet.
pub async fn rating_of(
    rounds: &Rounds,
    name: &str,
    category: Category,
    rules: &str,
) -> ApiResult<Rating> {
    let (name, rules) = (name.to_string(), rules.to_string());
    let rows = rounds.db(move |s| s.ratings(&name)).await?;
    Ok(rows
        .into_iter()
        .find(|r| r.category == category.name() && r.rules == rules)
        .map_or(Rating::DEFAULT, |r| r.rating))
}

pub async fn start(rounds: &Rounds, p: Pairing) -> ApiResult<Started> {
    let creator_side = match p.side {
        SideChoice::South => Side::South,
        SideChoice::North => Side::North,
        SideChoice::Random if random_bytes::<1>()[0] & 1 == 0 => Side::South,
        SideChoice::Random => Side::North,
    };
    let mut accounts = BySide::default();
    accounts[creator_side] = p.creator.clone();
    accounts[creator_side.opponent()] = p.joiner.clone();
    let mut ratings = GameRatings::default();
    if let Some(category) = p.clock.map(|c| c.category()) {
        for side in Side::ALL {
            if let Some(name) = &accounts[side] {
                let r = rating_of(rounds, name, category, p.rules.name()).await?;
                ratings.start[side] = Some(r.into());
            }
        }
    }
    let secrets = BySide::new(new_secret(), new_secret());
    let names: Vec<String> = accounts.iter().flatten().cloned().collect();
    let (bots, house) = rounds
        .db(move |s| Ok((s.bots_among(&names)?, s.house_levels(&names)?)))
        .await?;
    // A house bot's seat is the computer's at its level: the round plays it (and another
    // instance takes its turns over if this one dies), and nobody holds its secret.
    let mut players = BySide::both(Player::Human);
    let mut seat_secrets = secrets.clone().map(Some);
    for side in Side::ALL {
        let level = house
            .iter()
            .find(|(n, _)| accounts[side].as_ref() == Some(n))
            .map(|(_, l)| *l);
        if let Some(level) = level {
            players[side] = Player::Computer(level);
            seat_secrets[side] = None;
        }
    }
    let mut game = Game::new(NewGame {
        id: new_id(),
        at: now_ms(),
        // Two people on their own screens, both seats taken: a friend game in all but how
        // they met.
        mode: Mode::Friend,
        rules: p.rules,
        players,
        secrets: seat_secrets,
        start: Position::start(p.rules),
        hints: false,
        invite: None,
        clock: p.clock,
        people: People {
            accounts,
            rated: p.rated,
            public: true,
            ratings,
        },
    });
    game.set_bot_titles(&bots);
    let game = rounds.create(game).await?;
    let opp = creator_side.opponent();
    Ok(Started {
        game: game.id,
        creator: (creator_side, secrets[creator_side].clone()),
        joiner: (opp, secrets[opp].clone()),
    })
}
