//! A tournament's exports: its standings as CSV and its games as records.

use axum::extract::{Path, State};
use axum::response::Response;

use super::state_of;
use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::error::ApiResult;
use crate::tournaments::view;

/// Games one export holds at most (a three-hour arena of 500 players plays fewer).
const EXPORT_GAMES: usize = 20_000;

fn download(body: String, content_type: &'static str, file: String) -> Response {
    use axum::http::{header, HeaderValue};
    use axum::response::IntoResponse;
    let mut resp = ([(header::CONTENT_TYPE, content_type)], body).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        resp.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

/// A CSV field: quoted when it must be, and never read as a formula by a spreadsheet.
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// `GET /api/tournaments/{id}/standings.csv`: the whole standings as CSV.
pub async fn standings_csv(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "exports")?;
    let c = state_of(&st, &id).await?;
    let mut out = String::from(
        "rank,name,rating,score,games,wins,draws,losses,performance,buchholz,sonneborn_berger,state\n",
    );
    for s in &c.standings {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            s.rank,
            csv_field(&s.id),
            s.rating,
            s.score,
            s.games,
            s.wins,
            s.draws,
            s.losses,
            s.performance.map_or(String::new(), |p| p.to_string()),
            s.buchholz,
            s.sonneborn_berger,
            view::state_of(&c.state, &s.id),
        ));
    }
    Ok(download(
        out,
        "text/csv; charset=utf-8",
        format!("tournament-{id}.csv"),
    ))
}

/// `GET /api/tournaments/{id}/games.txt`: every game played to its end, as records
/// (docs/record-format.md), one after the other.
pub async fn games_records(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "exports")?;
    let c = state_of(&st, &id).await?;
    let ids: Vec<String> = c
        .state
        .games
        .iter()
        .filter(|g| g.result.as_deref().is_some_and(|r| r != "aborted"))
        .take(EXPORT_GAMES)
        .map(|g| g.game.clone())
        .collect();
    let text = st
        .db(move |s| {
            let mut out = String::new();
            for id in ids {
                if let Some((row, moves)) = s.load(&id)? {
                    if let Ok(g) = crate::round::game::Game::from_row(row, &moves) {
                        out.push_str(&g.record().to_string());
                        out.push('\n');
                    }
                }
            }
            Ok(out)
        })
        .await?;
    Ok(download(
        text,
        "text/plain; charset=utf-8",
        format!("tournament-{id}.txt"),
    ))
}
