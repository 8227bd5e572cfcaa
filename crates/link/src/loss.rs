//! Random loss: Bernoulli or a two-state Gilbert-Elliott chain, each
//! element with its own seeded generator so that adding an element
//! elsewhere on the path never shifts its draws.

use ramp_vocab::rng::{Probability, Rng};

/// A random-loss model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    /// No random loss.
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli {
        /// Loss probability.
        p: f64,
    },
    /// Two-state Gilbert-Elliott chain, stepped once per packet.
    GilbertElliott {
        /// Probability of moving good -> bad, per packet.
        p_good_to_bad: f64,
        /// Probability of moving bad -> good, per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
}

impl LossModel {
    /// The long-run loss probability (for records: `path.loss`).
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                let denom = p_good_to_bad + p_bad_to_good;
                if denom <= 0.0 {
                    return loss_good;
                }
                let pi_bad = p_good_to_bad / denom;
                (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
            }
        }
    }
}

/// A random-loss element with its own generator.
#[derive(Clone, Debug)]
pub struct LossElement {
    kind: LossKind,
    rng: Rng,
}

#[derive(Clone, Debug)]
enum LossKind {
    None,
    Bernoulli(Probability),
    Ge {
        bad: bool,
        to_bad: Probability,
        to_good: Probability,
        loss_good: Probability,
        loss_bad: Probability,
    },
}

impl LossElement {
    /// An element applying `model`, drawing from `rng`.
    pub fn new(model: LossModel, rng: Rng) -> LossElement {
        let kind = match model {
            LossModel::None => LossKind::None,
            LossModel::Bernoulli { p } if p <= 0.0 => LossKind::None,
            LossModel::Bernoulli { p } => LossKind::Bernoulli(Probability::new(p)),
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => LossKind::Ge {
                bad: false,
                to_bad: Probability::new(p_good_to_bad),
                to_good: Probability::new(p_bad_to_good),
                loss_good: Probability::new(loss_good),
                loss_bad: Probability::new(loss_bad),
            },
        };
        LossElement { kind, rng }
    }

    /// Whether the next packet is lost.
    pub fn drops(&mut self) -> bool {
        match &mut self.kind {
            LossKind::None => false,
            LossKind::Bernoulli(p) => self.rng.chance(*p),
            LossKind::Ge {
                bad,
                to_bad,
                to_good,
                loss_good,
                loss_bad,
            } => {
                // Step the chain first, then draw the loss in the new state.
                if *bad {
                    if self.rng.chance(*to_good) {
                        *bad = false;
                    }
                } else if self.rng.chance(*to_bad) {
                    *bad = true;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                self.rng.chance(p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bernoulli_rate_matches_p() {
        let mut e = LossElement::new(LossModel::Bernoulli { p: 0.01 }, Rng::new(42, 1));
        let n = 400_000;
        let lost = (0..n).filter(|_| e.drops()).count();
        // Binomial sd = sqrt(n p (1-p)) ~ 63; allow 5 sd.
        assert!((lost as i64 - 4000).abs() < 315, "lost {lost}");
    }

    #[test]
    fn gilbert_elliott_mean_and_burstiness() {
        let model = LossModel::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.25,
            loss_good: 0.0,
            loss_bad: 0.5,
        };
        let mut e = LossElement::new(model, Rng::new(9, 1));
        let n = 1_000_000;
        let drops: Vec<bool> = (0..n).map(|_| e.drops()).collect();
        let lost = drops.iter().filter(|d| **d).count() as f64 / n as f64;
        let mean = model.mean_loss();
        assert!((lost - mean).abs() < 0.1 * mean, "lost {lost} mean {mean}");
        // Burstiness: P(loss | previous loss) far exceeds the mean.
        let pairs = drops.windows(2).filter(|w| w[0]).count() as f64;
        let both = drops.windows(2).filter(|w| w[0] && w[1]).count() as f64;
        assert!(both / pairs > 3.0 * mean, "conditional {}", both / pairs);
    }
}
