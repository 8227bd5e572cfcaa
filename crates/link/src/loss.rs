//! Random loss: Bernoulli or a two-state Gilbert-Elliott chain, each
//! element with its own seeded generator so that adding an element
//! elsewhere on the path never shifts its draws. The chain's parameters
//! ([`GilbertElliott`]) have one option table ([`crate::Element`]), read by
//! the scenario file's `[path.gilbert_elliott]` and the command line's
//! `--gilbert-elliott`.

use ramp_vocab::rng::{Probability, Rng};

use crate::element::{Element, ElementError, ElementOption};
use crate::element_option;
use crate::elements::{LinkElements, Slot, SlotNames};

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
    GilbertElliott(GilbertElliott),
}

/// A two-state Gilbert-Elliott loss chain (Gilbert 1960, Elliott 1963),
/// stepped once per packet: a good and a bad state, each with its own
/// loss probability. The transition probabilities have no default (they
/// are the path's burstiness); a loss-free good state and an always-losing
/// bad state are Gilbert's original model, the defaults here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliott {
    /// Probability of moving good -> bad, per packet.
    pub p_good_to_bad: f64,
    /// Probability of moving bad -> good, per packet.
    pub p_bad_to_good: f64,
    /// Loss probability in the good state.
    pub loss_good: f64,
    /// Loss probability in the bad state.
    pub loss_bad: f64,
}

impl Element for GilbertElliott {
    const OPTIONS: &'static [ElementOption<GilbertElliott>] = &[
        element_option!(
            p_good_to_bad: number,
            "<0..1>",
            "probability of moving good -> bad, per packet"
        ),
        element_option!(
            p_bad_to_good: number,
            "<0..1>",
            "probability of moving bad -> good, per packet"
        ),
        element_option!(loss_good: number, "<0..1>", "loss probability in the good state"),
        element_option!(loss_bad: number, "<0..1>", "loss probability in the bad state"),
    ];
    /// Gilbert's model: no loss in the good state, all in the bad one (the
    /// transitions are [`Element::REQUIRED`]).
    const DEFAULT: GilbertElliott = GilbertElliott {
        p_good_to_bad: 0.0,
        p_bad_to_good: 0.0,
        loss_good: 0.0,
        loss_bad: 1.0,
    };
    const REQUIRED: &'static [&'static str] = &["p_good_to_bad", "p_bad_to_good"];

    /// Every field is a probability, in [0, 1].
    fn check(&self) -> Result<(), ElementError> {
        for (key, v) in [
            ("p_good_to_bad", self.p_good_to_bad),
            ("p_bad_to_good", self.p_bad_to_good),
            ("loss_good", self.loss_good),
            ("loss_bad", self.loss_bad),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ElementError::value(key, "must lie in [0, 1]"));
            }
        }
        Ok(())
    }
}

impl LossModel {
    /// Independent loss with probability `p`; none for `p` <= 0 (a
    /// `loss = 0` key or `--loss 0` draws nothing).
    pub fn bernoulli(p: f64) -> LossModel {
        if p > 0.0 {
            LossModel::Bernoulli { p }
        } else {
            LossModel::None
        }
    }

    /// The long-run loss probability (for records: `path.loss`).
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott(GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            }) => {
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
            LossModel::GilbertElliott(GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            }) => LossKind::Ge {
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

impl Slot for GilbertElliott {
    const NAMES: SlotNames = SlotNames {
        table: "gilbert_elliott",
        flag: "gilbert-elliott",
        value_name: "KEY=VALUE,…",
        example: "p_good_to_bad=0.01,p_bad_to_good=0.3,loss_bad=0.5",
        help: "Bursty random loss after the downlink's queue: a two-state Gilbert-Elliott \
               chain, in place of --loss.",
        about: "Bursty random loss after the downlink's queue, in place of --loss: a two-state \
                Gilbert-Elliott chain stepped once per packet, each state with its own loss \
                probability. Seeded by --seed.",
        defaults_from: "nothing",
        field: "loss",
    };
    fn get(e: &LinkElements) -> Option<GilbertElliott> {
        match e.loss {
            LossModel::GilbertElliott(g) => Some(g),
            _ => None,
        }
    }
    fn put(e: &mut LinkElements, g: GilbertElliott) {
        e.loss = LossModel::GilbertElliott(g);
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
        let model = LossModel::GilbertElliott(GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.25,
            loss_good: 0.0,
            loss_bad: 0.5,
        });
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

    #[test]
    fn a_chain_needs_its_transitions_and_reads_back() {
        use crate::{parse_spec, spec_of};
        let g = parse_spec::<GilbertElliott>("p_good_to_bad=0.01,p_bad_to_good=0.3").unwrap();
        assert_eq!((g.loss_good, g.loss_bad), (0.0, 1.0));
        assert_eq!(
            spec_of(&g),
            "p_good_to_bad=0.01,p_bad_to_good=0.3,loss_good=0,loss_bad=1"
        );
        assert_eq!(parse_spec::<GilbertElliott>(&spec_of(&g)), Ok(g));
        for (spec, text) in [
            (
                "p_good_to_bad=0.01",
                "p_bad_to_good: required (it has no default)",
            ),
            (
                "p_good_to_bad=0.01,p_bad_to_good=0.3,loss_bad=1.5",
                "loss_bad: must lie in [0, 1]",
            ),
            (
                "p_good_to_bad=-0.1,p_bad_to_good=0.3",
                "p_good_to_bad: must lie in [0, 1]",
            ),
        ] {
            assert_eq!(
                parse_spec::<GilbertElliott>(spec).unwrap_err().to_string(),
                text
            );
        }
    }
}
