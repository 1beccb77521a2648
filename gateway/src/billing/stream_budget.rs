//! Keeping a stream within what its caller can pay: the running cost of what was generated
//! so far (estimated from the upstream's running usage, or from the output's bytes) is
//! compared with the reservation before each batch goes to the client; the reservation grows
//! in blocks while the balance covers it, and the stream is stopped when it cannot.

use super::{Price, Reservation, quota};
use adapters::openai::Usage;

/// The reservation of one streaming request and how to price its output so far.
pub struct StreamBudget<'a> {
    reservation: &'a mut Reservation,
    price: Price,
    qpu: i64,
    /// The prompt's estimate, counted only when its upper bound does not settle a question
    /// (counting a prompt can cost more than the rest of a short request's billing).
    prompt: &'a dyn PromptTokens,
    /// Least quota taken per extension (fewer atomic updates on long streams).
    block: i64,
}

/// A prompt's token estimate, as the stream budget asks for it.
pub trait PromptTokens: Sync {
    /// An upper bound of [`PromptTokens::estimate`] known without counting.
    fn at_most(&self) -> i64;
    /// The estimate (the prompt may be counted now).
    fn estimate(&self) -> i64;
}

/// A count known already.
impl PromptTokens for i64 {
    fn at_most(&self) -> i64 {
        *self
    }

    fn estimate(&self) -> i64 {
        *self
    }
}

fn prompt_price_not_negative(price: &Price) -> bool {
    match *price {
        Price::Ratio {
            model_ratio,
            group_ratio,
            ..
        } => model_ratio * group_ratio >= 0.0,
        Price::Fixed { .. } => true,
    }
}

impl std::fmt::Debug for StreamBudget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBudget")
            .field("reservation", &self.reservation)
            .field("price", &self.price)
            .field("qpu", &self.qpu)
            .field("block", &self.block)
            .finish_non_exhaustive()
    }
}

impl<'a> StreamBudget<'a> {
    pub fn new(
        reservation: &'a mut Reservation,
        price: Price,
        qpu: i64,
        prompt: &'a dyn PromptTokens,
    ) -> Self {
        let block = (reservation.amount() / 2).max(1);
        StreamBudget {
            reservation,
            price,
            qpu,
            prompt,
            block,
        }
    }

    /// Whether `output_tokens` generated so far are paid for, growing the reservation when
    /// they are not yet; `false` when the balance cannot cover them.
    pub fn cover(&mut self, output_tokens: i64) -> bool {
        if matches!(self.price, Price::Fixed { .. }) {
            return true;
        }
        let cost_with = |prompt_tokens: i64| {
            let usage = Usage {
                prompt_tokens,
                completion_tokens: output_tokens.max(0),
                ..Usage::default()
            };
            quota(&self.price, &usage, self.qpu)
        };
        // Paid for even with the prompt's upper bound: paid for with its estimate too (the
        // cost does not fall as the prompt grows while its price is not negative).
        if prompt_price_not_negative(&self.price)
            && cost_with(self.prompt.at_most()) <= self.reservation.amount()
        {
            return true;
        }
        let cost = cost_with(self.prompt.estimate());
        let short = cost - self.reservation.amount();
        if short <= 0 {
            return true;
        }
        self.reservation.extend(short.max(self.block)) || self.reservation.extend(short)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::billing::reserve;
    use crate::billing::test_support::{one_user, token_index};
    use std::sync::atomic::Ordering;

    /// One quota a token, prompt and completion alike.
    fn unit_price() -> Price {
        Price::Ratio {
            model_ratio: 1.0,
            completion_ratio: 1.0,
            cache_ratio: 1.0,
            cache_creation_ratio: 1.25,
            group_ratio: 1.0,
        }
    }

    #[test]
    fn the_reservation_grows_while_the_balance_covers_it() {
        let s = one_user(1_000, 0, true);
        let (u, t) = (s.users[&1].clone(), s.tokens[&token_index()].clone());
        let mut r = reserve(&u, &t, 100).unwrap();
        let price = unit_price();
        let mut b = StreamBudget::new(&mut r, price, 500_000, &10);
        assert!(b.cover(50), "within the reservation");
        assert!(b.cover(400));
        assert!(b.cover(990), "the last of the balance");
        assert!(!b.cover(1_200), "past the balance");
        assert_eq!(u.quota.load(Ordering::Acquire), 0);
        r.settle(1_000);
        assert_eq!(u.quota.load(Ordering::Acquire), 0);
    }

    /// A prompt of 10 tokens whose bound is 40, counting how often it was counted.
    struct Counted(std::sync::atomic::AtomicUsize);

    impl PromptTokens for Counted {
        fn at_most(&self) -> i64 {
            40
        }

        fn estimate(&self) -> i64 {
            self.0.fetch_add(1, Ordering::Relaxed);
            10
        }
    }

    #[test]
    fn the_prompt_is_counted_only_when_its_bound_does_not_settle_the_question() {
        let price = unit_price();
        let decisions = |prompt: &dyn PromptTokens| {
            let s = one_user(1_000, 0, true);
            let (u, t) = (s.users[&1].clone(), s.tokens[&token_index()].clone());
            let mut r = reserve(&u, &t, 100).unwrap();
            let mut b = StreamBudget::new(&mut r, price, 500_000, prompt);
            let out: Vec<bool> = [0, 50, 60, 75, 400, 985, 990, 1_200]
                .into_iter()
                .map(|n| b.cover(n))
                .collect();
            (out, r.amount())
        };
        let counted = Counted(std::sync::atomic::AtomicUsize::new(0));
        assert_eq!(
            decisions(&counted),
            decisions(&10),
            "the same as with the count known"
        );
        // 0, 50 and 60 output tokens fit the reservation of 100 even with a 40-token prompt.
        assert_eq!(counted.0.load(Ordering::Relaxed), 5);
    }
}
