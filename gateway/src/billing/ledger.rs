//! In-process quota reservations: user wallet and token balances are atomics, so
//! concurrent requests cannot overdraw. A reservation is settled or refunded exactly once.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::carry::Carry;
use super::leases::Want;
use crate::config::{TokenEntry, UserEntry};
use crate::error::BillingError;

/// Quota taken from a user (and token) before relaying.
#[must_use = "a reservation must be settled or refunded"]
#[derive(Debug)]
pub struct Reservation {
    user: Arc<UserEntry>,
    token: Arc<TokenEntry>,
    amount: i64,
    open: bool,
    /// Where the held amount is noted while open (gateways fed by a control plane), and the
    /// request's id, under which the settled amount is noted as charged.
    carry: Option<(Arc<Carry>, String)>,
}

/// Why a carried reservation was not made.
#[derive(Debug)]
pub enum Refused {
    /// The balances this gateway sees cannot cover it.
    Billing(BillingError),
    /// They can, but this gateway's leases of fleet budget must grow first.
    Lease(Vec<Want>),
}

/// [`reserve`], noting the held amount in `carry` until the reservation ends (within the
/// leases of fleet budget when they are enforced); `request_id` names the charge at settling.
pub fn reserve_carried(
    user: &Arc<UserEntry>,
    token: &Arc<TokenEntry>,
    version: u64,
    amount: i64,
    carry: &Arc<Carry>,
    request_id: &str,
) -> Result<Reservation, Refused> {
    let (r, top_ups) = reserve_within_leases(user, token, version, amount, carry, request_id)?;
    // Leases are topped up only where they are enforced, by a fleet budget
    // (`Fleet::reserve`); what is not asked for is handed back at once.
    if !top_ups.is_empty() {
        carry.topped_up(&top_ups);
    }
    Ok(r)
}

/// [`reserve_carried`], with the leases that ran low to top up in the background (see
/// [`Carry::try_hold`]).
pub fn reserve_within_leases(
    user: &Arc<UserEntry>,
    token: &Arc<TokenEntry>,
    version: u64,
    amount: i64,
    carry: &Arc<Carry>,
    request_id: &str,
) -> Result<(Reservation, Vec<Want>), Refused> {
    let mut r = reserve(user, token, amount).map_err(Refused::Billing)?;
    match carry.try_hold(user, token, version, r.amount) {
        Ok(top_ups) => {
            r.carry = Some((carry.clone(), request_id.to_owned()));
            Ok((r, top_ups))
        }
        Err(wants) => {
            r.refund();
            Err(Refused::Lease(wants))
        }
    }
}

/// Atomically takes `amount` from the user's wallet and the token's remaining quota
/// (unless unlimited). The wallet must be positive and cover the amount.
pub fn reserve(
    user: &Arc<UserEntry>,
    token: &Arc<TokenEntry>,
    amount: i64,
) -> Result<Reservation, BillingError> {
    let amount = amount.max(0);
    user.quota
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
            (q > 0 && q >= amount).then(|| q - amount)
        })
        .map_err(|q| {
            if q <= 0 {
                BillingError::UserQuotaEmpty { remaining: q }
            } else {
                BillingError::UserQuotaShort {
                    remaining: q,
                    need: amount,
                }
            }
        })?;
    if !token.unlimited
        && let Err(r) = token
            .remain
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| {
                (r >= amount).then(|| r - amount)
            })
    {
        user.quota.fetch_add(amount, Ordering::AcqRel);
        return Err(BillingError::TokenQuotaShort {
            remaining: r,
            need: amount,
        });
    }
    Ok(Reservation {
        user: user.clone(),
        token: token.clone(),
        amount,
        open: true,
        carry: None,
    })
}

impl Reservation {
    /// The reserved amount.
    pub fn amount(&self) -> i64 {
        self.amount
    }

    /// Takes `extra` more from the same balances (a stream that outgrew its reservation);
    /// `false`, and nothing taken, when the wallet or the token cannot cover it.
    pub fn extend(&mut self, extra: i64) -> bool {
        let extra = extra.max(0);
        if !self.open || extra == 0 {
            return self.open;
        }
        let taken = self
            .user
            .quota
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                (q >= extra).then(|| q - extra)
            });
        if taken.is_err() {
            return false;
        }
        if !self.token.unlimited
            && self
                .token
                .remain
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| {
                    (r >= extra).then(|| r - extra)
                })
                .is_err()
        {
            self.user.quota.fetch_add(extra, Ordering::AcqRel);
            return false;
        }
        if let Some((carry, _)) = &self.carry
            && !carry.try_extend(&self.user, &self.token, extra)
        {
            self.user.quota.fetch_add(extra, Ordering::AcqRel);
            if !self.token.unlimited {
                self.token.remain.fetch_add(extra, Ordering::AcqRel);
            }
            return false;
        }
        self.amount += extra;
        true
    }

    /// Charges `actual`: the difference to the reservation is returned or taken.
    pub fn settle(mut self, actual: i64) {
        self.apply(actual);
    }

    /// Returns the whole reservation (the request failed).
    pub fn refund(mut self) {
        self.apply(0);
    }

    fn apply(&mut self, actual: i64) {
        if !self.open {
            return;
        }
        self.open = false;
        let delta = self.amount - actual;
        self.user.quota.fetch_add(delta, Ordering::AcqRel);
        self.user.used.fetch_add(actual, Ordering::AcqRel);
        if !self.token.unlimited {
            self.token.remain.fetch_add(delta, Ordering::AcqRel);
        }
        self.token.used.fetch_add(actual, Ordering::AcqRel);
        if let Some((carry, request_id)) = &self.carry {
            // Charged before the hold ends, so the carry never dips below what is spent.
            carry.charged(request_id, self.user.id, self.token.id, actual);
            carry.release(self.user.id, self.token.id, self.amount);
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // A reservation dropped on an unexpected path is refunded, never leaked.
        self.apply(0);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::billing::test_support::{one_user, token_index};

    fn entries(quota: i64, remain: i64) -> (Arc<UserEntry>, Arc<TokenEntry>) {
        let s = one_user(quota, remain, false);
        (s.users[&1].clone(), s.tokens[&token_index()].clone())
    }

    #[test]
    fn reserve_settle_refund() {
        let (u, t) = entries(100, 50);
        let r = reserve(&u, &t, 30).unwrap();
        assert_eq!(u.quota.load(Ordering::Acquire), 70);
        r.settle(10);
        assert_eq!(u.quota.load(Ordering::Acquire), 90);
        assert_eq!(t.remain.load(Ordering::Acquire), 40);
        let mut more = reserve(&u, &t, 10).unwrap();
        assert!(more.extend(20));
        assert_eq!(more.amount(), 30);
        assert!(!more.extend(1000), "the wallet cannot cover it");
        assert_eq!(
            u.quota.load(Ordering::Acquire),
            60,
            "nothing taken by a failed extension"
        );
        more.refund();
        assert_eq!(u.quota.load(Ordering::Acquire), 90);
        assert!(matches!(
            reserve(&u, &t, 41),
            Err(BillingError::TokenQuotaShort { .. })
        ));
        assert_eq!(
            u.quota.load(Ordering::Acquire),
            90,
            "user refunded when the token is short"
        );
        assert!(matches!(
            reserve(&u, &t, 91),
            Err(BillingError::UserQuotaShort { .. })
        ));
        reserve(&u, &t, 40).unwrap().refund();
        assert_eq!(u.quota.load(Ordering::Acquire), 90);
    }

    #[test]
    fn concurrent_reservations_never_overdraw() {
        let (u, t) = entries(1000, 1_000_000);
        let ok: usize = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        (0..100)
                            .filter_map(|_| reserve(&u, &t, 7).ok())
                            .map(std::mem::forget)
                            .count()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(ok, 1000 / 7);
        assert_eq!(u.quota.load(Ordering::Acquire), 1000 % 7);
    }
}
