//! Following players (issue 38, docs/api-players.md "Follows"): follow and unfollow a player,
//! and the list of those one follows with whether each is online and the game they play.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::account::key_of;
use crate::api::client::ClientIp;
use crate::api::extract::{not_logged_in, Authed, Viewer};
use crate::app::AppState;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::rate_limit::account_key;
use crate::store::Followed;

/// The most players one account follows (the list is read whole on every look).
pub const MAX_FOLLOWING: i64 = 400;
/// Counts a follow or an unfollow of `account` from `client` (refused past either limit).
fn counted(st: &AppState, client: ClientIp, account: &str) -> ApiResult<()> {
    let limits = st.follow_limits();
    client.check(&limits.by_client, "follows")?;
    ClientIp(Some(account_key(account))).check(&limits.by_account, "follows")
}

/// The other account of a follow or unfollow by `me`, by any spelling of its name; not
/// oneself. The request counts against the limits first.
async fn other(st: &AppState, client: ClientIp, me: &str, name: &str) -> ApiResult<String> {
    counted(st, client, me)?;
    let key = key_of(name);
    let found = st.db(move |s| s.account(&key)).await?;
    let Some(a) = found else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownPlayer,
            format!(
                "no player is called '{}'",
                name.chars().take(40).collect::<String>()
            ),
        ));
    };
    if a.name == me {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::NotAllowed,
            "you cannot follow yourself",
        ));
    }
    Ok(a.name)
}

/// `POST /api/players/{name}/follow`: `{"following": true}`, whether new or not.
pub async fn follow(
    State(st): State<AppState>,
    Authed(me): Authed,
    client: ClientIp,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    let them = other(&st, client, &me.name, &name).await?;
    let who = me.name.clone();
    match st.db(move |s| s.follow(&who, &them, MAX_FOLLOWING)).await? {
        Followed::New | Followed::Already => Ok(Json(json!({ "following": true }))),
        Followed::TooMany { max } => Err(ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::TooManyFollows,
            format!("you follow {max} players already: unfollow one first"),
        )),
        Followed::Blocked => Err(ApiError::blocked("follow this player")),
    }
}

/// `POST /api/players/{name}/unfollow`: `{"following": false}`, whether followed before or not.
pub async fn unfollow(
    State(st): State<AppState>,
    Authed(me): Authed,
    client: ClientIp,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    let them = other(&st, client, &me.name, &name).await?;
    let who = me.name.clone();
    st.db(move |s| s.unfollow(&who, &them)).await?;
    Ok(Json(json!({ "following": false })))
}

/// `GET /api/account/following`: `{"following": [{"name", "since", "online", "playing"}]}`,
/// most recently followed first.
pub async fn following(State(st): State<AppState>, viewer: Viewer) -> ApiResult<Json<Value>> {
    let me = viewer.name().ok_or_else(not_logged_in)?.to_string();
    let now = crate::dates::now_ms();
    let rows = st.db(move |s| s.following(&me, now)).await?;
    let list: Vec<Value> = rows
        .iter()
        .map(|f| json!({"name": f.name, "since": f.at, "online": f.online, "playing": f.playing}))
        .collect();
    Ok(Json(json!({ "following": list })))
}

/// The routes of follows (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/players/{name}/follow", post(follow))
        .route("/players/{name}/unfollow", post(unfollow))
        .route("/account/following", get(following))
}
