//! `anywoli bot`: brings an engine online as a BOT account, as lichess-bot does for lichess
//! (docs/api-bots.md, "anywoli bot"). It reads the account's event stream, accepts or declines
//! challenges by its rules (`rules.rs`), plays each game that starts on a task of its own
//! (`game.rs`) with an engine process speaking docs/protocol.md (the built-in one by default),
//! and reconnects with back-off whenever a stream breaks. With `--challenge NAME` it also
//! challenges a player, keeping `--concurrency` games going, until `--games` have finished.

mod client;
mod game;
mod rules;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::Value;
use tokio::task::JoinSet;

use crate::common::CmdResult;
use crate::error::BotError;
use client::Api;
use rules::{Accept, RatedChoice};

#[derive(Args, Clone)]
pub struct BotArgs {
    /// The server's address; several (repeated) for instances of one site: a server that
    /// cannot be reached is left for the next.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
    server: Vec<String>,
    /// The BOT account's token (with bot:play, and challenge:write to challenge); or set
    /// ANYWOLI_TOKEN, which keeps it out of the process list.
    #[arg(long, env = "ANYWOLI_TOKEN", hide_env_values = true)]
    token: String,
    /// The engine: a command line that speaks docs/protocol.md. The built-in engine when not
    /// given.
    #[arg(long, value_name = "CMD")]
    engine: Option<String>,
    /// Play at this level of the engine (1..10, `go level`) rather than searching for the
    /// time the clock allows.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=10))]
    level: Option<u8>,
    /// The longest think for one move, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    movetime_max: i64,
    /// Games at once; challenges past it are declined with `later`.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Rules accepted, comma-separated (anywoli, anywoli-first-final, anywoli-lottery,
    /// anywoli-it); all when not given.
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// Speeds accepted, comma-separated (bullet, blitz, rapid, classical, correspondence);
    /// all when not given.
    #[arg(long, value_delimiter = ',')]
    speeds: Vec<String>,
    /// Rated games, casual ones, or both.
    #[arg(long, value_enum, default_value_t = RatedChoice::Both)]
    rated: RatedChoice,
    /// The lowest challenger's rating accepted.
    #[arg(long)]
    min_rating: Option<i64>,
    /// The highest challenger's rating accepted.
    #[arg(long)]
    max_rating: Option<i64>,
    /// Decline challenges from other BOT accounts.
    #[arg(long)]
    no_bots: bool,
    /// Said in the players' chat as a game begins ({opponent}, {me}, {engine}); empty: none.
    #[arg(
        long,
        default_value = "Hello {opponent}! I am {me}, a bot running {engine}. Good luck!"
    )]
    greeting: String,
    /// Said as a game ends.
    #[arg(long, default_value = "Thank you for the game, {opponent}!")]
    goodbye: String,
    /// Make the account a BOT first (it must not have played a game yet).
    #[arg(long)]
    upgrade: bool,
    /// Challenge this player, keeping --concurrency games going.
    #[arg(long, value_name = "NAME")]
    challenge: Option<String>,
    /// The clock of those challenges, as the site writes it (`3+2`: minutes and seconds
    /// added a move).
    #[arg(long, default_value = "3+2")]
    challenge_clock: String,
    /// Make those challenges rated.
    #[arg(long)]
    challenge_rated: bool,
    /// Stop once this many games have finished (0: never).
    #[arg(long, default_value_t = 0)]
    games: usize,
}

/// Waits between attempts that grow from 0.5 s to 30 s, and back to the start after a
/// success.
#[derive(Default)]
pub struct Backoff(u32);

impl Backoff {
    pub fn peek(&self) -> Duration {
        Duration::from_millis((500u64 << self.0.min(6)).min(30_000))
    }

    pub async fn wait(&mut self) {
        tokio::time::sleep(self.peek()).await;
        self.0 += 1;
    }

    pub fn reset(&mut self) {
        self.0 = 0;
    }
}

pub fn run(args: &BotArgs) -> CmdResult {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BotError::Client(e.to_string()))?;
    rt.block_on(run_async(args.clone()))?;
    Ok(())
}

/// The engine's command line: `--engine`, or this program's own `engine`.
fn engine_argv(args: &BotArgs) -> Result<(Vec<String>, String), BotError> {
    match &args.engine {
        Some(cmd) => {
            let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
            if argv.is_empty() {
                return Err(BotError::Client("--engine is empty".to_string()));
            }
            Ok((argv.clone(), argv[0].clone()))
        }
        None => {
            let exe = std::env::current_exe().map_err(|e| BotError::Client(e.to_string()))?;
            let name = match args.level {
                Some(l) => format!("the Anywoli engine at level {l}"),
                None => "the Anywoli engine".to_string(),
            };
            Ok((vec![exe.display().to_string(), "engine".to_string()], name))
        }
    }
}

async fn run_async(args: BotArgs) -> Result<(), BotError> {
    let api = Api::new(&args.server, &args.token)?;
    // The account is read from the first server that answers.
    let mut tries = 0;
    let account = loop {
        let read = async {
            if args.upgrade {
                api.post("/api/bot/account/upgrade", &[]).await?;
            }
            api.get("/api/account").await
        };
        match read.await {
            Ok(a) => break a,
            Err(e) if e.is_final() || tries + 1 >= args.server.len() * 3 => return Err(e),
            Err(_) => tries += 1,
        }
    };
    let me = account["id"].as_str().unwrap_or_default().to_string();
    let name = account["username"].as_str().unwrap_or_default().to_string();
    if account["title"] != "BOT" {
        return Err(BotError::NotABot {
            name: account["username"].as_str().unwrap_or("?").to_string(),
        });
    }
    let (argv, engine_name) = engine_argv(&args)?;
    let ctx = Arc::new(game::Ctx {
        api: api.clone(),
        me: me.clone(),
        name: name.clone(),
        argv,
        level: args.level,
        max_ms: args.movetime_max.max(10),
        greeting: args.greeting.clone(),
        goodbye: args.goodbye.clone(),
        engine_name,
    });
    let accept = Accept {
        variants: args.variants.clone(),
        speeds: args.speeds.clone(),
        rated: args.rated,
        min_rating: args.min_rating,
        max_rating: args.max_rating,
        bots: !args.no_bots,
        concurrency: args.concurrency.max(1),
    };
    eprintln!("{name}: online at {}", args.server.join(" "));
    Bot {
        args,
        api,
        ctx,
        accept,
        running: HashSet::new(),
        tasks: JoinSet::new(),
        finished: 0,
        asked: 0,
    }
    .run()
    .await
}

/// The bot's state between events.
struct Bot {
    args: BotArgs,
    api: Api,
    ctx: Arc<game::Ctx>,
    accept: Accept,
    /// Games being played, by id.
    running: HashSet<String>,
    tasks: JoinSet<(String, Result<game::Ended, BotError>)>,
    finished: usize,
    /// Challenges sent and not yet answered (`--challenge`).
    asked: usize,
}

impl Bot {
    fn done(&self) -> bool {
        self.args.games > 0 && self.finished >= self.args.games
    }

    async fn run(&mut self) -> Result<(), BotError> {
        let mut backoff = Backoff::default();
        while !self.done() {
            let mut lines = match self.api.stream("/api/stream/event").await {
                Ok(l) => l,
                Err(e) if e.is_final() => return Err(e),
                Err(e) => {
                    eprintln!("events: {e}; again in {:?}", backoff.peek());
                    backoff.wait().await;
                    continue;
                }
            };
            backoff.reset();
            self.challenge_more().await;
            while !self.done() {
                tokio::select! {
                    line = lines.next() => match line {
                        Ok(Some(v)) => self.event(&v).await,
                        Ok(None) => break,
                        Err(e) => {
                            eprintln!("events: {e}");
                            break;
                        }
                    },
                    Some(r) = self.tasks.join_next(), if !self.tasks.is_empty() => {
                        self.game_over(r);
                        self.challenge_more().await;
                    }
                }
            }
            if !self.done() {
                backoff.wait().await;
            }
        }
        // The games still going are played to their end.
        while let Some(r) = self.tasks.join_next().await {
            self.game_over(r);
        }
        Ok(())
    }

    async fn event(&mut self, v: &Value) {
        match v["type"].as_str() {
            Some("challenge") => self.challenged(&v["challenge"]).await,
            Some("gameStart") => {
                let id = v["game"]["gameId"].as_str().unwrap_or_default().to_string();
                if !id.is_empty() && self.running.insert(id.clone()) {
                    self.asked = self.asked.saturating_sub(1);
                    eprintln!("game {id}: started");
                    let ctx = self.ctx.clone();
                    self.tasks.spawn(async move {
                        let r = game::play(ctx, id.clone()).await;
                        (id, r)
                    });
                }
            }
            Some("challengeDeclined") | Some("challengeCanceled") => {
                self.asked = self.asked.saturating_sub(1);
                // Declined (busy, say): asked again after a pause, not at once.
                tokio::time::sleep(Duration::from_secs(1)).await;
                self.challenge_more().await;
            }
            _ => {}
        }
    }

    async fn challenged(&mut self, c: &Value) {
        let id = c["id"].as_str().unwrap_or_default();
        if c["direction"] == "out" || id.is_empty() {
            return;
        }
        let who = c["challenger"]["name"].as_str().unwrap_or("?");
        match self.accept.decide(c, self.running.len() + self.asked) {
            Ok(()) => {
                eprintln!("challenge {id} from {who}: accepted");
                if let Err(e) = self
                    .api
                    .post(&format!("/api/challenge/{id}/accept"), &[])
                    .await
                {
                    eprintln!("challenge {id}: {e}");
                }
            }
            Err(why) => {
                eprintln!("challenge {id} from {who}: declined ({})", why.reason());
                let form = [("reason", why.reason().to_string())];
                let _ = self
                    .api
                    .post(&format!("/api/challenge/{id}/decline"), &form)
                    .await;
            }
        }
    }

    /// With `--challenge`, sends challenges until --concurrency games are going or asked
    /// for (and no more than --games in all).
    async fn challenge_more(&mut self) {
        let Some(name) = self.args.challenge.clone() else {
            return;
        };
        while self.running.len() + self.asked < self.accept.concurrency
            && (self.args.games == 0
                || self.finished + self.running.len() + self.asked < self.args.games)
        {
            let form = challenge_form(&self.args);
            match self
                .api
                .post(&format!("/api/challenge/{name}"), &form)
                .await
            {
                Ok(_) => self.asked += 1,
                Err(e) => {
                    eprintln!("challenging {name}: {e}");
                    return;
                }
            }
        }
    }

    fn game_over(
        &mut self,
        r: Result<(String, Result<game::Ended, BotError>), tokio::task::JoinError>,
    ) {
        let Ok((id, r)) = r else { return };
        self.running.remove(&id);
        self.finished += 1;
        match r {
            Ok(end) => eprintln!("game {id}: {} after {} plies", end.status, end.plies),
            Err(e) => eprintln!("game {id}: given up: {e}"),
        }
    }
}

/// The form of a challenge by `--challenge-clock` and `--challenge-rated`.
fn challenge_form(args: &BotArgs) -> Vec<(&'static str, String)> {
    let mut form = vec![("rated", args.challenge_rated.to_string())];
    if let Some((m, s)) = args.challenge_clock.split_once('+') {
        let seconds = match m {
            "0.25" => 15,
            "0.5" => 30,
            "0.75" => 45,
            m => m.parse::<i64>().unwrap_or(3) * 60,
        };
        form.push(("clock.limit", seconds.to_string()));
        form.push(("clock.increment", s.to_string()));
    } else if let Some(d) = args.challenge_clock.strip_suffix('d') {
        form.push(("days", d.to_string()));
    }
    form
}
