//! The 16-bit entry of the 8-seed database and what it says ([`Verdict`]).

/// The stored value of one position (South to move), 16 bits: 0 nobody can force a capture;
/// `1..=0x7fff` the side to move makes the next capture in that many plies; `0x8000 | d` the
/// opponent does, in `d` plies; [`INVALID`] not a position (the side to move has no seeds);
/// [`STUCK`] no move of the side to move ever ends (docs/rules.md, "A sowing that never ends";
/// none exists, see docs/tablebase.md).
pub type Entry = u16;
/// No side can force a capture.
pub const UNFORCED: Entry = 0;
/// Set when the opponent of the side to move makes the next capture; the low bits give its distance.
pub const LOSS_BIT: Entry = 0x8000;
/// Not a position: the side to move has no seeds.
pub const INVALID: Entry = 0xffff;
/// No move of the side to move ever ends.
pub const STUCK: Entry = 0xfffe;
/// Longest distance an entry can hold.
pub const MAX_DTC: u32 = 0x7ffd;

/// Who can force the next capture, from the side to move's point of view.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Verdict {
    /// The side to move makes the next capture, whatever the opponent does.
    Win,
    /// The opponent makes it, whatever the side to move does.
    Loss,
    /// Neither side can force a capture: left alone, the quiet rule ends the game.
    Unforced,
}

impl Verdict {
    pub(crate) fn of(e: Entry) -> Option<(Verdict, u16)> {
        match e {
            INVALID | STUCK => None,
            UNFORCED => Some((Verdict::Unforced, 0)),
            e if e & LOSS_BIT != 0 => Some((Verdict::Loss, e & !LOSS_BIT)),
            e => Some((Verdict::Win, e)),
        }
    }

    /// The lower-case word for the verdict: `win`, `loss` or `unforced`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Loss => "loss",
            Verdict::Unforced => "unforced",
        }
    }
}
