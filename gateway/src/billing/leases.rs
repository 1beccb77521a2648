//! Leases of fleet budget: how much of a user's wallet (or a token's remaining quota) this
//! gateway has claimed in Redis. A gateway spends a balance only within its lease, so the
//! gateways of a fleet together never spend more than the control plane's figure; spending
//! within the lease needs no Redis call. Pure bookkeeping (the Redis side is `fleet`).
//!
//! A lease covers this gateway's *outstanding* spending of a subject (quota held by requests in
//! flight and charged by records the control plane has not reflected yet, as the carry counts
//! it) plus a *spare* taken ahead when the balance is ample. When a snapshot reflects charged
//! records, their quota leaves the control plane's figure and the lease at once.
//!
//! Every change of a claim, whether decided here or asked of Redis, is stamped with a sequence
//! number from one counter per gateway. Redis keeps the newest write of each gateway's claim
//! and a lease here takes a grant's answer only when no newer decision came before it. Calls
//! that overtake each other, on the wire or between tasks, then cannot leave this gateway
//! spending more than Redis holds for it.
//!
//! A lease that falls to zero is kept for [`KEEP_ZERO`] before it is forgotten: it carries the
//! newest figure of the balance this gateway knows (its own spending reflected), which Redis
//! needs again if it loses its state while other gateways still ask with an older figure.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a lease down to zero is kept (and confirmed with its figure) before it is
/// forgotten: longer than a config version takes to reach every gateway, so that no gateway
/// still asks with a figure older than the one this lease holds.
pub const KEEP_ZERO: Duration = Duration::from_secs(10);

/// A grant's spare when the balance is ample, in units of the want's spare basis (the grant
/// script's `16 * amount`; see [`spare_basis`]).
pub const SPARE_AMOUNTS: i64 = 16;

/// A lease whose headroom (claimed less outstanding) falls below this many units of the spare
/// basis, half a grant's spare, is topped up in the background, so that the requests after
/// it keep finding room in it instead of waiting for Redis.
pub const TOP_UP_BELOW: i64 = SPARE_AMOUNTS / 2;

/// What a want's spare is sized by: the request's amount, or a sixteenth of what this gateway
/// has outstanding of the subject when that is more. A spare of 16 requests alone is used up
/// by a burst of 17 requests in flight at once (a client's burst, or the queue after a stall),
/// and each of them would wait for Redis; a spare as large as the outstanding amount grows with
/// the rate this gateway spends at (outstanding is about that rate times the time the control
/// plane takes to reflect a charge). It is a spare only where the balance is ample against it
/// (at least 64 bases per gateway).
pub fn spare_basis(amount: i64, outstanding: i64) -> i64 {
    amount.max(outstanding / SPARE_AMOUNTS)
}

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
    /// The sequence number of the decision that set `claimed`.
    pub seq: u64,
    /// A top-up of this lease is on its way to Redis (see [`Leases::top_up`]).
    pub topping: bool,
    /// Since when the claim has been zero (kept for [`KEEP_ZERO`]).
    pub zero_since: Option<Instant>,
}

/// A claim to ask Redis for: at least `min` (the outstanding amount with the new request),
/// then as much of `queued` as the balance has (other requests of this gateway waiting for
/// the same lease, so that one answer admits the whole burst), and more as spare when the
/// balance is ample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    pub subject: Subject,
    pub min: i64,
    /// The spare's basis (see [`spare_basis`]).
    pub amount: i64,
    /// The amounts of this gateway's other requests waiting for a grant of the subject.
    pub queued: i64,
    pub balance: i64,
    pub version: u64,
    /// Orders this claim among this gateway's writes (Redis keeps the newest).
    pub seq: u64,
}

/// A claim to confirm in Redis as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub subject: Subject,
    pub claimed: i64,
    pub balance: i64,
    pub version: u64,
    pub seq: u64,
}

/// The leases of one gateway.
#[derive(Debug)]
pub struct Leases {
    by_subject: HashMap<Subject, Lease>,
    /// The last sequence number given out. It starts at the clock in microseconds, so that a
    /// gateway restarted under the same name writes after its former self.
    seq: u64,
    /// The newest decision of a lease that was forgotten (down to zero): a late grant's answer
    /// for a subject with no lease is taken only when newer.
    forgotten: u64,
}

impl Default for Leases {
    fn default() -> Self {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX / 2));
        Leases {
            by_subject: HashMap::new(),
            seq: now,
            forgotten: 0,
        }
    }
}

impl Leases {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Whether `outstanding + amount` fits the lease of `subject`; otherwise what to ask for,
    /// with `queued` waiting besides. `balance`/`version` are the control plane's figure in
    /// the request's snapshot.
    pub fn check(
        &mut self,
        subject: Subject,
        outstanding: i64,
        amount: i64,
        queued: i64,
        balance: i64,
        version: u64,
    ) -> Option<Want> {
        let lease = self.by_subject.get(&subject);
        let claimed = lease.map_or(0, |l| l.claimed);
        // A request that began on an older snapshot asks with the newest figure known here.
        let (balance, version) = match lease {
            Some(l) if l.version > version => (l.balance, l.version),
            _ => (balance, version),
        };
        let min = outstanding.saturating_add(amount);
        (min > claimed).then(|| Want {
            subject,
            min,
            amount: spare_basis(amount, outstanding),
            queued: queued.max(0),
            balance,
            version,
            seq: self.next_seq(),
        })
    }

    /// A claim to ask for in the background after a request was held within the lease of
    /// `subject` (`outstanding` includes it): when the balance was ample at the last grant, the
    /// headroom left is below [`TOP_UP_BELOW`] spare bases and no top-up is on its way. The
    /// claim asks for at least what is claimed now, so that its answer cannot shrink a lease
    /// that requests admitted meanwhile spend from; Redis adds the spare when the balance is
    /// still ample.
    pub fn top_up(
        &mut self,
        subject: Subject,
        outstanding: i64,
        amount: i64,
        balance: i64,
        version: u64,
    ) -> Option<Want> {
        let seq = self.seq + 1;
        let l = self.by_subject.get_mut(&subject)?;
        let headroom = l.claimed.saturating_sub(outstanding);
        let basis = spare_basis(amount, outstanding);
        if !l.ample || l.topping || amount <= 0 || headroom >= basis.saturating_mul(TOP_UP_BELOW) {
            return None;
        }
        let (balance, version) = if l.version > version {
            (l.balance, l.version)
        } else {
            (balance, version)
        };
        l.topping = true;
        self.seq = seq;
        Some(Want {
            subject,
            min: l.claimed.max(outstanding),
            amount: basis,
            queued: 0,
            balance,
            version,
            seq,
        })
    }

    /// The top-up of `subject` was answered or given up: another may start.
    pub fn topped_up(&mut self, subject: Subject) {
        if let Some(l) = self.by_subject.get_mut(&subject) {
            l.topping = false;
        }
    }

    /// Whether a stream may grow past its lease: the subject's balance was ample at the last
    /// grant (the claim is raised and confirmed at the next sync).
    pub fn stretch(&mut self, subject: Subject, outstanding: i64) -> bool {
        let seq = self.seq + 1;
        match self.by_subject.get_mut(&subject) {
            Some(l) if l.ample => {
                if outstanding > l.claimed {
                    l.claimed = outstanding;
                    l.dirty = true;
                    l.seq = seq;
                    self.seq = seq;
                }
                true
            }
            _ => false,
        }
    }

    /// Redis granted `claimed` for `subject` (figure `balance` of `version`) to the want of
    /// sequence number `seq`. A decision taken here after the want was stamped stands instead.
    pub fn granted(
        &mut self,
        subject: Subject,
        claimed: i64,
        ample: bool,
        balance: i64,
        version: u64,
        seq: u64,
    ) {
        let forgotten = self.forgotten;
        let l = self.by_subject.entry(subject).or_insert_with(|| Lease {
            seq: forgotten,
            ..Lease::default()
        });
        if version >= l.version {
            l.balance = balance;
            l.version = version;
        }
        if seq > l.seq {
            l.claimed = claimed;
            l.ample = ample;
            l.seq = seq;
        }
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
        unacknowledged: i64,
    ) {
        let seq = self.seq + 1;
        if let Some(l) = self.by_subject.get_mut(&subject) {
            l.claimed = (l.claimed - reflected).max(0);
            l.balance -= reflected;
            l.dirty = true;
            l.seq = seq;
            self.seq = seq;
        }
        self.refigure(subject, balance, version, outstanding, unacknowledged);
    }

    /// A snapshot of `version` puts `subject`'s figure at `balance`. A figure that fell for
    /// another reason than this gateway's reflected spending (an administrator's debit,
    /// spending outside any lease) may no longer cover the spare: it is given back.
    ///
    /// `unacknowledged` is what this gateway charged of the subject in records the control
    /// plane has not acknowledged yet. The control plane may have taken them in already (its
    /// acknowledgement and its next config version race to this gateway), and those charges
    /// were spent within this lease: a fall they can explain leaves the spare as it is, and
    /// the figure is compared again once they are acknowledged and reflected.
    pub fn refigure(
        &mut self,
        subject: Subject,
        balance: i64,
        version: u64,
        outstanding: i64,
        unacknowledged: i64,
    ) {
        let seq = self.seq + 1;
        if let Some(l) = self.by_subject.get_mut(&subject)
            && version > l.version
        {
            if balance < l.balance && l.claimed > outstanding {
                if balance.saturating_add(unacknowledged.max(0)) >= l.balance {
                    return;
                }
                l.claimed = outstanding.max(0);
                l.ample = false;
                l.dirty = true;
                l.seq = seq;
                self.seq = seq;
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
                self.seq += 1;
                l.seq = self.seq;
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
            self.seq += 1;
            l.seq = self.seq;
        }
    }

    /// Leases to confirm in Redis, marked clean; leases down to zero for [`KEEP_ZERO`] are
    /// forgotten after.
    pub fn take_dirty(&mut self) -> Vec<Claim> {
        self.take_dirty_at(Instant::now())
    }

    /// [`Leases::take_dirty`] at `now`.
    pub fn take_dirty_at(&mut self, now: Instant) -> Vec<Claim> {
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
                    seq: l.seq,
                }
            })
            .collect();
        let forgotten = &mut self.forgotten;
        self.by_subject.retain(|_, l| {
            if l.claimed > 0 {
                l.zero_since = None;
                return true;
            }
            let since = *l.zero_since.get_or_insert(now);
            if now.saturating_duration_since(since) < KEEP_ZERO {
                return true;
            }
            *forgotten = (*forgotten).max(l.seq);
            false
        });
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
                seq: l.seq,
            })
            .collect()
    }

    /// A subject's lease.
    pub fn get(&self, subject: Subject) -> Option<Lease> {
        self.by_subject.get(&subject).copied()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]
    use super::*;

    const U: Subject = Subject::User(1);

    /// Redis's answer to a want stamped now.
    fn grant(leases: &mut Leases, subject: Subject, claimed: i64, ample: bool, balance: i64) {
        let seq = leases.next_seq();
        leases.granted(subject, claimed, ample, balance, 3, seq);
    }

    #[test]
    fn a_lease_running_low_is_topped_up_once_at_a_time() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 2000, true, 1_000_000);
        // 1 100 of headroom is more than 8 requests of 100: nothing to do.
        assert_eq!(leases.top_up(U, 900, 100, 1_000_000, 3), None);
        let want = leases
            .top_up(U, 1300, 100, 1_000_000, 3)
            .expect("headroom below 800");
        assert_eq!((want.min, want.amount, want.queued), (2000, 100, 0));
        assert!(want.seq > leases.get(U).map_or(0, |l| l.seq));
        assert_eq!(
            leases.top_up(U, 1400, 100, 1_000_000, 3),
            None,
            "one on its way"
        );
        // The answer keeps the claim and adds the spare.
        leases.granted(U, 2000 + 16 * 100, true, 1_000_000, 3, want.seq);
        leases.topped_up(U);
        assert_eq!(
            leases.get(U).map(|l| (l.claimed, l.topping)),
            Some((3600, false))
        );
        assert_eq!(leases.top_up(U, 1500, 100, 1_000_000, 3), None);
        assert!(leases.top_up(U, 2900, 100, 1_000_000, 3).is_some());
    }

    #[test]
    fn a_top_up_asks_for_no_less_than_is_outstanding() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 1000, true, 1_000_000);
        // A stream stretched past the claim: the top-up covers what is spent.
        let want = leases
            .top_up(U, 1050, 20, 1_000_000, 3)
            .expect("no headroom");
        assert_eq!(want.min, 1050);
    }

    #[test]
    fn the_spare_grows_with_what_is_outstanding() {
        assert_eq!(spare_basis(100, 800), 100);
        assert_eq!(spare_basis(100, 32_000), 2000);
        let mut leases = Leases::default();
        let want = leases.check(U, 32_000, 100, 0, 1_000_000, 3).unwrap();
        assert_eq!((want.min, want.amount), (32_100, 2000));
        grant(&mut leases, U, 64_000, true, 1_000_000);
        // Top-ups start below half a spare, which grows with what is outstanding: at 40 000
        // half a spare is 20 000 and 24 000 are left, at 44 000 it is 22 000 and 20 000 are.
        assert_eq!(leases.top_up(U, 40_000, 100, 1_000_000, 3), None);
        assert!(leases.top_up(U, 44_000, 100, 1_000_000, 3).is_some());
    }

    #[test]
    fn only_ample_leases_are_topped_up() {
        let mut leases = Leases::default();
        assert_eq!(leases.top_up(U, 10, 20, 1_000_000, 3), None, "no lease");
        grant(&mut leases, U, 1000, false, 5_000);
        assert_eq!(leases.top_up(U, 990, 20, 5_000, 3), None);
    }

    #[test]
    fn spending_within_the_lease_needs_no_claim() {
        let mut leases = Leases::default();
        let want = leases.check(U, 0, 10, 0, 100, 3);
        assert_eq!(
            want.map(|w| (w.subject, w.min, w.amount, w.balance, w.version)),
            Some((U, 10, 10, 100, 3))
        );
        grant(&mut leases, U, 40, true, 100);
        assert_eq!(leases.check(U, 10, 30, 0, 100, 3), None);
        assert!(leases.check(U, 10, 31, 0, 100, 3).is_some());
    }

    #[test]
    fn reflected_spending_leaves_the_lease_with_the_balance() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 40, true, 100);
        leases.reflected(U, 25, 75, 4, 10, 0);
        let lease = leases.get(U).unwrap_or_default();
        assert_eq!((lease.claimed, lease.balance, lease.version), (15, 75, 4));
        // An older figure never replaces a newer one.
        grant(&mut leases, U, 15, true, 100);
        assert_eq!(leases.get(U).map(|l| l.balance), Some(75));
        // A request that began on an older snapshot asks with the newer figure.
        let want = leases.check(U, 15, 100, 0, 100, 3);
        assert_eq!(want.map(|w| (w.balance, w.version)), Some((75, 4)));
        assert_eq!(leases.take_dirty().len(), 1);
        assert!(leases.take_dirty().is_empty());
    }

    #[test]
    fn spare_is_given_back_when_the_balance_is_low_or_drained() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 50, true, 1000);
        grant(&mut leases, Subject::Token(7), 30, false, 30);
        leases.trim(&[], |_| 10);
        assert_eq!(
            leases.get(U).map(|l| l.claimed),
            Some(50),
            "ample keeps its spare"
        );
        assert_eq!(leases.get(Subject::Token(7)).map(|l| l.claimed), Some(10));
        leases.trim(&[U], |_| 0);
        assert_eq!(leases.get(U).map(|l| l.claimed), Some(0));
        let now = Instant::now();
        let claims = leases.take_dirty_at(now);
        assert_eq!(claims.len(), 2);
        assert!(leases.get(U).is_some(), "a zero lease is kept a while");
        assert_eq!(leases.all().len(), 2, "and confirmed with the others");
        leases.take_dirty_at(now + KEEP_ZERO / 2);
        assert!(leases.get(U).is_some());
        leases.take_dirty_at(now + KEEP_ZERO);
        assert!(leases.get(U).is_none(), "then it is forgotten");
    }

    #[test]
    fn a_fall_explained_by_unacknowledged_charges_keeps_the_spare() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 50, true, 1000);
        // Version 4 already holds 20 this gateway charged, whose acknowledgement is on its way.
        leases.refigure(U, 980, 4, 10, 30);
        let l = leases.get(U).unwrap();
        assert_eq!(
            (l.claimed, l.ample, l.balance, l.version),
            (50, true, 1000, 3)
        );
        // Acknowledged, version 5 reflects them; 5 more are in it before their own ack.
        leases.reflected(U, 20, 975, 5, 10, 5);
        let l = leases.get(U).unwrap();
        assert_eq!((l.claimed, l.ample, l.balance), (30, true, 980));
        // A fall of 75 that 5 unacknowledged cannot explain: the spare goes back.
        leases.refigure(U, 900, 6, 10, 5);
        let l = leases.get(U).unwrap();
        assert_eq!(
            (l.claimed, l.ample, l.balance, l.version),
            (10, false, 900, 6)
        );
    }

    #[test]
    fn a_lower_figure_takes_the_spare_back() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 50, true, 1000);
        leases.refigure(U, 1000, 4, 10, 0);
        assert_eq!(leases.get(U).map(|l| l.claimed), Some(50), "same figure");
        leases.refigure(U, 900, 5, 10, 0);
        assert_eq!(
            leases.get(U).map(|l| (l.claimed, l.ample, l.balance)),
            Some((10, false, 900))
        );
    }

    #[test]
    fn a_stream_stretches_only_an_ample_lease() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 50, false, 60);
        assert!(!leases.stretch(U, 70));
        grant(&mut leases, U, 50, true, 6000);
        assert!(leases.stretch(U, 70));
        assert_eq!(
            leases.get(U).map(|l| (l.claimed, l.dirty)),
            Some((70, true))
        );
    }

    #[test]
    fn an_answer_overtaken_by_a_newer_decision_is_not_taken() {
        let mut leases = Leases::default();
        grant(&mut leases, U, 50, false, 60);
        // A want is stamped and sent; before its answer, the lease is trimmed here.
        let want = leases.check(U, 50, 10, 0, 60, 3);
        let seq = want.map_or(0, |w| w.seq);
        leases.trim(&[U], |_| 20);
        leases.granted(U, 60, false, 60, 3, seq);
        assert_eq!(leases.get(U).map(|l| l.claimed), Some(20));
        // Of two answers, the newer want's stands whatever order they are taken in.
        let first = leases.check(U, 20, 10, 0, 60, 3).map_or(0, |w| w.seq);
        let second = leases.check(U, 20, 20, 0, 60, 3).map_or(0, |w| w.seq);
        leases.granted(U, 40, false, 60, 3, second);
        leases.granted(U, 30, false, 60, 3, first);
        assert_eq!(leases.get(U).map(|l| l.claimed), Some(40));
        // A lease forgotten at zero does not come back with a late answer.
        let late = leases.check(U, 40, 10, 0, 60, 3).map_or(0, |w| w.seq);
        leases.trim(&[U], |_| 0);
        let now = Instant::now();
        let claims = leases.take_dirty_at(now);
        leases.take_dirty_at(now + KEEP_ZERO);
        assert!(claims.iter().all(|c| c.seq > late));
        leases.granted(U, 50, false, 60, 3, late);
        assert_eq!(leases.get(U).map_or(0, |l| l.claimed), 0);
    }
}
