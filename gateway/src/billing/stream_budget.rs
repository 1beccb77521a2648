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
    /// The prompt's estimate, asked only while a stream is relayed (counting a prompt can
    /// cost more than the rest of a short non-stream request's billing).
    prompt_estimate: &'a (dyn Fn() -> i64 + Sync),
    /// Least quota taken per extension (fewer atomic updates on long streams).
    block: i64,
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
        prompt_estimate: &'a (dyn Fn() -> i64 + Sync),
    ) -> Self {
        let block = (reservation.amount() / 2).max(1);
        StreamBudget {
            reservation,
            price,
            qpu,
            prompt_estimate,
            block,
        }
    }

    /// Whether `output_tokens` generated so far are paid for, growing the reservation when
    /// they are not yet; `false` when the balance cannot cover them.
    pub fn cover(&mut self, output_tokens: i64) -> bool {
        if matches!(self.price, Price::Fixed { .. }) {
            return true;
        }
        let usage = Usage {
            prompt_tokens: (self.prompt_estimate)(),
            completion_tokens: output_tokens.max(0),
            ..Usage::default()
        };
        let cost = quota(&self.price, &usage, self.qpu);
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

    #[test]
    fn the_reservation_grows_while_the_balance_covers_it() {
        let s = one_user(1_000, 0, true);
        let (u, t) = (s.users[&1].clone(), s.tokens[&token_index()].clone());
        let mut r = reserve(&u, &t, 100).unwrap();
        let price = Price::Ratio {
            model_ratio: 1.0,
            completion_ratio: 1.0,
            cache_ratio: 1.0,
            cache_creation_ratio: 1.25,
            group_ratio: 1.0,
        };
        let mut b = StreamBudget::new(&mut r, price, 500_000, &|| 10);
        assert!(b.cover(50), "within the reservation");
        assert!(b.cover(400));
        assert!(b.cover(990), "the last of the balance");
        assert!(!b.cover(1_200), "past the balance");
        assert_eq!(u.quota.load(Ordering::Acquire), 0);
        r.settle(1_000);
        assert_eq!(u.quota.load(Ordering::Acquire), 0);
    }
}
