//! Leases of fleet budget: how much of a user's wallet (or a token's remaining quota) this
//! gateway has claimed in Redis. A gateway spends a balance only within its lease, so the
//! gateways of a fleet together never spend more than the control plane's figure; spending
//! within the lease needs no Redis call. Pure bookkeeping (the Redis side is `fleet`).
//!
//! A lease covers this gateway's *outstanding* spending of a subject (quota held by requests in
//! flight and charged by records the control plane has not reflected yet, as the carry counts
//! it) plus a *spare* taken ahead when the balance is ample. When a snapshot reflects charged
//! records, their quota leaves the control plane's figure and the lease at once.

use std::collections::HashMap;

/// A balance a lease is taken on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    User(i64),
    Token(i64),
}

impl Subject {
    /// The subject's part of its Redis key.
    pub fn key(self) -> String {
        match self {
            Subject::User(id) => format!("u:{id}"),
            Subject::Token(id) => format!("t:{id}"),
        }
    }
}

/// What this gateway holds of one subject.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lease {
    /// The amount claimed in Redis for this gateway.
    pub claimed: i64,
    /// The control plane's figure of the balance, and the config version it is from.
    pub balance: i64,
    pub version: u64,
    /// Whether the last grant found the balance ample (spare is then kept, and a stream may
    /// run past its lease until the next sync).
    pub ample: bool,
    /// The claim changed (or must be confirmed) in Redis.
    pub dirty: bool,
}

/// A claim to ask Redis for: at least `min` (the outstanding amount with the new request),
/// more as spare when the balance is ample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    pub subject: Subject,
    pub min: i64,
    /// The request's amount (sizes the spare).
    pub amount: i64,
    pub balance: i64,
    pub version: u64,
}

/// A claim to confirm in Redis as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub subject: Subject,
    pub claimed: i64,
    pub balance: i64,
    pub version: u64,
}

/// The leases of one gateway.
#[derive(Debug, Default)]
pub struct Leases {
    by_subject: HashMap<Subject, Lease>,
}

impl Leases {
    /// Whether `outstanding + amount` fits the lease of `subject`; otherwise what to ask for.
    /// `balance`/`version` are the control plane's figure in the request's snapshot.
    pub fn check(
        &self,
        subject: Subject,
        outstanding: i64,
        amount: i64,
        balance: i64,
        version: u64,
    ) -> Option<Want> {
        let claimed = self.by_subject.get(&subject).map_or(0, |l| l.claimed);
        let min = outstanding.saturating_add(amount);
        (min > claimed).then_some(Want {
            subject,
            min,
            amount,
            balance,
            version,
        })
    }

    /// Whether a stream may grow past its lease: the subject's balance was ample at the last
    /// grant (the claim is raised and confirmed at the next sync).
    pub fn stretch(&mut self, subject: Subject, outstanding: i64) -> bool {
        match self.by_subject.get_mut(&subject) {
            Some(l) if l.ample => {
                if outstanding > l.claimed {
                    l.claimed = outstanding;
                    l.dirty = true;
                }
                true
            }
            _ => false,
        }
    }

    /// Redis granted `claimed` for `subject` (figure `balance` of `version`).
    pub fn granted(
        &mut self,
        subject: Subject,
        claimed: i64,
        ample: bool,
        balance: i64,
        version: u64,
    ) {
        let l = self.by_subject.entry(subject).or_default();
        if version >= l.version {
            l.balance = balance;
            l.version = version;
        }
        l.claimed = claimed;
        l.ample = ample;
    }

    /// A snapshot of `version` reflects `reflected` quota of `subject` (its new figure is
    /// `balance`): that quota leaves the lease, as it left the balance. A figure that fell
    /// further gives the spare back (see [`Leases::refigure`]).
    pub fn reflected(
        &mut self,
        subject: Subject,
        reflected: i64,
        balance: i64,
        version: u64,
        outstanding: i64,
    ) {
        if let Some(l) = self.by_subject.get_mut(&subject) {
            l.claimed = (l.claimed - reflected).max(0);
            l.balance -= reflected;
            l.dirty = true;
        }
        self.refigure(subject, balance, version, outstanding);
    }

    /// A snapshot of `version` puts `subject`'s figure at `balance`. A figure that fell for
    /// another reason than this gateway's reflected spending (an administrator's debit, other
    /// gateways' spending) may no longer cover the spare: it is given back.
    pub fn refigure(&mut self, subject: Subject, balance: i64, version: u64, outstanding: i64) {
        if let Some(l) = self.by_subject.get_mut(&subject)
            && version > l.version
        {
            if balance < l.balance && l.claimed > outstanding {
                l.claimed = outstanding.max(0);
                l.ample = false;
                l.dirty = true;
            }
            l.balance = balance;
            l.version = version;
        }
    }

    /// The subjects with a lease.
    pub fn subjects(&self) -> Vec<Subject> {
        self.by_subject.keys().copied().collect()
    }

    /// Gives back what is not outstanding: leases of balances that are not ample, or that
    /// Redis asked to drain (`drain`), shrink to `outstanding(subject)`.
    pub fn trim(&mut self, drain: &[Subject], outstanding: impl Fn(Subject) -> i64) {
        for (subject, l) in &mut self.by_subject {
            if l.ample && !drain.contains(subject) {
                continue;
            }
            let need = outstanding(*subject).max(0);
            if l.claimed != need {
                l.claimed = need;
                l.ample = false;
                l.dirty = true;
            }
        }
    }

    /// Marks every lease for confirmation (Redis lost its state, or came back after an outage),
    /// claiming at least what is outstanding, for every subject with spending outstanding.
    pub fn reassert(&mut self, outstanding: &[(Subject, i64)]) {
        for &(subject, amount) in outstanding {
            let l = self.by_subject.entry(subject).or_default();
            l.claimed = l.claimed.max(amount);
        }
        for l in self.by_subject.values_mut() {
            l.dirty = true;
        }
    }

    /// Leases to confirm in Redis, marked clean; leases down to zero are forgotten after.
    pub fn take_dirty(&mut self) -> Vec<Claim> {
        let claims: Vec<Claim> = self
            .by_subject
            .iter_mut()
            .filter(|(_, l)| l.dirty)
            .map(|(subject, l)| {
                l.dirty = false;
                Claim {
                    subject: *subject,
                    claimed: l.claimed,
                    balance: l.balance,
                    version: l.version,
                }
            })
            .collect();
        self.by_subject.retain(|_, l| l.claimed > 0);
        claims
    }

    /// Every lease, to refresh in Redis (a lease not refreshed for a while is taken as the
    /// claim of a gateway that is gone).
    pub fn all(&self) -> Vec<Claim> {
        self.by_subject
            .iter()
            .map(|(subject, l)| Claim {
                subject: *subject,
                claimed: l.claimed,
                balance: l.balance,
                version: l.version,
            })
            .collect()
    }

    /// A subject's lease (tests).
    pub fn get(&self, subject: Subject) -> Option<Lease> {
        self.by_subject.get(&subject).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: Subject = Subject::User(1);

    #[test]
    fn spending_within_the_lease_needs_no_claim() {
        let mut leases = Leases::default();
        assert_eq!(
            leases.check(U, 0, 10, 100, 3),
            Some(Want {
                subject: U,
                min: 10,
                amount: 10,
                balance: 100,
                version: 3
            })
        );
        leases.granted(U, 40, true, 100, 3);
        assert_eq!(leases.check(U, 10, 30, 100, 3), None);
        assert!(leases.check(U, 10, 31, 100, 3).is_some());
    }

    #[test]
    fn reflected_spending_leaves_the_lease_with_the_balance() {
        let mut leases = Leases::default();
        leases.granted(U, 40, true, 100, 3);
        leases.reflected(U, 25, 75, 4, 10);
        let lease = leases.get(U).unwrap_or_default();
        assert_eq!((lease.claimed, lease.balance, lease.version), (15, 75, 4));
        // An older figure never replaces a newer one.
        leases.granted(U, 15, true, 100, 3);
        assert_eq!(leases.get(U).map(|l| l.balance), Some(75));
        assert_eq!(leases.take_dirty().len(), 1);
        assert!(leases.take_dirty().is_empty());
    }

    #[test]
    fn spare_is_given_back_when_the_balance_is_low_or_drained() {
        let mut leases = Leases::default();
        leases.granted(U, 50, true, 1000, 1);
        leases.granted(Subject::Token(7), 30, false, 30, 1);
        leases.trim(&[], |_| 10);
        assert_eq!(
            leases.get(U).map(|l| l.claimed),
            Some(50),
            "ample keeps its spare"
        );
        assert_eq!(leases.get(Subject::Token(7)).map(|l| l.claimed), Some(10));
        leases.trim(&[U], |_| 0);
        assert_eq!(leases.get(U).map(|l| l.claimed), Some(0));
        let claims = leases.take_dirty();
        assert_eq!(claims.len(), 2);
        assert!(
            leases.get(U).is_none(),
            "a zero lease is forgotten once confirmed"
        );
    }

    #[test]
    fn a_lower_figure_takes_the_spare_back() {
        let mut leases = Leases::default();
        leases.granted(U, 50, true, 1000, 1);
        leases.refigure(U, 1000, 2, 10);
        assert_eq!(leases.get(U).map(|l| l.claimed), Some(50), "same figure");
        leases.refigure(U, 900, 3, 10);
        assert_eq!(
            leases.get(U).map(|l| (l.claimed, l.ample, l.balance)),
            Some((10, false, 900))
        );
    }

    #[test]
    fn a_stream_stretches_only_an_ample_lease() {
        let mut leases = Leases::default();
        leases.granted(U, 50, false, 60, 1);
        assert!(!leases.stretch(U, 70));
        leases.granted(U, 50, true, 6000, 1);
        assert!(leases.stretch(U, 70));
        assert_eq!(
            leases.get(U).map(|l| (l.claimed, l.dirty)),
            Some((70, true))
        );
    }
}
