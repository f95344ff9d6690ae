//! The director: every second, on every instance, each tournament with work to do is leased
//! (one instance at a time directs it; another takes over within [`LEASE_MS`] of its death),
//! planned from the stored state (`plan.rs`) and stepped in one transaction (`store::Step`),
//! after which the new games' rounds start here.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use anywoli_core::{BySide, Position, Rules, Side};

use super::plan::{plan, Plan};
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult};
use crate::ids::{new_id, new_secret, random_bytes};
use crate::rating::{GameRatings, Rating};
use crate::round::clock::TimeControl;
use crate::round::game::{Game, Mode, NewGame, People, Player};
use crate::round::Rounds;
use crate::store::{NewGame as StoredGame, Step, Store, StoreError, TournamentState};

/// How long a director's lease holds: past it, another instance directs the tournament.
pub const LEASE_MS: i64 = 5_000;
/// How often each instance looks for tournaments with work to do.
pub const TICK: Duration = Duration::from_secs(1);
/// Ticks with a tournament running between two returns of freed memory to the system.
const TRIM_EVERY_TICKS: u64 = 5;

/// What the director needs: the store, the rounds (to start the games it makes), and how long
/// a minute is (60,000 ms but for tests of whole tournaments).
#[derive(Clone)]
pub struct Director {
    pub store: Arc<Store>,
    pub rounds: Weak<Rounds>,
    pub minute_ms: i64,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Where players hear of their next game, wherever they are on the site.
    pub lobby: Arc<crate::lobby::Lobby>,
}

impl Director {
    async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> ApiResult<T> {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || f(&store)).await {
            Ok(r) => r.map_err(ApiError::from),
            Err(e) => Err(ApiError::storage(format!(
                "the director's task failed: {e}"
            ))),
        }
    }

    /// Runs until the rounds are dropped (the server stops).
    pub async fn run(self) {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut ticks: u64 = 0;
        loop {
            tick.tick().await;
            if self.rounds.upgrade().is_none() {
                return;
            }
            match self.tick().await {
                // Each second a running tournament's whole state is read and its standings
                // computed, here and for its pages, in sizes that grow with its games: glibc
                // keeps what they free in its arenas, and a 500-player arena's server grew
                // by 4 MiB a second. Handing it back every few seconds keeps it flat.
                Ok(true) => {
                    ticks += 1;
                    if ticks.is_multiple_of(TRIM_EVERY_TICKS) {
                        let _ = tokio::task::spawn_blocking(crate::memory::give_back).await;
                    }
                }
                Ok(false) => {}
                Err(e) => tracing::warn!("tournaments: {}", e.message),
            }
        }
    }

    /// One pass over the tournaments with work to do: whether any was running or due.
    pub async fn tick(&self) -> ApiResult<bool> {
        let now = now_ms();
        let made = self.db(move |s| super::schedule::fire_due(s, now)).await?;
        if made > 0 {
            tracing::info!("tournaments: {made} made by their schedules");
        }
        let active = self.db(move |s| s.tournaments_active(now)).await?;
        let any = !active.is_empty();
        let me = self.store.instance().to_string();
        for (id, _) in active {
            let (key, owner) = (id.clone(), me.clone());
            let now = now_ms();
            let held = self
                .db(move |s| s.lease_tournament(&key, &owner, now, now + LEASE_MS))
                .await?;
            if held {
                if let Err(e) = self.step(&id, now).await {
                    tracing::warn!("tournament {id}: {}", e.message);
                }
            }
        }
        Ok(any)
    }

    /// Plans and takes tournament `id`'s next step at `now`, holding its lease.
    async fn step(&self, id: &str, leased: i64) -> ApiResult<()> {
        let began = std::time::Instant::now();
        let key = id.to_string();
        let (state, unsettled) = self
            .db(move |s| {
                let state = s.tournament_state(&key)?;
                let unsettled = s.tournament_unsettled(&key)?;
                Ok((state, unsettled))
            })
            .await?;
        let Some(state) = state else { return Ok(()) };
        // The time of the step is after the read: a game settled by it ended before its
        // players' next games start (the lease, taken at `leased`, holds for seconds more).
        let now = now_ms().max(leased);
        let plan = plan(&state, &unsettled, now, self.minute_ms)
            .map_err(|e| ApiError::storage(format!("cannot pair: {e}")))?;
        if plan.is_empty() {
            return Ok(());
        }
        let games = self.games_for(&state, &plan, now).await?;
        let step = Step {
            tournament: id.to_string(),
            owner: self.store.instance().to_string(),
            now,
            settled: plan.settled,
            states: plan.states,
            games: games
                .iter()
                .zip(&plan.pairs)
                .map(|(g, (south, north, round))| StoredGame {
                    row: g.to_row(),
                    round: *round,
                    south: south.clone(),
                    north: north.clone(),
                })
                .collect(),
            missed: plan.missed,
            progress: plan.progress,
        };
        let made = self.db(move |s| s.tournament_step(step)).await;
        match made {
            Ok(()) => {
                self.metrics.tournament_step(began.elapsed());
                if let Some(rounds) = self.rounds.upgrade() {
                    for g in games {
                        self.tell_players(&state, &g);
                        rounds.adopt(g);
                    }
                }
                Ok(())
            }
            // Another instance took the lease, or a player was paired meanwhile: nothing was
            // written; the next tick plans again from what is stored.
            Err(e) if e.code == crate::error::ErrorCode::Stale => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Tells both players of `g` that it started (their lobby connections, on any instance).
    fn tell_players(&self, state: &TournamentState, g: &Game) {
        let names = [
            &g.people.accounts[Side::South],
            &g.people.accounts[Side::North],
        ];
        if let [Some(south), Some(north)] = names {
            for (me, opponent) in [(south, north), (north, south)] {
                self.lobby.tell(
                    me,
                    &crate::lobby::message::ServerMessage::TournamentGame {
                        game: g.id.clone(),
                        tournament: state.tournament.id.clone(),
                        name: state.tournament.name.clone(),
                        opponent: opponent.clone(),
                    },
                );
            }
        }
    }

    /// The games of `plan`'s pairs, with each player's rating as the game starts.
    async fn games_for(
        &self,
        state: &TournamentState,
        plan: &Plan,
        now: i64,
    ) -> ApiResult<Vec<Game>> {
        if plan.pairs.is_empty() {
            return Ok(Vec::new());
        }
        let t = &state.tournament;
        let clock = TimeControl::parse(&t.clock).map_err(|e| ApiError::storage(e.to_string()))?;
        let category = clock.category();
        let (id, cat, rules_name) = (t.id.clone(), category.name().to_string(), t.rules.clone());
        let ratings: HashMap<String, Rating> = self
            .db(move |s| s.entrants_ratings(&id, &cat, &rules_name))
            .await?
            .into_iter()
            .collect();
        let mut games = Vec::with_capacity(plan.pairs.len());
        for (south, north, round) in &plan.pairs {
            let seed = u64::from_le_bytes(random_bytes::<8>());
            let rules =
                Rules::from_name(&t.rules, seed).map_err(|e| ApiError::storage(e.to_string()))?;
            let accounts = BySide::new(Some(south.clone()), Some(north.clone()));
            let mut start = GameRatings::default();
            for side in Side::ALL {
                if let Some(name) = &accounts[side] {
                    let r = ratings.get(name).copied().unwrap_or(Rating::DEFAULT);
                    start.start[side] = Some(r.into());
                }
            }
            let mut game = Game::new(NewGame {
                id: new_id(),
                at: now,
                mode: Mode::Friend,
                rules,
                players: BySide::both(Player::Human),
                secrets: BySide::new(Some(new_secret()), Some(new_secret())),
                start: Position::start(rules),
                hints: false,
                invite: None,
                clock: Some(clock),
                people: People {
                    accounts,
                    rated: t.rated,
                    public: true,
                    ratings: start,
                },
            });
            game.tags = vec![
                ("Event".to_string(), t.name.clone()),
                ("Tournament".to_string(), t.id.clone()),
                ("Round".to_string(), round.to_string()),
            ];
            let bots: Vec<String> = state
                .entries
                .iter()
                .filter(|e| e.bot)
                .map(|e| e.account.clone())
                .collect();
            game.set_bot_titles(&bots);
            // Berserk is an arena's, and never a bot's (issue 39).
            if t.system == "arena"
                && !state
                    .entries
                    .iter()
                    .any(|e| e.bot && (e.account == *south || e.account == *north))
            {
                game.set_berserk_tag(String::new());
            }
            games.push(game);
        }
        Ok(games)
    }
}
