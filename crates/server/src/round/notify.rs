//! What the rounds tell the rest of the server without knowing who listens: the lobby, which
//! sits above the rounds (it starts games through them), implements it. So `round` imports
//! nothing of `lobby`.

/// Whoever hears the rounds' news.
pub trait Listener: Send + Sync {
    /// `player` is to move in correspondence game `game`, against `opponent`: days may pass
    /// between moves, so they hear it wherever they are on the site.
    fn your_move(&self, player: &str, game: &str, opponent: Option<&str>);
    /// What other instances said on the channel the rounds listen to for them (PostgreSQL's
    /// `NOTIFY`), for the listener.
    fn heard_from_others(&self, payload: &str);
    /// The connection to the other instances was lost and is back: what they said meanwhile
    /// is gone.
    fn missed_others(&self);
}
