//! How a game's seats are held (its mode) and who sits in each.

/// How the seats are held.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// One person against the engine.
    Computer,
    /// Two people on two devices; each seat has its own secret.
    Friend,
    /// Two people on one screen: one secret holds both seats.
    Local,
}

impl Mode {
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Computer => "computer",
            Mode::Friend => "friend",
            Mode::Local => "local",
        }
    }

    pub fn from_name(s: &str) -> Option<Mode> {
        match s {
            "computer" => Some(Mode::Computer),
            "friend" => Some(Mode::Friend),
            "local" => Some(Mode::Local),
            _ => None,
        }
    }
}

/// Who sits in a seat.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Player {
    Human,
    Computer(u8),
}

impl Player {
    pub fn to_db(self) -> String {
        match self {
            Player::Human => "human".to_string(),
            Player::Computer(l) => format!("level:{l}"),
        }
    }

    pub fn from_db(s: &str) -> Option<Player> {
        if s == "human" {
            return Some(Player::Human);
        }
        let level: u8 = s.strip_prefix("level:")?.parse().ok()?;
        (1..=10).contains(&level).then_some(Player::Computer(level))
    }
}
