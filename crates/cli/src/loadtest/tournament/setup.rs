//! Before the play: the accounts sign up, the first creates the tournament, everyone joins;
//! a Swiss is then started by its organiser once every bot watches it.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::{wall_ms, Player};
use crate::error::LoadtestError;
use crate::loadtest::args::{LoadtestArgs, TournamentSystem};
use crate::loadtest::ctx::Ctx;
use crate::loadtest::failover::{Auth, Req, Resend};

/// Signups at once: each costs the server a password hash (Argon2id, tens of ms of a core).
const SIGNUPS_AT_ONCE: usize = 8;
/// Entries at once.
const JOINS_AT_ONCE: usize = 32;
/// Every account's password.
const PASSWORD: &str = "loadtest-password";
/// A Swiss is made this far ahead, then started by its organiser once everyone is in.
const SWISS_AHEAD_MS: i64 = 10 * 60_000;
/// An arena stops pairing this long before its end at most (`ARENA_LAST_PAIRING_MS`).
const ARENA_LAST_PAIRING_MS: i64 = 30_000;

/// How long the setup took, for the report.
#[derive(Serialize, Clone, Copy)]
pub(in crate::loadtest) struct Timings {
    pub(in crate::loadtest) signups_s: f64,
    pub(in crate::loadtest) joins_s: f64,
}

pub(super) struct SetUp {
    pub(super) id: String,
    pub(super) players: Vec<Arc<Player>>,
    pub(super) pairing_until: i64,
    pub(super) timings: Timings,
}

/// Signs up `--players` accounts, creates the tournament and has everyone join it.
pub(super) async fn set_up(
    ctx: &Arc<Ctx>,
    args: &LoadtestArgs,
    system: TournamentSystem,
) -> Result<SetUp, LoadtestError> {
    let n = args.players.unwrap_or(2);
    let prefix = format!("lt{:04x}", rand::random::<u16>());
    let began = Instant::now();
    let players = sign_up_all(ctx, &prefix, n).await?;
    let signups_s = began.elapsed().as_secs_f64();

    let (id, pairing_until) = create(ctx, args, system, &players[0]).await?;
    let began = Instant::now();
    join_all(ctx, &players, &id).await?;
    let joins_s = began.elapsed().as_secs_f64();
    Ok(SetUp {
        id,
        players,
        pairing_until,
        timings: Timings {
            signups_s: round3(signups_s),
            joins_s: round3(joins_s),
        },
    })
}

pub(super) fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

async fn sign_up_all(
    ctx: &Arc<Ctx>,
    prefix: &str,
    n: usize,
) -> Result<Vec<Arc<Player>>, LoadtestError> {
    let gate = Arc::new(Semaphore::new(SIGNUPS_AT_ONCE));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let (ctx, gate) = (ctx.clone(), gate.clone());
        let name = format!("{prefix}{i}");
        tasks.spawn(async move {
            let _permit = gate.acquire().await;
            let target = i % ctx.targets.len();
            sign_up(&ctx, target, &name)
                .await
                .map(|auth| (i, auth, name, target))
        });
    }
    let mut players: Vec<Option<Arc<Player>>> = (0..n).map(|_| None).collect();
    while let Some(r) = tasks.join_next().await {
        let Ok(r) = r else { continue };
        let (i, auth, name, target) = r?;
        players[i] = Some(Arc::new(Player {
            name,
            auth,
            target: AtomicUsize::new(target),
        }));
    }
    Ok(players.into_iter().flatten().collect())
}

/// `POST /api/account/signup` on `target`: the session's cookie and CSRF token.
async fn sign_up(ctx: &Ctx, target: usize, name: &str) -> Result<Auth, LoadtestError> {
    let t = &ctx.targets[target];
    let body = json!({"name": name, "password": PASSWORD}).to_string();
    let headers = format!("Origin: {}\r\n", t.url);
    let fail = |what: String| {
        ctx.error(format!("signup: {what}"));
        LoadtestError::TournamentSetup(format!("signing up {name} on {}: {what}", t.url))
    };
    let (answer, _) = t
        .pool
        .request_with(
            "POST",
            "/api/account/signup",
            &headers,
            Some(body.as_bytes()),
            |_| {},
        )
        .await
        .map_err(|e| fail(e.kind()))?;
    let v: Value = serde_json::from_slice(&answer.body).unwrap_or_default();
    if answer.status != 201 && answer.status != 200 {
        let code = v["error"].as_str().unwrap_or("-");
        let hint = if answer.status == 429 {
            " (start the server with --logins-per-minute 0)"
        } else {
            ""
        };
        return Err(fail(format!("{} {code}{hint}", answer.status)));
    }
    let cookie = answer
        .set_cookies
        .iter()
        .find_map(|c| c.strip_prefix("anywoli_session="))
        .and_then(|c| c.split(';').next())
        .map(str::to_string)
        .ok_or_else(|| fail("no anywoli_session cookie".to_string()))?;
    let csrf = v["account"]["csrf"]
        .as_str()
        .ok_or_else(|| fail("no account.csrf".to_string()))?
        .to_string();
    Ok(Auth { cookie, csrf })
}

/// The organiser creates the tournament: its id, and (an arena) when its pairing stops.
async fn create(
    ctx: &Ctx,
    args: &LoadtestArgs,
    system: TournamentSystem,
    organiser: &Player,
) -> Result<(String, i64), LoadtestError> {
    let body = match system {
        TournamentSystem::Arena => json!({
            "name": "Loadtest arena",
            "system": "arena",
            "clock": "1+0",
            "rated": true,
            "minutes": args.minutes.unwrap_or(20),
        }),
        TournamentSystem::Swiss => json!({
            "name": "Loadtest Swiss",
            "system": "swiss",
            "clock": "1+0",
            "rated": true,
            "rounds": args.rounds.unwrap_or(5),
            "round_gap_s": 0,
            "starts_at": wall_ms() + SWISS_AHEAD_MS,
        }),
    };
    let v = organiser
        .call(
            ctx,
            Req::post(
                "create tournament",
                "/api/tournaments",
                body,
                Resend::Always,
            ),
        )
        .await
        .map_err(|()| {
            LoadtestError::TournamentSetup(
                "POST /api/tournaments failed (see the errors: start the server with \
                 --games-per-minute 0)"
                    .to_string(),
            )
        })?;
    let t = &v["tournament"];
    let id = t["id"]
        .as_str()
        .ok_or_else(|| LoadtestError::TournamentSetup(format!("no tournament id in {v}")))?
        .to_string();
    let pairing_until = match system {
        TournamentSystem::Swiss => i64::MAX,
        TournamentSystem::Arena => {
            let (starts, ends) = (t["starts_at"].as_i64(), t["ends_at"].as_i64());
            let minutes = t["minutes"].as_i64().unwrap_or(20).max(1);
            match (starts, ends) {
                // As the server does: half a minute before the end, or half a short minute.
                (Some(s), Some(e)) => e - ARENA_LAST_PAIRING_MS.min((e - s) / minutes / 2),
                _ => i64::MAX,
            }
        }
    };
    Ok((id, pairing_until))
}

/// Every player joins.
async fn join_all(ctx: &Arc<Ctx>, players: &[Arc<Player>], id: &str) -> Result<(), LoadtestError> {
    let gate = Arc::new(Semaphore::new(JOINS_AT_ONCE));
    let mut tasks = tokio::task::JoinSet::new();
    for p in players {
        let (ctx, gate, p) = (ctx.clone(), gate.clone(), p.clone());
        let path = format!("/api/tournaments/{id}/join");
        tasks.spawn(async move {
            let _permit = gate.acquire().await;
            p.call(&ctx, Req::post("join", &path, json!({}), Resend::Always))
                .await
        });
    }
    let mut failed = 0;
    while let Some(r) = tasks.join_next().await {
        if !matches!(r, Ok(Ok(_))) {
            failed += 1;
        }
    }
    if failed > 0 {
        return Err(LoadtestError::TournamentSetup(format!(
            "{failed} players could not join (see the errors)"
        )));
    }
    Ok(())
}

/// The organiser starts the Swiss now.
pub(super) async fn start(ctx: &Ctx, organiser: &Player, id: &str) -> Result<(), LoadtestError> {
    let path = format!("/api/tournaments/{id}/start");
    organiser
        .call(ctx, Req::post("start", &path, json!({}), Resend::Always))
        .await
        .map(|_| ())
        .map_err(|()| LoadtestError::TournamentSetup(format!("POST {path} failed")))
}

/// A pause before trying a socket again: 100 ms, doubling to 2 s.
pub(super) fn backoff(tries: u32) -> Duration {
    Duration::from_millis(100u64 << tries.min(4)).min(Duration::from_secs(2))
}
