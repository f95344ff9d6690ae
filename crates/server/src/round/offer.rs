//! What one player may offer the other (a draw, a take-back), as held and as stored.

use anywoli_core::Side;

/// What one player may ask the other to agree to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferKind {
    Draw,
    TakeBack,
}

impl OfferKind {
    pub fn name(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::TakeBack => "takeback",
        }
    }

    pub fn from_name(s: &str) -> Option<OfferKind> {
        match s {
            "draw" => Some(OfferKind::Draw),
            "takeback" => Some(OfferKind::TakeBack),
            _ => None,
        }
    }
}

/// An offer waiting for the other player's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub kind: OfferKind,
    pub by: Side,
}

impl Offer {
    /// `draw:south`, as stored.
    pub fn to_db(self) -> String {
        format!("{}:{}", self.kind.name(), side_word(self.by))
    }

    pub fn from_db(s: &str) -> Option<Offer> {
        let (kind, by) = s.split_once(':')?;
        let by = match by {
            "south" => Side::South,
            "north" => Side::North,
            _ => return None,
        };
        Some(Offer {
            kind: OfferKind::from_name(kind)?,
            by,
        })
    }
}

fn side_word(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}
