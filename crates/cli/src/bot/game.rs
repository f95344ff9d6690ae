//! One game of `anywoli bot`: its stream read to the end (opened again after a break, with
//! back-off, so that a restarted server or another instance carries on), the engine asked
//! for a move whenever it is the bot's turn, the greeting and the goodbye said, offers of a
//! draw or a take-back declined, and the win claimed from an opponent gone long enough.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anywoli_core::{parse_position, Move, Position, Rules, Side};
use anywoli_engine::protocol::{Command, EngineOption, Go};
use anywoli_engine::Limits;
use serde_json::Value;

use super::client::Api;
use super::rules::movetime_ms;
use super::Backoff;
use crate::error::BotError;
use crate::matches::external::{External, Turn};

/// What every game of a bot shares.
pub struct Ctx {
    pub api: Api,
    /// The account's id (its name in lower case).
    pub me: String,
    /// Its name as typed, for the chat.
    pub name: String,
    /// The engine's command line.
    pub argv: Vec<String>,
    /// `go level` at this level (`setoption name Level`), or plain timed searches.
    pub level: Option<u8>,
    /// The longest think, in ms.
    pub max_ms: i64,
    pub greeting: String,
    pub goodbye: String,
    /// A name for the engine in the greeting.
    pub engine_name: String,
}

/// How a game ended for the bot.
#[derive(Debug)]
pub struct Ended {
    pub status: String,
    pub plies: usize,
}

/// The game as its `gameFull` describes it.
#[derive(Clone)]
struct Setup {
    side: Side,
    start: Position,
    opponent: String,
}

/// The engine of one game.
struct Engine {
    ext: Arc<Mutex<External>>,
    rules: Option<Rules>,
}

pub async fn play(ctx: Arc<Ctx>, id: String) -> Result<Ended, BotError> {
    let options = ctx
        .level
        .map(|l| vec![Command::SetOption(EngineOption::Level(l))])
        .unwrap_or_default();
    let mut engine = Engine {
        ext: Arc::new(Mutex::new(External::with_options(
            ctx.argv.clone(),
            options,
        ))),
        rules: None,
    };
    let mut g = GameState::default();
    let mut backoff = Backoff::default();
    let path = format!("/api/bot/game/stream/{id}");
    loop {
        let mut lines = match ctx.api.stream(&path).await {
            Ok(l) => l,
            Err(e) if e.is_final() => return Err(e),
            Err(e) => {
                eprintln!("game {id}: {e}; again in {:?}", backoff.peek());
                backoff.wait().await;
                continue;
            }
        };
        loop {
            match lines.next().await {
                Ok(Some(v)) => {
                    backoff.reset();
                    if let Some(end) = g.heard(&ctx, &id, &mut engine, &v).await? {
                        return Ok(end);
                    }
                }
                // The stream ends after the game's last state; an end before it is a break.
                Ok(None) => break,
                Err(e) => {
                    eprintln!("game {id}: {e}");
                    break;
                }
            }
        }
        backoff.wait().await;
    }
}

/// What the game's loop remembers across messages and reconnections.
#[derive(Default)]
struct GameState {
    setup: Option<Setup>,
    greeted: bool,
    /// How many plies the game had when the bot last sent a move.
    moved_at: Option<usize>,
    /// The offers already declined, by the plies they were made at.
    declined: Vec<(String, usize)>,
}

impl GameState {
    /// Acts on one message of the stream: the game's end once it is over.
    async fn heard(
        &mut self,
        ctx: &Ctx,
        id: &str,
        engine: &mut Engine,
        v: &Value,
    ) -> Result<Option<Ended>, BotError> {
        match v["type"].as_str() {
            Some("gameFull") => {
                self.setup = Some(setup_of(ctx, v)?);
                if !self.greeted {
                    self.greeted = true;
                    let opponent = &self.setup.as_ref().expect("set").opponent;
                    say(ctx, id, &words(&ctx.greeting, ctx, opponent)).await;
                }
                self.state(ctx, id, engine, &v["state"]).await
            }
            Some("gameState") => self.state(ctx, id, engine, v).await,
            Some("opponentGone") => {
                if v["gone"] == true && v["claimWinInSeconds"].as_i64() == Some(0) {
                    let path = format!("/api/bot/game/{id}/claim-victory");
                    let _ = ctx.api.post(&path, &[]).await;
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    async fn state(
        &mut self,
        ctx: &Ctx,
        id: &str,
        engine: &mut Engine,
        state: &Value,
    ) -> Result<Option<Ended>, BotError> {
        let Some(setup) = self.setup.clone() else {
            return Ok(None);
        };
        let moves: Vec<Move> = state["moves"]
            .as_str()
            .unwrap_or("")
            .split_whitespace()
            .map(|m| m.parse())
            .collect::<Result<_, _>>()
            .map_err(|e| BotError::Stream(format!("game {id}: a move the server sent: {e}")))?;
        let status = state["status"].as_str().unwrap_or("started").to_string();
        if status != "started" {
            say(ctx, id, &words(&ctx.goodbye, ctx, &setup.opponent)).await;
            return Ok(Some(Ended {
                status,
                plies: moves.len(),
            }));
        }
        self.decline_offers(ctx, id, setup.side, state, moves.len())
            .await;
        let mut pos = setup.start;
        for m in &moves {
            pos.play(*m)
                .map_err(|e| BotError::Stream(format!("game {id}: the server's moves: {e}")))?;
        }
        if pos.to_move() != Some(setup.side) || self.moved_at == Some(moves.len()) {
            return Ok(None);
        }
        let (left, inc) = match setup.side {
            Side::South => (state["wtime"].as_i64(), state["winc"].as_i64()),
            Side::North => (state["btime"].as_i64(), state["binc"].as_i64()),
        };
        let ms = movetime_ms(left, inc.unwrap_or(0), ctx.max_ms);
        let mv = engine.choose(ctx, setup.start, &moves, pos, ms).await?;
        self.moved_at = Some(moves.len());
        let path = format!("/api/bot/game/{id}/move/{mv}");
        if let Err(e) = ctx.api.post_patiently(&path, &[]).await {
            // The next state says how the game stands (a move that came too late, a stale
            // position after a reconnection): the bot moves again if it is still its turn.
            eprintln!("game {id}: move {mv}: {e}");
            self.moved_at = None;
        }
        Ok(None)
    }

    /// Declines the opponent's draw offer or take-back request, once each.
    async fn decline_offers(&mut self, ctx: &Ctx, id: &str, me: Side, state: &Value, plies: usize) {
        let theirs = match me {
            Side::South => "b",
            Side::North => "w",
        };
        for kind in ["draw", "takeback"] {
            let offered = state[format!("{theirs}{kind}")] == true;
            let key = (kind.to_string(), plies);
            if offered && !self.declined.contains(&key) {
                self.declined.push(key);
                let path = format!("/api/bot/game/{id}/{kind}/no");
                match ctx.api.post(&path, &[]).await {
                    Ok(_) => eprintln!("game {id}: declined the {kind} offered at ply {plies}"),
                    Err(e) => eprintln!("game {id}: declining the {kind}: {e}"),
                }
            }
        }
    }
}

impl Engine {
    async fn choose(
        &mut self,
        ctx: &Ctx,
        start: Position,
        moves: &[Move],
        pos: Position,
        ms: i64,
    ) -> Result<Move, BotError> {
        let ext = self.ext.clone();
        let fresh = self.rules != Some(start.rules());
        self.rules = Some(start.rules());
        let moves = moves.to_vec();
        let time = Duration::from_millis(ms.max(1) as u64);
        let go = match ctx.level {
            Some(_) => Go::Level {
                movetime: Some(time),
            },
            None => Go::Search(Limits::movetime(time)),
        };
        tokio::task::spawn_blocking(move || {
            let mut e = ext.lock().unwrap_or_else(|p| p.into_inner());
            if fresh {
                e.new_game(start.rules())
                    .map_err(|f| BotError::Engine(f.to_string()))?;
            }
            let turn = Turn {
                start: &start,
                moves: &moves,
                pos: &pos,
            };
            e.choose_with(turn, go, time)
                .map_err(|f| BotError::Engine(f.to_string()))
        })
        .await
        .map_err(|e| BotError::Engine(e.to_string()))?
    }
}

/// The bot's side, the start and the opponent's name, from a `gameFull`.
fn setup_of(ctx: &Ctx, v: &Value) -> Result<Setup, BotError> {
    let side = if v["white"]["id"] == ctx.me.as_str() {
        Side::South
    } else if v["black"]["id"] == ctx.me.as_str() {
        Side::North
    } else {
        return Err(BotError::Stream(format!(
            "game {}: the bot holds neither seat",
            v["id"]
        )));
    };
    let rules = Rules::from_name(v["variant"]["key"].as_str().unwrap_or("anywoli"), 0)
        .map_err(|e| BotError::Stream(e.to_string()))?;
    let start = match v["initialFen"].as_str() {
        None | Some("startpos") => Position::start(rules),
        Some(text) => parse_position(text, rules).map_err(|e| BotError::Stream(e.to_string()))?,
    };
    let other = match side {
        Side::South => &v["black"],
        Side::North => &v["white"],
    };
    let opponent = other["name"].as_str().unwrap_or("Anonymous").to_string();
    Ok(Setup {
        side,
        start,
        opponent,
    })
}

/// A greeting or goodbye with `{opponent}`, `{me}` and `{engine}` filled in.
fn words(template: &str, ctx: &Ctx, opponent: &str) -> String {
    template
        .replace("{opponent}", opponent)
        .replace("{me}", &ctx.name)
        .replace("{engine}", &ctx.engine_name)
}

/// Says `text` in the players' room (nothing when empty; a refusal is only logged).
async fn say(ctx: &Ctx, id: &str, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    let form = [("room", "player".to_string()), ("text", text.to_string())];
    if let Err(e) = ctx
        .api
        .post(&format!("/api/bot/game/{id}/chat"), &form)
        .await
    {
        eprintln!("game {id}: chat: {e}");
    }
}
