//! What the rounds tell the rest of the server without knowing who listens: the lobby, which
//! sits above the rounds (it starts games through them), implements it. So `round` imports
//! nothing of `lobby`.

/// Whoever hears the rounds' news.
pub trait Listener: Send + Sync {
    /// `player` is to move in correspondence game `game`, against `opponent`: days may pass
    /// between moves, so they hear it wherever they are on the site.
    fn your_move(&self, player: &str, game: &str, opponent: Option<&str>);
    /// Game `game`, with `player` in a seat, began (a programs' event stream says
    /// `gameStart`: docs/api-bots.md).
    fn game_started(&self, player: &str, game: &str);
    /// Game `game`, with `player` in a seat, is over (`gameFinish`).
    fn game_finished(&self, player: &str, game: &str);
    /// What other instances said on the channel the rounds listen to for them (PostgreSQL's
    /// `NOTIFY`), for the listener.
    fn heard_from_others(&self, payload: &str);
    /// The connection to the other instances was lost and is back: what they said meanwhile
    /// is gone.
    fn missed_others(&self);
}
