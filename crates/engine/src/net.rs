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

use crate::features::FEATURES;

/// Count classes of a hole: 0 to 11 seeds each their own, then 12–15, 16–19, 20–27, 28+.
pub const CLASSES: usize = 16;
/// One-hot inputs: a class for each of the 24 holes.
pub const SPARSE: usize = Hole::COUNT * CLASSES;
/// Dense inputs: the linear features, the seeds in play and the quiet counter.
pub const DENSE: usize = FEATURES + 2;
/// All inputs: one-hot, then dense.
pub const INPUTS: usize = SPARSE + DENSE;
/// Rectified units of the hidden layer.
pub const HIDDEN: usize = 128;
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
    /// The hidden units' biases.
    pub b1: [f32; HIDDEN],
    /// The output weight of each hidden unit.
    pub w2: [f32; HIDDEN],
    /// The output's bias.
    pub b2: f32,
}

/// What [`Net::from_bytes`] refuses.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NetError {
    /// The bytes do not start with the format's magic.
    #[error("not a network file (the first 8 bytes are not {MAGIC:?})")]
    Magic,
    /// The bytes are not as many as a network of this shape takes.
    #[error("the file holds {got} bytes, a network of this shape needs {want}")]
    Length {
        /// Bytes given.
        got: usize,
        /// Bytes a network takes, magic included.
        want: usize,
    },
    /// A weight is infinite or not a number.
    #[error("weight {index} is not a finite number")]
    NotFinite {
        /// The weight's place in the file, from 0.
        index: usize,
    },
    /// A weight is beyond what the quantized network can hold.
    #[error("weight {index} is {value}, beyond ±{limit}")]
    OutOfRange {
        /// The weight's place in the file, from 0.
        index: usize,
        /// Its value.
        value: f32,
        /// The largest magnitude allowed for it.
        limit: f32,
    },
}

/// The active inputs of a position: its 24 one-hot indices, and the dense values.
pub struct Inputs {
    /// The index of each hole's active one-hot input, in `0..SPARSE`.
    pub sparse: [u16; Hole::COUNT],
    /// The dense inputs, each count times its unit: the features times [`DENSE_SCALE`], the
    /// seeds in play over 96, the quiet counter over [`QUIET_LIMIT`].
    pub dense: [f32; DENSE],
}

/// The one-hot inputs of `pos` from the side to move's point of view: for each hole, my
/// row first, the index of its count class.
#[inline(always)]
fn sparse_inputs(pos: &Position) -> [u16; Hole::COUNT] {
    let me = pos.to_move().unwrap_or(Side::South);
    let h = pos.holes();
    let first = if me == Side::South { 0 } else { 12 };
    let mut sparse = [0u16; Hole::COUNT];
    for (j, s) in sparse.iter_mut().enumerate() {
        let c = h[(first + j) % Hole::COUNT];
        *s = (j * CLASSES + class(c)) as u16;
    }
    sparse
}

/// The dense inputs as the integers they are made of: the linear features, the seeds in
/// play and the quiet counter. [`DENSE_UNIT`] turns them into the network's inputs.
#[inline(always)]
fn dense_counts(pos: &Position, features: &[i32; FEATURES]) -> [i32; DENSE] {
    let mut dense = [0i32; DENSE];
    dense[..FEATURES].copy_from_slice(features);
    dense[FEATURES] = pos.seeds_in_play() as i32;
    dense[FEATURES + 1] = pos.quiet_plies() as i32;
    dense
}

/// What one unit of each dense count is as a network input.
fn dense_unit(k: usize) -> f32 {
    match k {
        FEATURES => 1.0 / 96.0,
        k if k == FEATURES + 1 => 1.0 / QUIET_LIMIT as f32,
        _ => DENSE_SCALE,
    }
}

/// The inputs of `pos` (not over) from the side to move's point of view, given its linear
/// features (already computed by the caller, who needs them too).
#[inline(always)]
pub fn inputs(pos: &Position, features: &[i32; FEATURES]) -> Inputs {
    let mut dense = [0f32; DENSE];
    for (k, (d, c)) in dense
        .iter_mut()
        .zip(dense_counts(pos, features))
        .enumerate()
    {
        *d = c as f32 * dense_unit(k);
    }
    Inputs {
        sparse: sparse_inputs(pos),
        dense,
    }
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

    /// The network file: the magic, then every weight as a little-endian `f32` (`w1` row by
    /// row, `b1`, `w2`, `b2`).
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

    /// Reads a network file written by [`Net::to_bytes`], checking every weight.
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
            let limit = weight_limit(index / HIDDEN);
            if x.abs() > limit {
                return Err(NetError::OutOfRange {
                    index,
                    value: x,
                    limit,
                });
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

/// Fixed-point units per seed in [`Quantized`]'s hidden layer: with every hidden sum an
/// exact integer, the order of the additions cannot change a value, so the sums may run in
/// any order and width and every processor gives the same evaluation. An `i32` then holds
/// ±8192 seeds; with weights within ±[`MAX_WEIGHT`] and the dense counts' bounds (a few
/// hundred in all) a hidden sum stays under 1,500.
const ONE: f32 = (1 << 18) as f32;

/// From [`SPARSE_ONE`]'s units to [`ONE`]'s.
const SPARSE_SHIFT: i32 = 5;

/// The largest weight a network file may hold (round 6's shipped network has one at it: a
/// hidden unit's weight on the quiet counter).
pub const MAX_WEIGHT: f32 = 16.0;

/// Fixed-point units per seed of the one-hot rows, which [`Quantized`] keeps in 16 bits:
/// half the memory of 32-bit rows (96 KiB at 128 hidden units; at 32 units the 24 KiB fit a
/// core's first-level cache). A row's weights add 24 at a time, so their rounding (2⁻¹⁴ of a seed at most)
/// stays far under the hundredth of a seed the evaluation counts in.
const SPARSE_ONE: f32 = (1 << 13) as f32;

/// The largest one-hot weight: what 16 bits hold at `SPARSE_ONE` (training keeps to it;
/// round 9's network has weights at it).
pub const MAX_SPARSE_WEIGHT: f32 = 3.99;

/// The bound on the weights of row `row` of the file's order (the one-hot rows, the dense
/// rows, then the biases and output weights as further rows): what [`Net::from_bytes`]
/// accepts and what training keeps to.
pub fn weight_limit(row: usize) -> f32 {
    if row < SPARSE {
        MAX_SPARSE_WEIGHT
    } else {
        MAX_WEIGHT
    }
}

/// A network in the form the search evaluates: hidden weights as fixed-point integers
/// (2⁻¹⁸ of a seed), the dense inputs taken as the integer counts they are.
/// Training and the file keep [`Net`]'s floats; this form is made from them once.
///
/// Why: a float sum is a chain of dependent additions (4 cycles each on current processors),
/// and the output's products were one more such chain. Integer additions take one cycle
/// and may be regrouped, and the output is summed on 8 lanes.
#[derive(Clone, Debug)]
pub struct Quantized {
    /// At [`SPARSE_ONE`] units per seed; their sum is shifted to [`ONE`]'s before the rest.
    sparse: Vec<[i16; HIDDEN]>,
    dense: [[i32; HIDDEN]; DENSE],
    b1: [i32; HIDDEN],
    /// Output weights in centiseeds per fixed-point unit.
    w2: [f32; HIDDEN],
    /// Output bias in centiseeds.
    b2: f32,
}

impl Net {
    /// This network in the form the search evaluates.
    pub fn quantize(&self) -> Quantized {
        let q = |w: f32, unit: f32| (w * unit * ONE).round() as i32;
        let mut dense = [[0; HIDDEN]; DENSE];
        for (k, row) in dense.iter_mut().enumerate() {
            for (d, &w) in row.iter_mut().zip(&self.w1[SPARSE + k]) {
                *d = q(w, dense_unit(k));
            }
        }
        Quantized {
            sparse: self.w1[..SPARSE]
                .iter()
                .map(|row| row.map(|w| (w * SPARSE_ONE).round() as i16))
                .collect(),
            dense,
            b1: self.b1.map(|w| q(w, 1.0)),
            w2: self.w2.map(|w| w * 100.0 / ONE),
            b2: self.b2 * 100.0,
        }
    }
}

impl Quantized {
    /// The hidden layer before rectification: integers, so every path gives the same sums.
    #[inline(always)]
    fn hidden(&self, sparse: &[u16; Hole::COUNT], dense: &[i32; DENSE]) -> [i32; HIDDEN] {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.hidden_avx2(sparse, dense) };
        }
        self.hidden_portable(sparse, dense)
    }

    fn hidden_portable(&self, sparse: &[u16; Hole::COUNT], dense: &[i32; DENSE]) -> [i32; HIDDEN] {
        let mut ones = [0i32; HIDDEN];
        for &i in sparse {
            for (a, &w) in ones.iter_mut().zip(&self.sparse[i as usize]) {
                *a += w as i32;
            }
        }
        let mut acc = self.b1;
        for (a, o) in acc.iter_mut().zip(ones) {
            *a += o << SPARSE_SHIFT;
        }
        for (&c, row) in dense.iter().zip(&self.dense) {
            for (a, w) in acc.iter_mut().zip(row) {
                *a += c * w;
            }
        }
        acc
    }

    /// [`Quantized::hidden`] on four 8-lane registers. Written as plain loops, the compiler
    /// vectorizes the dense part across rows (integer sums may be reordered) and gathers
    /// every weight one by one: this search spent more time there than in the float form.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn hidden_avx2(
        &self,
        sparse: &[u16; Hole::COUNT],
        dense: &[i32; DENSE],
    ) -> [i32; HIDDEN] {
        use std::arch::x86_64::*;
        const BLOCKS: usize = HIDDEN / 8;
        let load = |row: &[i32; HIDDEN], b: usize| {
            // SAFETY: b < BLOCKS, so the 8 lanes read lie inside the row.
            unsafe { _mm256_loadu_si256(row.as_ptr().add(8 * b).cast()) }
        };
        let mut ones = [_mm256_setzero_si256(); BLOCKS];
        for &i in sparse {
            let row = &self.sparse[i as usize];
            for (b, a) in ones.iter_mut().enumerate() {
                // SAFETY: b < BLOCKS: 8 of the row's HIDDEN weights.
                let w = unsafe { _mm_loadu_si128(row.as_ptr().add(8 * b).cast()) };
                *a = _mm256_add_epi32(*a, _mm256_cvtepi16_epi32(w));
            }
        }
        let mut acc: [__m256i; BLOCKS] = std::array::from_fn(|b| {
            _mm256_add_epi32(
                load(&self.b1, b),
                _mm256_slli_epi32::<SPARSE_SHIFT>(ones[b]),
            )
        });
        for (&c, row) in dense.iter().zip(&self.dense) {
            let c = _mm256_set1_epi32(c);
            for (b, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_epi32(*a, _mm256_mullo_epi32(c, load(row, b)));
            }
        }
        let mut out = [0i32; HIDDEN];
        for (b, a) in acc.iter().enumerate() {
            // SAFETY: as for the loads.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(8 * b).cast(), *a) };
        }
        out
    }

    /// The correction in centiseeds for `pos`, whose linear features are `features`.
    #[inline(always)]
    pub fn correction(&self, pos: &Position, features: &[i32; FEATURES]) -> i32 {
        let acc = self.hidden(&sparse_inputs(pos), &dense_counts(pos, features));
        // Eight partial sums, one for each lane of a vector register, added in a fixed order.
        const LANES: usize = 8;
        let mut lane = [0f32; LANES];
        for (h, w) in acc.chunks_exact(LANES).zip(self.w2.chunks_exact(LANES)) {
            for l in 0..LANES {
                lane[l] += h[l].max(0) as f32 * w[l];
            }
        }
        let s = ((lane[0] + lane[4]) + (lane[1] + lane[5]))
            + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
        (self.b2 + s) as i32
    }
}

/// The network built into the program (crates/engine/net.bin, trained as docs/tuning.md
/// says), in the form the search evaluates.
pub fn shipped() -> &'static Quantized {
    static NET: OnceLock<Quantized> = OnceLock::new();
    NET.get_or_init(|| shipped_weights().quantize())
}

/// The shipped network's weights as trained.
pub fn shipped_weights() -> Net {
    Net::from_bytes(include_bytes!("../net.bin")).expect("the shipped network is well formed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use anywoli_core::{Rules, XorShift};

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx2_hidden_layer_is_the_portable_one() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let net = shipped();
        let mut rng = XorShift::new(11);
        let mut p = Position::start(Rules::Anywoli);
        let mut checked = 0;
        while checked < 500 {
            if p.to_move().is_none() {
                p = Position::start(Rules::Anywoli);
            }
            let (sparse, dense) = (
                sparse_inputs(&p),
                dense_counts(&p, &crate::eval::features(&p)),
            );
            // SAFETY: AVX2 was detected above.
            let fast = unsafe { net.hidden_avx2(&sparse, &dense) };
            assert_eq!(fast, net.hidden_portable(&sparse, &dense), "{p}");
            assert!(fast.iter().any(|&h| h != 0));
            checked += 1;
            let moves: Vec<_> = p.moves().collect();
            p.play(moves[rng.below(moves.len() as u64) as usize])
                .unwrap();
        }
    }
}
