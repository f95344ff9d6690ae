//! Minimum-cost pairings: a perfect matching of least total cost (Edmonds' blossom algorithm,
//! from the `integer-blossom` crate), with costs that rank several criteria strictly one
//! above the other.

use integer_blossom::min_weight_perfect_matching;

/// Pairs `n` players (`n` even) so that the sum of `cost(i, j)` (`i < j`) over the pairs is
/// the least possible. Returns the pairs, each `(i, j)` with `i < j`, in order of `i`.
pub fn min_cost_pairs(n: usize, cost: impl Fn(usize, usize) -> i128) -> Vec<(usize, usize)> {
    assert!(
        n.is_multiple_of(2),
        "a perfect matching needs an even count"
    );
    let mut matrix = vec![0i128; n * n];
    for i in 0..n {
        for j in i + 1..n {
            matrix[i * n + j] = cost(i, j);
        }
    }
    let mate = min_weight_perfect_matching(&matrix, n);
    (0..n)
        .filter_map(|i| (i < mate[i]).then_some((i, mate[i])))
        .collect()
}

/// Weights that make criteria strictly ordered: any difference in a higher criterion outweighs
/// every difference the lower ones can make over a whole pairing.
#[derive(Debug, Clone)]
pub struct Scale {
    unit: Vec<i128>,
}

impl Scale {
    /// A scale for criteria whose cost in one pair is at most `max_per_pair[k]` (the most
    /// important first), over a pairing of at most `pairs` pairs. `None` if the weights
    /// overflow, which only absurd inputs (scores of billions of points) can cause.
    pub fn new(max_per_pair: &[i128], pairs: usize) -> Option<Scale> {
        let pairs = i128::try_from(pairs).ok()?;
        let mut unit = vec![1i128; max_per_pair.len()];
        let mut below = 0i128;
        for k in (0..max_per_pair.len()).rev() {
            unit[k] = below.checked_add(1)?;
            let most = unit[k]
                .checked_mul(max_per_pair[k].max(0))?
                .checked_mul(pairs)?;
            below = below.checked_add(most)?;
        }
        // The solver adds costs and their offset together; keep well clear of the top.
        (below < i128::MAX / 16).then_some(Scale { unit })
    }

    /// The one number for a pair's costs by criterion, in the order given to [`Scale::new`].
    pub fn cost(&self, levels: &[i128]) -> i128 {
        levels.iter().zip(&self.unit).map(|(l, u)| l * u).sum()
    }
}
