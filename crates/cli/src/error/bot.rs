//! Why `anywoli bot` stops, or gives up a game.

/// What went wrong between the bot, the server and the engine; each variant names the path,
/// status or program at fault.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error("the HTTP client: {0}")]
    Client(String),
    #[error("{path}: {message}")]
    Http { path: String, message: String },
    #[error("{path}: {status} {code}: {message}")]
    Refused {
        path: String,
        status: u16,
        /// What the server's `Retry-After` said, in seconds.
        retry_after: Option<u64>,
        code: String,
        message: String,
    },
    #[error("a stream: {0}")]
    Stream(String),
    #[error("the engine {0}")]
    Engine(String),
    #[error("{name} is not a BOT account: run with --upgrade (an account that has not played yet), or use another")]
    NotABot { name: String },
}

impl BotError {
    /// Whether asking again cannot help: the token, the scope or the game is wrong.
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            BotError::Refused {
                status: 401 | 403 | 404,
                ..
            }
        )
    }
}
