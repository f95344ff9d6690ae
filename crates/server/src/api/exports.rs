//! `GET /api/games/user/{name}`: a player's finished games, streamed as records
//! (docs/record-format.md) or as NDJSON, newest first, as lichess's game export
//! (docs/api-bots.md, "Exports"). The store is read one page at a time on a blocking thread
//! that writes into the response's small channel, so an export of 100,000 games holds one page
//! and a few lines in memory, and stops as soon as its client hangs up.

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::bot::form::Flat;
use super::bot::stream;
use crate::account::key_of;
use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::exports::{each_game, Format, MAX_GAMES};
use crate::rating::Category;
use crate::store::ExportFilter;

/// The query's keys.
const KEYS: [&str; 7] = [
    "since", "until", "max", "rated", "variant", "perfType", "format",
];

/// What the query asks for.
pub fn filter_of(
    query: Option<&str>,
    name: String,
) -> ApiResult<(ExportFilter, usize, Option<Format>)> {
    let q = Flat::parse(None, query.unwrap_or("").as_bytes())?;
    if let Some(k) = q.0.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(ApiError::malformed(format!(
            "unknown query parameter '{}': the filters are since, until, max, rated, variant, \
             perfType and format",
            k.chars().take(40).collect::<String>()
        )));
    }
    let max = match q.int("max")? {
        None => MAX_GAMES,
        Some(m) if (1..=MAX_GAMES as i64).contains(&m) => m as usize,
        Some(_) => {
            return Err(ApiError::malformed(format!(
                "max: from 1 to {MAX_GAMES} games an export"
            )))
        }
    };
    let categories = match q.get("perfType") {
        None => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|c| {
                Category::ALL
                    .into_iter()
                    .find(|k| k.name() == c.trim())
                    .map(|k| k.name().to_string())
                    .ok_or_else(|| {
                        ApiError::malformed(format!(
                            "perfType: '{}' is none of bullet, blitz, rapid, classical, \
                             correspondence",
                            c.chars().take(20).collect::<String>()
                        ))
                    })
            })
            .collect::<ApiResult<_>>()?,
    };
    let rules = match q.get("variant") {
        None => None,
        Some(v) => Some(
            anywoli_core::Rules::from_name(v, 0)
                .map_err(|e| ApiError::malformed(format!("variant: {e}")))?
                .name()
                .to_string(),
        ),
    };
    let format = match q.get("format") {
        None => None,
        Some("record") => Some(Format::Record),
        Some("ndjson") => Some(Format::Ndjson),
        Some(f) => {
            return Err(ApiError::malformed(format!(
                "format: '{}' is neither record nor ndjson",
                f.chars().take(20).collect::<String>()
            )))
        }
    };
    let f = ExportFilter {
        player: Some(name),
        since: q.int("since")?,
        until: q.int("until")?,
        rated: q.bool("rated")?,
        rules,
        categories,
    };
    Ok((f, max, format))
}

pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/games/user/{name}", axum::routing::get(user_games))
}

/// `GET /api/games/user/{name}?since=&until=&max=&rated=&variant=&perfType=&format=`; NDJSON
/// also by `Accept: application/x-ndjson`.
pub async fn user_games(
    State(st): State<AppState>,
    Path(name): Path<String>,
    client: ClientIp,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    let key = key_of(&name);
    let account = st.db(move |s| s.account(&key)).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownPlayer,
            format!(
                "no player is called '{}'",
                name.chars().take(40).collect::<String>()
            ),
        )
    })?;
    let (filter, max, format) = filter_of(query.as_deref(), account.name.clone())?;
    let wants_ndjson = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/x-ndjson"));
    let format = format.unwrap_or(if wants_ndjson {
        Format::Ndjson
    } else {
        Format::Record
    });
    client.check(&st.limiters().care, "exports")?;
    let permit = st.exports().admit(client.0)?;
    let (writer, mut resp) = stream::open(permit);
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    let ext = match format {
        Format::Record => "anywoli",
        Format::Ndjson => "ndjson",
    };
    // The name is an account's (letters, digits, `_` and `-`): safe in a header.
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"anywoli-{}.{ext}\"",
        account.name
    )) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    let store = st.store().clone();
    tokio::task::spawn_blocking(move || {
        let r = each_game(&store, &filter, max, |g| {
            writer.blocking_text(format.write(&g))
        });
        if let Err(e) = r {
            // The answer has begun: the stream ends short, and the log says why.
            tracing::warn!("an export of {}'s games stopped: {e}", account.name);
        }
    });
    Ok(resp)
}
