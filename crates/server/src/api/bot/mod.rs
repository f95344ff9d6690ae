//! The API of programs (docs/api-bots.md), shaped as lichess's Bot and Board APIs so that
//! programs written for lichess need little change: the account's event stream (`events.rs`),
//! a game's stream (`game.rs`), playing (`play.rs`), challenges (`challenge.rs`), all with a
//! personal token (crate::api::bearer); the shapes of what they answer are `lichess.rs`'s,
//! the streams' plumbing `stream.rs`'s, the form bodies `form.rs`'s.
//!
//! `/api/bot/…` is for BOT accounts (`bot:play`); `/api/board/…`, the same calls, for people
//! playing their own games through another program (`board:play`).

pub mod challenge;
pub mod events;
pub mod form;
pub mod game;
pub mod lichess;
pub mod play;
pub mod seek;
pub mod stream;

use anywoli_core::Side;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::account::key_of;
use crate::account::token::Scope;
use crate::api::bearer::Bearer;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::round::game::Game;
use crate::store::Upgraded;

/// Which of the two APIs a call came by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Bot,
    Board,
}

impl Api {
    pub fn of(bot: bool) -> Api {
        if bot {
            Api::Bot
        } else {
            Api::Board
        }
    }

    /// The token must have the API's scope, and the account be a BOT (`/api/bot`) or not
    /// (`/api/board`).
    pub async fn check(self, st: &AppState, bearer: &Bearer) -> ApiResult<()> {
        let scope = match self {
            Api::Bot => Scope::BotPlay,
            Api::Board => Scope::BoardPlay,
        };
        bearer.require(scope)?;
        let name = bearer.name.clone();
        let bot = st.db(move |s| s.is_bot(&name)).await?;
        match (self, bot) {
            (Api::Bot, false) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::NotABot,
                "this is the Bot API, for BOT accounts: upgrade the account first \
                 (POST /api/bot/account/upgrade) or play through /api/board/…",
            )),
            (Api::Board, true) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::NotAllowed,
                "a BOT account plays through the Bot API (/api/bot/…), not the Board API",
            )),
            _ => Ok(()),
        }
    }
}

/// The game `id` as it stands, the seat `name` holds in it and that seat's secret, or
/// `403 not_your_seat`.
pub async fn seat_of(st: &AppState, id: &str, name: &str) -> ApiResult<(Game, Side, String)> {
    let g = st.rounds().snapshot(id).await?;
    let side = Side::ALL
        .into_iter()
        .find(|s| g.people.accounts[*s].as_deref() == Some(name));
    let seat = side.and_then(|s| g.secrets()[s].clone().map(|secret| (s, secret)));
    match seat {
        Some((side, secret)) => Ok((g, side, secret)),
        None => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::NotYourSeat,
            "this account holds no seat in that game",
        )),
    }
}

/// The game's chat as the player of `side` reads and writes it.
pub async fn seated_reader(
    st: &AppState,
    g: &Game,
    name: &str,
    side: Side,
    client: crate::api::client::ClientIp,
) -> ApiResult<crate::chat::reader::Reader> {
    let ip = client
        .0
        .map_or_else(|| "-".to_string(), |ip| ip.to_string());
    let mut r = crate::chat::reader::Reader::open(
        st.chat().clone(),
        st.rounds().clone(),
        g,
        Some(name.to_string()),
        ip,
    )
    .await?;
    r.seated(side);
    Ok(r)
}

/// `POST /api/bot/account/upgrade` (`bot:play`): the account becomes a BOT, for good, if it
/// has played no game yet.
pub async fn upgrade(State(st): State<AppState>, bearer: Bearer) -> ApiResult<Json<Value>> {
    bearer.require(Scope::BotPlay)?;
    let name = bearer.name.clone();
    match st.db(move |s| s.upgrade_to_bot(&name, now_ms())).await? {
        Upgraded::New | Upgraded::Already => Ok(Json(json!({"ok": true}))),
        Upgraded::HasGames => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::CannotUpgrade,
            "only an account that has played no game yet can become a BOT",
        )),
    }
}

/// `GET /api/account` with a token: `{id, username, title}`, as lichess answers it (the page's
/// session answer is crate::api::account::me's).
pub async fn token_account(st: &AppState, bearer: &Bearer) -> ApiResult<Json<Value>> {
    let name = bearer.name.clone();
    let bot = st.db(move |s| s.is_bot(&name)).await?;
    Ok(Json(json!({
        "id": key_of(&bearer.name),
        "username": bearer.name,
        "title": bot.then_some("BOT"),
        "scopes": bearer.scopes.names(),
    })))
}

/// `GET /api/account/playing` (any scope): the account's games in play, as the event
/// stream's `gameStart` names them, under `nowPlaying` (lichess's shape).
pub async fn playing(State(st): State<AppState>, bearer: Bearer) -> ApiResult<Json<Value>> {
    let name = bearer.name.clone();
    let ids = st.db(move |s| s.playing_of(&name, 200)).await?;
    let mut now = Vec::new();
    for id in ids {
        let Ok(g) = st.rounds().snapshot(&id).await else {
            continue;
        };
        let names: Vec<String> = g.people.accounts.iter().flatten().cloned().collect();
        let bots = st.db(move |s| s.bots_among(&names)).await?;
        now.push(lichess::game_event(&g, &bearer.name, &bots, now_ms()));
    }
    Ok(Json(json!({ "nowPlaying": now })))
}

/// The routes (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    let r = axum::Router::new()
        .route("/bot/account/upgrade", post(upgrade))
        .route("/account/playing", get(playing))
        .route("/stream/event", get(events::stream_event))
        .route("/bot/game/stream/{id}", get(game::bot_stream))
        .route("/board/game/stream/{id}", get(game::board_stream))
        .route("/challenge/{name}", post(challenge::create))
        .route("/challenge/{id}/accept", post(challenge::accept))
        .route("/challenge/{id}/decline", post(challenge::decline))
        .route("/challenge/{id}/cancel", post(challenge::cancel))
        .route("/board/seek", post(seek::seek));
    let r = with_play::<true>(r, "bot");
    with_play::<false>(r, "board")
}

/// The routes that play a game, under `/api/{api}/game/{id}/…`.
fn with_play<const BOT: bool>(r: axum::Router<AppState>, api: &str) -> axum::Router<AppState> {
    use axum::routing::post;
    let at = |tail: &str| format!("/{api}/game/{{id}}/{tail}");
    r.route(&at("move/{mv}"), post(play::moved::<BOT>))
        .route(&at("resign"), post(play::resign::<BOT>))
        .route(&at("abort"), post(play::abort::<BOT>))
        .route(&at("chat"), post(play::chat::<BOT>))
        .route(&at("draw/{answer}"), post(play::draw::<BOT>))
        .route(&at("takeback/{answer}"), post(play::takeback::<BOT>))
        .route(&at("claim-victory"), post(play::claim::<BOT>))
}
