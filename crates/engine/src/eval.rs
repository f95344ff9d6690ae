//! Static evaluation: the seeds the side to move can expect to win from here on, in centiseeds.
//!
//! The search scores a position by the seeds still to be won (stores already won are outside
//! it), so the evaluation estimates future net gain, never the stores. It is linear in a few
//! features of what decides Anywoli, the weights fitted by `anywoli-tune` (see
//! docs/tuning.md) and kept in [`TUNED`], plus the correction of a small network
//! ([`crate::net`]) that sees where each count sits, which the linear terms cannot.
//!
//! # Examples
//!
//! ```
//! use anywoli_core::{parse_position, Position, Rules};
//! use anywoli_engine::eval::{evaluate, evaluate_with, features, linear, TUNED, UNTUNED};
//!
//! let pos = Position::start(Rules::Anywoli);
//! let v = evaluate(&pos);
//! // Never more than the seeds in play, in centiseeds.
//! assert!(v.abs() <= 100 * pos.seeds_in_play() as i32);
//! // Without the network, the evaluation is the weighted sum of the features.
//! let f = features(&pos);
//! assert_eq!(evaluate_with(&pos, &TUNED), linear(&f, &TUNED));
//! assert_eq!(evaluate_with(&pos, &UNTUNED), linear(&f, &UNTUNED));
//! // Near the end only the seeds left in play count: 8 here, so 800 centiseeds at most.
//! let text = "0,0,0,0,0,0,0,0,0,1,0,3/0,0,2,0,2,0,0,0,0,0,0,0 s 44 44 - - 0 0";
//! let end = parse_position(text, Rules::Anywoli).unwrap();
//! assert!(evaluate(&end).abs() <= 800);
//! ```

use anywoli_core::Position;

use crate::features::features_of;
pub use crate::features::{features, FEATURES, FEATURE_NAMES};
use crate::net::Quantized;

/// Weights in centiseeds per unit of each feature.
pub type Weights = [i32; FEATURES];

/// A guess made before any tuning, kept to show what tuning bought (docs/tuning.md).
pub const UNTUNED: Weights = [10, -20, 0, 0, 50, 0, 0, 0, 50, 100, -100, 0, 0, 0, 0, 0, 0];

/// Fitted by `anywoli-tune fit data/selfplay.csv` (round 2, docs/tuning.md).
pub const TUNED: Weights = [
    20, -155, -54, -2, 96, 0, 156, -10, -31, 71, -92, 6, 29, -45, 390, 262, -74,
];
/// The first round's fit, on 14 features (the last three were added in round 2): the
/// weights that played the round-2 self-play games (docs/tuning.md).
pub const ROUND1: Weights = [
    -72, -369, -207, -51, 119, 0, 422, 156, -71, 292, 103, 135, 41, -79, 0, 0, 0,
];

/// The linear evaluation with weights `w` alone.
#[inline]
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    evaluate_net(pos, w, None)
}

/// The linear evaluation with weights `w`, corrected by `net` when there is one.
#[inline]
pub fn evaluate_net(pos: &Position, w: &Weights, net: Option<&Quantized>) -> i32 {
    // The network's sums run on 8 lanes with AVX2 against 4 with the default target's SSE2;
    // its hidden sums are integers and its output's float sums keep one order of additions on
    // either, and Rust never fuses a multiply and an add by itself: every path gives the same
    // value.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the processor has both features the function enables.
        return unsafe { evaluate_avx2(pos, w, net) };
    }
    evaluate_body(pos, w, net)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn evaluate_avx2(pos: &Position, w: &Weights, net: Option<&Quantized>) -> i32 {
    evaluate_body(pos, w, net)
}

#[inline(always)]
fn evaluate_body(pos: &Position, w: &Weights, net: Option<&Quantized>) -> i32 {
    let f = features_of(pos);
    let mut s = linear(&f, w);
    if let Some(net) = net {
        s += net.correction(pos, &f);
    }
    // Never claim more than what is left in play.
    let cap = pos.seeds_in_play() as i32 * 100;
    s.clamp(-cap, cap)
}

/// The weighted sum of features `f`, in centiseeds.
#[inline]
pub fn linear(f: &[i32; FEATURES], w: &Weights) -> i32 {
    f.iter().zip(w).map(|(f, w)| f * w).sum()
}

/// The engine's evaluation: [`TUNED`] corrected by the shipped network.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_net(pos, &TUNED, Some(crate::net::shipped()))
}
