//! House bots (`anywoli serve --house-bots NAME:LEVEL,…`, docs/api-bots.md "House bots"): BOT
//! accounts that the server itself plays with its engine, so that someone is always there for
//! a rated game. Each keeps a seek in the lobby for each of its clocks and takes the
//! challenges sent to it while it has room.
//!
//! A house bot's seat is the computer's at its level in a game between two accounts: the
//! game's round plays it, as it plays the computer's moves, on whichever instance holds the
//! game, and another instance takes its turns over if that one dies (crate::round's engine
//! leases). The seeks are one instance's at a time: the holder of the `house-bots` lease
//! (renewed every [`TICK`], taken over [`LEASE_MS`] after its holder stops), so that several
//! instances do not show the same bot's seeks twice.

use std::collections::HashMap;
use std::time::Duration;

use crate::account::key_of;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::ids::new_id;
use crate::lobby::message::{Challenge, Seek, SideChoice};
use crate::lobby::Membership;
use crate::round::clock::TimeControl;
use crate::store::{AccountRow, HouseMade};

/// How often the lease holder looks at its bots' seeks.
pub const TICK: Duration = Duration::from_secs(2);
/// How long the lease holds without being renewed.
pub const LEASE_MS: i64 = 10_000;
/// Games one house bot plays at once, unless `--house-bot-games` says.
pub const DEFAULT_GAMES: usize = 20;

/// The house bots an instance runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HouseBots {
    /// Each bot's name and the engine level it plays at.
    pub bots: Vec<(String, u8)>,
    /// The clocks each bot seeks games at (at most 3: a lobby connection's seeks).
    pub clocks: Vec<TimeControl>,
    /// Games one bot plays at once; past it, its seeks go and challenges are declined.
    pub games: usize,
}

/// Why `--house-bots` cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HouseError {
    #[error("--house-bots: '{0}' is not NAME:LEVEL (a level from 1 to 10)")]
    Spec(String),
    #[error("--house-bots: {name}: {message}")]
    Name { name: String, message: String },
    #[error("--house-bot-clocks: {0}")]
    Clock(String),
    #[error("--house-bots: {0} is a person's account; name a new account or a BOT")]
    Person(String),
    #[error("--house-bots: the store: {0}")]
    Store(String),
}

impl HouseBots {
    /// Reads `NAME:LEVEL,…` and the clocks (`3+2,10+0`).
    pub fn parse(bots: &str, clocks: &str, games: usize) -> Result<HouseBots, HouseError> {
        let mut out = Vec::new();
        for spec in bots.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, level) = spec
                .split_once(':')
                .ok_or_else(|| HouseError::Spec(spec.to_string()))?;
            let level: u8 = level
                .parse()
                .ok()
                .filter(|l| (1..=10).contains(l))
                .ok_or_else(|| HouseError::Spec(spec.to_string()))?;
            crate::account::check_name(name).map_err(|e| HouseError::Name {
                name: name.to_string(),
                message: e.message,
            })?;
            out.push((name.to_string(), level));
        }
        let clocks = clocks
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|c| TimeControl::parse(c).map_err(|e| HouseError::Clock(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        if clocks.len() > crate::lobby::SEEKS_PER_CONNECTION {
            return Err(HouseError::Clock(format!(
                "at most {} clocks (a bot's seeks in the lobby)",
                crate::lobby::SEEKS_PER_CONNECTION
            )));
        }
        Ok(HouseBots {
            bots: out,
            clocks,
            games: games.max(1),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.bots.is_empty()
    }
}

/// Makes the house bots' accounts (a random password nobody knows) and starts the task that
/// keeps their seeks.
pub async fn start(st: &AppState) -> Result<(), HouseError> {
    let house = st.house().clone();
    for (name, level) in &house.bots {
        let secret = crate::ids::new_secret();
        let hash = crate::account::password::hash(secret)
            .await
            .map_err(|e| HouseError::Store(e.message))?;
        let row = AccountRow {
            key: key_of(name),
            name: name.clone(),
            hash,
            created: now_ms(),
        };
        let level = *level;
        let made = st
            .db(move |s| s.make_house_bot(row, level))
            .await
            .map_err(|e| HouseError::Store(e.message))?;
        if made == HouseMade::Person {
            return Err(HouseError::Person(name.clone()));
        }
    }
    if !house.is_empty() {
        tokio::spawn(keep_seeks(st.clone()));
    }
    Ok(())
}

/// One bot's place in the lobby and its seeks there, by clock.
struct InLobby {
    member: Membership,
    own: tokio::sync::mpsc::Receiver<std::sync::Arc<str>>,
    seeks: HashMap<String, String>,
}

/// While this instance holds the lease, each bot with room for a game has a seek for each
/// clock; without it, none.
async fn keep_seeks(st: AppState) {
    let mut held: HashMap<String, InLobby> = HashMap::new();
    let mut tick = tokio::time::interval(TICK);
    loop {
        tick.tick().await;
        let now = now_ms();
        let leased = st
            .db(move |s| s.lease("house-bots", now, now + LEASE_MS))
            .await
            .unwrap_or(false);
        if !leased {
            // Dropping the memberships takes their seeks out of every lobby.
            held.clear();
            continue;
        }
        for (name, _) in &st.house().bots {
            let entry = held.entry(name.clone()).or_insert_with(|| {
                let (_, _, own, member) = st.lobby().join(Some(name.clone()), None);
                InLobby {
                    member,
                    own,
                    seeks: HashMap::new(),
                }
            });
            // Its news (a seek taken, a challenge) is read elsewhere: drained, not kept.
            while entry.own.try_recv().is_ok() {}
            refresh(&st, name, entry).await;
        }
    }
}

/// Opens the seeks of `name` that are gone, if it has room for another game.
async fn refresh(st: &AppState, name: &str, lobby: &mut InLobby) {
    lobby.seeks.retain(|_, id| st.lobby().peek(id).is_some());
    let who = name.to_string();
    let playing = st
        .db(move |s| s.playing_of(&who, 1000))
        .await
        .map_or(usize::MAX, |g| g.len());
    if playing >= st.house().games {
        return;
    }
    for clock in &st.house().clocks {
        let key = clock.name();
        if lobby.seeks.contains_key(&key) {
            continue;
        }
        let category = clock.category();
        let rating = crate::lobby::start::rating_of(st.rounds(), name, category, "anywoli").await;
        let Ok(rating) = rating else { continue };
        let seek = Seek {
            id: new_id(),
            by: Some(name.to_string()),
            rating: Some(rating.rating),
            provisional: rating.is_provisional(),
            rules: "anywoli".to_string(),
            clock: key.clone(),
            category,
            rated: true,
            side: SideChoice::Random,
            range: None,
        };
        let id = seek.id.clone();
        if st.lobby().open(lobby.member.id, seek).is_ok() {
            lobby.seeks.insert(key, id);
        }
    }
}

/// Answers a challenge sent to a house bot at once: accepted while the bot has room for
/// another game, declined otherwise. Nothing for another account.
pub async fn answer(st: &AppState, c: &Challenge) {
    let to = c.to.clone();
    let house = st
        .db(move |s| s.house_levels(std::slice::from_ref(&to)))
        .await
        .unwrap_or_default();
    if house.is_empty() {
        return;
    }
    let who = c.to.clone();
    let playing = st
        .db(move |s| s.playing_of(&who, 1000))
        .await
        .map_or(usize::MAX, |g| g.len());
    // An instance without --house-bots (a misconfigured one) uses the default room.
    let room = if st.house().is_empty() {
        DEFAULT_GAMES
    } else {
        st.house().games
    };
    let r = if playing < room {
        crate::api::challenges::accept(st, &c.to, &c.id)
            .await
            .map(|_| ())
    } else {
        crate::api::challenges::decline(st, &c.to, &c.id).await
    };
    if let Err(e) = r {
        tracing::warn!("house bot {}: challenge {}: {}", c.to, c.id, e.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_or_say_what_is_wrong() {
        let h = HouseBots::parse("Anuak3:3, Anuak10:10", "3+2,10+0", 5).unwrap();
        assert_eq!(
            h.bots,
            [("Anuak3".to_string(), 3), ("Anuak10".to_string(), 10)]
        );
        assert_eq!(h.clocks.len(), 2);
        assert_eq!(h.games, 5);
        for bad in ["Anuak", "Anuak:0", "Anuak:11", "Anuak:x"] {
            assert_eq!(
                HouseBots::parse(bad, "3+2", 5),
                Err(HouseError::Spec(bad.to_string()))
            );
        }
        assert!(matches!(
            HouseBots::parse("a b:3", "3+2", 5),
            Err(HouseError::Name { .. })
        ));
        assert!(matches!(
            HouseBots::parse("Anuak:3", "3+2,5+0,10+0,15+10", 5),
            Err(HouseError::Clock(_))
        ));
        assert!(HouseBots::parse("", "3+2", 5).unwrap().is_empty());
    }
}
