//! Training the network that corrects the linear evaluation ([`crate::net`]).
//!
//! Each sample is a position's inputs and what is left for the network to predict: the
//! target (in seeds) minus the linear evaluation. Minibatch gradient descent with Adam on the
//! squared error; the output weights start at zero, so the untrained network is the linear
//! evaluation, and a held-out tail of the data says when to stop. Deterministic for a seed.

use anywoli_core::XorShift;

use super::labels::Labelled;
use crate::eval::{features, linear, Weights};
use crate::net::{inputs, weight_limit, Inputs, Net, HIDDEN, INPUTS, MAX_WEIGHT, SPARSE};

/// One training example.
pub struct Example {
    /// The position's inputs.
    pub x: Inputs,
    /// Seeds the network should add to the linear evaluation.
    pub residual: f32,
}

/// The examples of `rows` for targets blended with `lambda` (see [`Labelled::target`]),
/// over linear weights `w`. Finished positions are left out.
pub fn examples(rows: &[Labelled], w: &Weights, lambda: f64) -> Vec<Example> {
    rows.iter()
        .filter(|r| r.pos.to_move().is_some())
        .map(|r| {
            let f = features(&r.pos);
            Example {
                x: inputs(&r.pos, &f),
                residual: ((r.target(lambda) - linear(&f, w) as f64) / 100.0) as f32,
            }
        })
        .collect()
}

/// Mean squared error in seeds² of `net` on `examples` (of the linear evaluation alone when
/// `net` is `None`).
pub fn mse(net: Option<&Net>, examples: &[Example]) -> f64 {
    let n = examples.len().max(1) as f64;
    examples
        .iter()
        .map(|e| {
            let y = net.map_or(0.0, |n| n.output(&e.x));
            let d = (y - e.residual) as f64;
            d * d
        })
        .sum::<f64>()
        / n
}

/// How training goes.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Passes over the training examples.
    pub epochs: usize,
    /// Examples a gradient step.
    pub batch: usize,
    /// Adam's learning rate.
    pub rate: f32,
    /// Seeds the initial weights and the shuffling.
    pub seed: u64,
}

/// Adam's running moments for every weight, laid out as [`Net`]'s.
struct Moments {
    m: Net,
    v: Net,
}

/// Adds the gradient of one example's squared error (halved) to `g`; returns the error.
fn backprop(net: &Net, e: &Example, g: &mut Net) -> f32 {
    let h = net.hidden(&e.x);
    let mut y = net.b2;
    for (a, w) in h.iter().zip(&net.w2) {
        y += a.max(0.0) * w;
    }
    let err = y - e.residual;
    g.b2 += err;
    let mut gh = [0f32; HIDDEN];
    for j in 0..HIDDEN {
        if h[j] > 0.0 {
            g.w2[j] += err * h[j];
            gh[j] = err * net.w2[j];
        }
    }
    for (b, d) in g.b1.iter_mut().zip(&gh) {
        *b += d;
    }
    for &i in &e.x.sparse {
        for (w, d) in g.w1[i as usize].iter_mut().zip(&gh) {
            *w += d;
        }
    }
    for (k, &x) in e.x.dense.iter().enumerate() {
        for (w, d) in g.w1[SPARSE + k].iter_mut().zip(&gh) {
            *w += x * d;
        }
    }
    err
}

/// One Adam step of every weight of `net` along the gradient `g` (a sum over `n` examples).
fn step(net: &mut Net, g: &Net, mo: &mut Moments, t: i32, rate: f32, n: usize) {
    const B1: f32 = 0.9;
    const B2: f32 = 0.999;
    let c1 = 1.0 - B1.powi(t);
    let c2 = 1.0 - B2.powi(t);
    let scale = 1.0 / n as f32;
    // Kept within the bounds a network file may hold (`weight_limit`), so whatever is
    // trained can be saved, loaded and put in fixed point.
    let update = |w: &mut f32, g: f32, m: &mut f32, v: &mut f32, limit: f32| {
        let g = g * scale;
        *m = B1 * *m + (1.0 - B1) * g;
        *v = B2 * *v + (1.0 - B2) * g * g;
        *w = (*w - rate * (*m / c1) / ((*v / c2).sqrt() + 1e-8)).clamp(-limit, limit);
    };
    for i in 0..INPUTS {
        for j in 0..HIDDEN {
            update(
                &mut net.w1[i][j],
                g.w1[i][j],
                &mut mo.m.w1[i][j],
                &mut mo.v.w1[i][j],
                weight_limit(i),
            );
        }
    }
    for j in 0..HIDDEN {
        let b1 = &mut net.b1[j];
        update(b1, g.b1[j], &mut mo.m.b1[j], &mut mo.v.b1[j], MAX_WEIGHT);
        let w2 = &mut net.w2[j];
        update(w2, g.w2[j], &mut mo.m.w2[j], &mut mo.v.w2[j], MAX_WEIGHT);
    }
    update(&mut net.b2, g.b2, &mut mo.m.b2, &mut mo.v.b2, MAX_WEIGHT);
}

/// Trains a network on `train`, reporting each epoch's error on `held` through `report`, and
/// returns the network of the epoch with the lowest held-out error.
pub fn train(
    train: &[Example],
    held: &[Example],
    s: Schedule,
    report: &mut dyn FnMut(usize, f64, f64),
) -> Net {
    let mut rng = XorShift::new(s.seed.max(1));
    let mut net = Net::zero();
    // Small random first-layer weights break the units' symmetry; the output starts at zero
    // so that the untrained network adds nothing.
    let spread = 1.0 / (crate::net::DENSE as f32 + 24.0).sqrt();
    for row in net.w1.iter_mut() {
        for w in row.iter_mut() {
            *w = (rng.below(2001) as f32 / 1000.0 - 1.0) * spread;
        }
    }
    for b in net.b1.iter_mut() {
        *b = 0.1;
    }
    let mut mo = Moments {
        m: Net::zero(),
        v: Net::zero(),
    };
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut best = (mse(Some(&net), held), net.clone());
    let mut t = 0;
    for epoch in 1..=s.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut sum = 0f64;
        for batch in order.chunks(s.batch.max(1)) {
            let mut g = Net::zero();
            for &k in batch {
                let err = backprop(&net, &train[k], &mut g);
                sum += (err * err) as f64;
            }
            t += 1;
            step(&mut net, &g, &mut mo, t, s.rate, batch.len());
        }
        let held_err = mse(Some(&net), held);
        report(epoch, sum / train.len().max(1) as f64, held_err);
        if held_err < best.0 {
            best = (held_err, net.clone());
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_keeps_every_weight_within_what_a_file_may_hold() {
        // A gradient far too large for any sane rate throws each weight towards a bound; the
        // result must still save, load and go into fixed point like any other network.
        let mut net = Net::zero();
        let mut g = Net::zero();
        for (i, row) in g.w1.iter_mut().enumerate() {
            for (j, w) in row.iter_mut().enumerate() {
                *w = if (i + j) % 2 == 0 { 1e6 } else { -1e6 };
            }
        }
        g.b1 = [1e6; HIDDEN];
        g.w2 = [-1e6; HIDDEN];
        g.b2 = 1e6;
        let mut mo = Moments {
            m: Net::zero(),
            v: Net::zero(),
        };
        for t in 1..=3 {
            step(&mut net, &g, &mut mo, t, 50.0, 1);
        }
        for (i, row) in net.w1.iter().enumerate() {
            for &w in row {
                assert_eq!(w.abs(), weight_limit(i), "row {i}");
            }
        }
        assert!(net.b1.iter().chain(&net.w2).all(|w| w.abs() == MAX_WEIGHT));
        assert_eq!(net.b2, -MAX_WEIGHT);
        assert_eq!(Net::from_bytes(&net.to_bytes()), Ok(net.clone()));
    }
}
