//! The pairs of a match (an opening played from both sides), counted as they finish, and the
//! sequential test that may stop the match early (anywoli_engine::sprt).

use anywoli_engine::sprt::{Pentanomial, Sprt, Verdict};

/// The first player's points game by game, and the pairs they complete.
pub(super) struct Pairs {
    sprt: Option<Sprt>,
    scores: Vec<Option<f64>>,
    counts: Pentanomial,
    /// The verdict, and the pairs and ratio at which it was reached.
    decided: Option<(Verdict, u64, f64)>,
}

impl Pairs {
    pub(super) fn new(games: usize, sprt: Option<Sprt>) -> Pairs {
        Pairs {
            sprt,
            scores: vec![None; games],
            counts: Pentanomial::default(),
            decided: None,
        }
    }

    /// Counts game `index`'s points for the first player. When it completes a pair under a
    /// test, the line to print: the counts, the ratio and its bounds, and the verdict once
    /// reached.
    pub(super) fn add(&mut self, index: usize, a_score: f64) -> Option<String> {
        self.scores[index] = Some(a_score);
        let partner = index ^ 1;
        let (Some(Some(x)), Some(Some(y))) = (self.scores.get(index), self.scores.get(partner))
        else {
            return None;
        };
        self.counts.add(*x, *y);
        let sprt = self.sprt?;
        let llr = sprt.llr(&self.counts);
        let (lower, upper) = sprt.bounds();
        if self.decided.is_none() {
            let v = sprt.verdict(&self.counts);
            if v != Verdict::Continue {
                self.decided = Some((v, self.counts.pairs(), llr));
            }
        }
        let mut line = format!(
            "sprt: {} pairs {} llr {llr:.2} ({lower:.2}, {upper:.2})",
            self.counts.pairs(),
            self.counts
        );
        if let Some((v, at, _)) = self.decided {
            if at == self.counts.pairs() {
                line.push_str(&format!(", {}", verdict_text(v, &sprt)));
            }
        }
        Some(line)
    }

    /// Whether the test has decided: no game should start after this.
    pub(super) fn stop(&self) -> bool {
        self.decided.is_some()
    }

    #[cfg(test)]
    pub(super) fn counts(&self) -> Pentanomial {
        self.counts
    }

    /// The summary lines: the pairs and their Elo, and the test's outcome.
    pub(super) fn summary(&self) -> Vec<String> {
        let e = self.counts.elo();
        let mut lines = vec![format!(
            "pairs: {} {} (0, 1/2, 1, 3/2, 2 points), elo {} +/- {} (95%, from the pairs)",
            self.counts.pairs(),
            self.counts,
            super::elo_text(e.elo, true),
            super::elo_text(e.error, false)
        )];
        if let Some(sprt) = self.sprt {
            let (lower, upper) = sprt.bounds();
            let now = sprt.llr(&self.counts);
            let tail = match self.decided {
                Some((v, at, llr)) => format!(
                    "{} after {at} pairs (llr {llr:.2}; {now:.2} with every finished pair)",
                    verdict_text(v, &sprt)
                ),
                None => format!("no verdict: llr {now:.2} is inside the bounds"),
            };
            lines.push(format!(
                "sprt: elo0 {} elo1 {} alpha {} beta {}, bounds ({lower:.2}, {upper:.2}): {tail}",
                sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
            ));
        }
        lines
    }
}

fn verdict_text(v: Verdict, sprt: &Sprt) -> String {
    match v {
        Verdict::AcceptH1 => format!("H1 accepted (elo1 = {})", sprt.elo1),
        Verdict::AcceptH0 => format!("H0 accepted (elo0 = {})", sprt.elo0),
        Verdict::Continue => "undecided".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_counts_once_both_games_are_in_whatever_their_order() {
        let mut p = Pairs::new(6, None);
        assert_eq!(p.add(1, 1.0), None);
        assert_eq!(p.counts().pairs(), 0);
        p.add(0, 0.5);
        assert_eq!(p.counts(), Pentanomial([0, 0, 0, 1, 0]));
        p.add(4, 0.0);
        p.add(2, 1.0);
        p.add(3, 1.0);
        assert_eq!(p.counts(), Pentanomial([0, 0, 0, 1, 1]));
        assert!(!p.stop());
    }

    #[test]
    fn the_test_stops_the_match_once_a_bound_is_crossed() {
        let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let mut p = Pairs::new(400, Some(sprt));
        let mut decided_at = None;
        for pair in 0..200 {
            // A player that wins every pair 2-0: H1 well before 200 pairs.
            p.add(2 * pair, 1.0);
            let line = p.add(2 * pair + 1, 1.0).unwrap();
            if p.stop() && decided_at.is_none() {
                decided_at = Some(pair + 1);
                assert!(line.contains("H1 accepted"), "{line}");
            }
        }
        // Against all-won pairs the likeliest distributions of means 1/2 and 0.571 put what
        // mass they must on 0 points: ln(0.571 / 0.5) = 0.134 a pair, 2.94 after 22.
        let at = decided_at.expect("decided");
        assert!((22..=24).contains(&at), "{at}");
        let summary = p.summary().join("\n");
        assert!(
            summary.contains(&format!("H1 accepted (elo1 = 50) after {at} pairs")),
            "{summary}"
        );
    }
}
