//! Why a game refuses a request, each reason with the words the player reads and the stable
//! error code and status the API answers with (docs/api.md, "Errors").

use anywoli_core::{PlayError, Side};
use axum::http::StatusCode;

use crate::error::{ApiError, ErrorCode};
use crate::round::game::OfferKind;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("this seat secret holds no seat in this game")]
    WrongSecret,
    #[error("the game is over")]
    GameOver,
    #[error("the move was sent after move {sent}, but the game is at move {now}: reload it")]
    Stale { sent: usize, now: usize },
    #[error("it is {to_move}'s turn, and your seat is {}", to_move.opponent())]
    NotYourTurn { to_move: Side },
    #[error("{0}")]
    IllegalMove(PlayError),
    #[error("your time ran out before the move arrived: the game is over")]
    OutOfTime,
    #[error("offers are between two people; against the computer or on one screen a move is taken back at once")]
    OffersBetweenPeople,
    #[error("{by} has a {} offer waiting: answer it first", kind.name())]
    OfferWaiting { by: Side, kind: OfferKind },
    #[error("there is no move of yours to take back")]
    NoMoveOfYours,
    #[error("there is no offer to answer")]
    NoOffer,
    #[error("the offer is yours: the other player accepts it")]
    OfferIsYours,
    #[error("there is no move to take back")]
    NoMoveToTakeBack,
    #[error("in a correspondence game the clock decides: the win comes when the other player's days run out")]
    ClockDecides,
    #[error("{other} is here")]
    OpponentHere { other: Side },
    #[error("{other} left {} s ago: the win can be claimed once they have been away {} s", gone_ms / 1000, wait_ms / 1000)]
    TooSoonToClaim {
        other: Side,
        gone_ms: i64,
        wait_ms: i64,
    },
    #[error("moves are taken back only in games against the computer or on one screen")]
    TakeBackBetweenFriends,
    // A finished game is final (issue 36: a take-back after the end reopened it); the analysis
    // board is where one goes back in a finished game.
    #[error("the game is over and its moves stay as they are: open it on the analysis board to try others")]
    Final,
    #[error("both sides have moved: the game can be resigned, no longer aborted")]
    BothMoved,
    #[error("the game is still going on: a rematch starts once it is over")]
    StillPlaying,
    #[error("hints are off in this game: it was made without them, for both players")]
    HintsOff,
    #[error("a hint is for the player to move, and it is {to_move}'s turn")]
    HintNotYourTurn { to_move: Side },
    #[error("every seat of this game is taken; you can watch it")]
    SeatTaken,
    #[error("the free seat is for the player the invite link was sent to; this link only watches")]
    WrongInvite,
    #[error("berserk is for a player of an arena's game, once, before their first move")]
    NoBerserk,
}

impl Refusal {
    /// The status and the stable code the API answers the refusal with.
    pub fn code(&self) -> (StatusCode, ErrorCode) {
        use Refusal::*;
        match self {
            WrongSecret => (StatusCode::FORBIDDEN, ErrorCode::WrongSecret),
            GameOver | OutOfTime => (StatusCode::CONFLICT, ErrorCode::GameOver),
            Stale { .. } => (StatusCode::CONFLICT, ErrorCode::Stale),
            NotYourTurn { .. } | HintNotYourTurn { .. } => {
                (StatusCode::CONFLICT, ErrorCode::NotYourTurn)
            }
            IllegalMove(_) => (StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::IllegalMove),
            HintsOff => (StatusCode::FORBIDDEN, ErrorCode::HintsOff),
            SeatTaken => (StatusCode::CONFLICT, ErrorCode::SeatTaken),
            WrongInvite => (StatusCode::FORBIDDEN, ErrorCode::WrongInvite),
            OffersBetweenPeople
            | OfferWaiting { .. }
            | NoMoveOfYours
            | NoOffer
            | OfferIsYours
            | NoMoveToTakeBack
            | ClockDecides
            | OpponentHere { .. }
            | TooSoonToClaim { .. }
            | TakeBackBetweenFriends
            | Final
            | BothMoved
            | StillPlaying
            | NoBerserk => (StatusCode::CONFLICT, ErrorCode::NotAllowed),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        let (status, code) = r.code();
        ApiError::new(status, code, r.to_string())
    }
}
