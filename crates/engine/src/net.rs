//! A small network that corrects the linear evaluation (docs/tuning.md, "Round 5").
//!
//! The linear terms of [`crate::eval`] see holes by their counts, never by *where* a count
//! sits: whether hole f's 5 seeds end their lap on a 3 depends on both. The network sees each
//! hole's count at its place (one input for each hole and count class, from the side to
//! move's point of view: my row first) beside the linear features, through one hidden layer
//! of [`HIDDEN`] rectified units, and adds what it predicts to the linear value. With its
//! output weights at zero it is the linear evaluation exactly, which is where training starts.

use std::sync::OnceLock;

use anywoli_core::{Hole, Position, Side, QUIET_LIMIT};

use crate::eval::FEATURES;

/// Count classes of a hole: 0 to 11 seeds each their own, then 12–15, 16–19, 20–27, 28+.
pub const CLASSES: usize = 16;
/// One-hot inputs: a class for each of the 24 holes.
pub const SPARSE: usize = Hole::COUNT * CLASSES;
/// Dense inputs: the linear features, the seeds in play and the quiet counter.
pub const DENSE: usize = FEATURES + 2;
pub const INPUTS: usize = SPARSE + DENSE;
pub const HIDDEN: usize = 32;
/// Dense features are divided by this so that they start on the one-hot inputs' scale.
pub const DENSE_SCALE: f32 = 1.0 / 8.0;

const MAGIC: &[u8; 8] = b"AWNET01\n";

/// The class of a hole holding `c` seeds.
const fn class(c: u8) -> usize {
    match c {
        0..=11 => c as usize,
        12..=15 => 12,
        16..=19 => 13,
        20..=27 => 14,
        _ => 15,
    }
}

/// The weights, in seeds (the evaluation's centiseeds are a hundredth).
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// One row of hidden weights for each input.
    pub w1: Vec<[f32; HIDDEN]>,
    pub b1: [f32; HIDDEN],
    pub w2: [f32; HIDDEN],
    pub b2: f32,
}

/// What [`Net::from_bytes`] refuses.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetError {
    #[error("not a network file (the first 8 bytes are not {MAGIC:?})")]
    Magic,
    #[error("the file holds {got} bytes, a network of this shape needs {want}")]
    Length { got: usize, want: usize },
    #[error("weight {index} is not a finite number")]
    NotFinite { index: usize },
}

/// The active inputs of a position: its 24 one-hot indices, and the dense values.
pub struct Inputs {
    pub sparse: [u16; Hole::COUNT],
    pub dense: [f32; DENSE],
}

/// The inputs of `pos` (not over) from the side to move's point of view, given its linear
/// features (already computed by the caller, who needs them too).
#[inline(always)]
pub fn inputs(pos: &Position, features: &[i32; FEATURES]) -> Inputs {
    let me = pos.to_move().unwrap_or(Side::South);
    let h = pos.holes();
    let first = if me == Side::South { 0 } else { 12 };
    let mut sparse = [0u16; Hole::COUNT];
    for (j, s) in sparse.iter_mut().enumerate() {
        let c = h[(first + j) % Hole::COUNT];
        *s = (j * CLASSES + class(c)) as u16;
    }
    let mut dense = [0f32; DENSE];
    for (d, &f) in dense.iter_mut().zip(features) {
        *d = f as f32 * DENSE_SCALE;
    }
    dense[FEATURES] = pos.seeds_in_play() as f32 / 96.0;
    dense[FEATURES + 1] = pos.quiet_plies() as f32 / QUIET_LIMIT as f32;
    Inputs { sparse, dense }
}

impl Net {
    /// A network that adds nothing: the starting point of training.
    pub fn zero() -> Net {
        Net {
            w1: vec![[0.0; HIDDEN]; INPUTS],
            b1: [0.0; HIDDEN],
            w2: [0.0; HIDDEN],
            b2: 0.0,
        }
    }

    /// The hidden layer before rectification.
    #[inline(always)]
    pub fn hidden(&self, x: &Inputs) -> [f32; HIDDEN] {
        let mut acc = self.b1;
        for &i in &x.sparse {
            let row = &self.w1[i as usize];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
        for (k, &d) in x.dense.iter().enumerate() {
            let row = &self.w1[SPARSE + k];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += d * w;
            }
        }
        acc
    }

    /// The correction, in seeds.
    #[inline(always)]
    pub fn output(&self, x: &Inputs) -> f32 {
        let h = self.hidden(x);
        let mut s = self.b2;
        for (a, w) in h.iter().zip(&self.w2) {
            s += a.max(0.0) * w;
        }
        s
    }

    /// The correction in centiseeds for `pos`, whose linear features are `features`.
    #[inline(always)]
    pub fn correction(&self, pos: &Position, features: &[i32; FEATURES]) -> i32 {
        (self.output(&inputs(pos, features)) * 100.0) as i32
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let mut put = |x: f32| out.extend_from_slice(&x.to_le_bytes());
        for row in &self.w1 {
            row.iter().for_each(|&x| put(x));
        }
        self.b1.iter().for_each(|&x| put(x));
        self.w2.iter().for_each(|&x| put(x));
        put(self.b2);
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Net, NetError> {
        let body = bytes.strip_prefix(MAGIC).ok_or(NetError::Magic)?;
        let count = INPUTS * HIDDEN + 2 * HIDDEN + 1;
        if body.len() != 4 * count {
            return Err(NetError::Length {
                got: bytes.len(),
                want: MAGIC.len() + 4 * count,
            });
        }
        let mut values = Vec::with_capacity(count);
        for (index, c) in body.chunks_exact(4).enumerate() {
            let x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if !x.is_finite() {
                return Err(NetError::NotFinite { index });
            }
            values.push(x);
        }
        let mut it = values.into_iter();
        let mut take = || it.next().unwrap_or(0.0);
        let mut net = Net::zero();
        for row in net.w1.iter_mut() {
            row.iter_mut().for_each(|x| *x = take());
        }
        net.b1.iter_mut().for_each(|x| *x = take());
        net.w2.iter_mut().for_each(|x| *x = take());
        net.b2 = take();
        Ok(net)
    }
}

/// The network built into the program (crates/engine/net.bin, trained as docs/tuning.md
/// says).
pub fn shipped() -> &'static Net {
    static NET: OnceLock<Net> = OnceLock::new();
    NET.get_or_init(|| {
        Net::from_bytes(include_bytes!("../net.bin")).expect("the shipped network is well formed")
    })
}
