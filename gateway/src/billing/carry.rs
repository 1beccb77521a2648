//! Spending a new snapshot cannot know yet: quota held by requests in flight, and quota
//! charged by usage records that the control plane has not yet reflected in its config
//! feed. A new snapshot's balances are the control plane's figures minus these, so a config
//! swap never hands back quota that was already spent (no overdraw across swaps).
//!
//! A record leaves the carry once its batch is acknowledged with a config version and a
//! snapshot of at least that version is applied: from then on the control plane's own
//! balances include it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use super::leases::{Claim, Leases, Subject, Want};
use crate::config::delta::Fresh;
use crate::config::{Snapshot, TokenEntry, UserEntry};
use crate::id_hash::IdMap;
use std::sync::atomic::Ordering;

/// A usage record's request id as a 128-bit fingerprint (XXH3): a fixed 16 bytes held in
/// the map's own slots, where a `String` key cost an allocation per record and a second
/// cache line at every probe. Request ids are made by gateways (a timestamp and random
/// bits), and two of the records outstanding at once sharing a fingerprint is as likely
/// as a 128-bit random collision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordKey(u128);

impl RecordKey {
    /// The key of the record of `request_id`.
    pub fn of(request_id: &str) -> Self {
        RecordKey(xxhash_rust::xxh3::xxh3_128(request_id.as_bytes()))
    }
}

type RecordMap<V> = IdMap<RecordKey, V>;

/// One charged record's amounts.
#[derive(Debug, Clone, Copy)]
struct Charge {
    user: i64,
    token: i64,
    quota: i64,
}

#[derive(Debug, Default)]
struct Inner {
    /// Held and charged quota not in the control plane's figures, by user and by token.
    users: IdMap<i64, i64>,
    tokens: IdMap<i64, i64>,
    /// Charged records not yet reflected, by request id.
    charged: RecordMap<Charge>,
    /// Acknowledged records, by the config version from which snapshots include them.
    reflected_from: BTreeMap<u64, Vec<RecordKey>>,
    /// Leases of fleet budget (gateways sharing balances through Redis).
    leases: Leases,
    /// Whether spending must stay within the leases (Redis configured and reachable).
    enforce_leases: bool,
    /// Amounts of requests waiting for a grant, by subject (see [`Queued`]).
    queued: HashMap<Subject, i64>,
}

impl Inner {
    fn outstanding(&self, subject: Subject) -> i64 {
        match subject {
            Subject::User(id) => self.users.get(&id).copied().unwrap_or(0),
            Subject::Token(id) => self.tokens.get(&id).copied().unwrap_or(0),
        }
    }

    /// The subjects a request of `user` with `token` spends (a token's own balance only when
    /// it is limited), with their control plane figures.
    fn subjects(user: &UserEntry, token: &TokenEntry) -> impl Iterator<Item = (Subject, i64)> {
        std::iter::once((Subject::User(user.id), user.cp_quota))
            .chain((!token.unlimited).then_some((Subject::Token(token.id), token.cp_remain)))
    }

    /// Every lease confirmed again, and one for every subject with spending outstanding.
    fn reassert(&mut self) {
        let outstanding: Vec<(Subject, i64)> = (self.users.iter())
            .map(|(id, q)| (Subject::User(*id), *q))
            .chain(self.tokens.iter().map(|(id, q)| (Subject::Token(*id), *q)))
            .collect();
        self.leases.reassert(&outstanding);
    }

    /// What charged records not acknowledged yet hold, by subject.
    fn unacknowledged(&self) -> HashMap<Subject, i64> {
        let acknowledged: std::collections::HashSet<RecordKey> =
            self.reflected_from.values().flatten().copied().collect();
        let mut sums: HashMap<Subject, i64> = HashMap::new();
        for (key, c) in self.charged.iter() {
            if !acknowledged.contains(key) {
                *sums.entry(Subject::User(c.user)).or_default() += c.quota;
                *sums.entry(Subject::Token(c.token)).or_default() += c.quota;
            }
        }
        sums
    }

    fn add(&mut self, user: i64, token: i64, amount: i64) {
        for (map, id) in [(&mut self.users, user), (&mut self.tokens, token)] {
            let sum = map.entry(id).or_default();
            *sum += amount;
            if *sum == 0 {
                map.remove(&id);
            }
        }
    }
}

/// The carry of one gateway (shared by the relay, the usage reporter and the config watch).
#[derive(Debug, Default)]
pub struct Carry {
    inner: Mutex<Inner>,
}

impl Carry {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// A request reserved `amount` before relaying.
    pub fn hold(&self, user: i64, token: i64, amount: i64) {
        if amount != 0 {
            self.lock().add(user, token, amount);
        }
    }

    /// The reservation ended (settled or refunded).
    pub fn release(&self, user: i64, token: i64, amount: i64) {
        if amount != 0 {
            self.lock().add(user, token, -amount);
        }
    }

    /// Holds `amount` for a request of `user` with `token` (snapshot `version`) when every
    /// lease covers it, or always while leases are not enforced; otherwise nothing is held and
    /// the answer says which leases to grow. Once held, the answer lists the leases that ran
    /// low, to top up in the background (see [`Leases::top_up`]); the caller hands each back
    /// with [`Carry::topped_up`] once answered.
    pub fn try_hold(
        &self,
        user: &UserEntry,
        token: &TokenEntry,
        version: u64,
        amount: i64,
    ) -> Result<Vec<Want>, Vec<Want>> {
        let mut inner = self.lock();
        if !inner.enforce_leases || amount <= 0 {
            inner.add(user.id, token.id, amount);
            return Ok(Vec::new());
        }
        let mut wants = Vec::new();
        for (subject, balance) in Inner::subjects(user, token) {
            let outstanding = inner.outstanding(subject);
            let queued = inner.queued.get(&subject).copied().unwrap_or(0);
            wants.extend(inner.leases.check(
                subject,
                outstanding,
                amount,
                queued,
                balance,
                version,
            ));
        }
        if !wants.is_empty() {
            return Err(wants);
        }
        inner.add(user.id, token.id, amount);
        let mut top_ups = Vec::new();
        for (subject, balance) in Inner::subjects(user, token) {
            // Requests waiting for a grant of the subject bring a spare with it; a top-up now
            // would only overtake their claims, and they would ask again.
            if inner.queued.contains_key(&subject) {
                continue;
            }
            let outstanding = inner.outstanding(subject);
            top_ups.extend(
                inner
                    .leases
                    .top_up(subject, outstanding, amount, balance, version),
            );
        }
        Ok(top_ups)
    }

    /// The top-ups of `wants` were answered or given up.
    pub fn topped_up(&self, wants: &[Want]) {
        let mut inner = self.lock();
        for want in wants {
            inner.leases.topped_up(want.subject);
        }
    }

    /// Holds `extra` more for a stream that outgrew its reservation: within the leases, or
    /// past them where the balance was ample at the last grant; `false` and nothing held
    /// otherwise.
    pub fn try_extend(&self, user: &UserEntry, token: &TokenEntry, extra: i64) -> bool {
        let mut inner = self.lock();
        if inner.enforce_leases && extra > 0 {
            let subjects: Vec<(Subject, i64)> = Inner::subjects(user, token)
                .map(|(subject, _)| (subject, inner.outstanding(subject) + extra))
                .collect();
            let fits = subjects.iter().all(|&(subject, after)| {
                inner
                    .leases
                    .get(subject)
                    .is_some_and(|l| after <= l.claimed || l.ample)
            });
            if !fits {
                return false;
            }
            for (subject, after) in subjects {
                inner.leases.stretch(subject, after);
            }
        }
        inner.add(user.id, token.id, extra);
        true
    }

    /// Notes a request of `amount` waiting for the grant of `wants`, until the returned guard
    /// is dropped: the wants of the requests after it ask for its amount too.
    pub fn queue(&self, wants: &[Want], amount: i64) -> Queued<'_> {
        let subjects: Vec<Subject> = wants.iter().map(|w| w.subject).collect();
        let mut inner = self.lock();
        for subject in &subjects {
            *inner.queued.entry(*subject).or_default() += amount;
        }
        Queued {
            carry: self,
            subjects,
            amount,
        }
    }

    /// Redis granted these claims.
    pub fn granted(&self, grants: &[(Want, i64, bool)]) {
        let mut inner = self.lock();
        for (want, claimed, ample) in grants {
            inner.leases.granted(
                want.subject,
                *claimed,
                *ample,
                want.balance,
                want.version,
                want.seq,
            );
        }
    }

    /// Starts or stops enforcing the leases (Redis reachable or not). Starting again confirms
    /// every lease with at least what is outstanding now.
    pub fn enforce_leases(&self, on: bool) {
        let mut inner = self.lock();
        if on && !inner.enforce_leases {
            inner.reassert();
        }
        inner.enforce_leases = on;
    }

    /// Whether spending is held within the leases now.
    pub fn leases_enforced(&self) -> bool {
        self.lock().enforce_leases
    }

    /// The claims to confirm in Redis now: spare of balances that are low or drained is given
    /// back first.
    pub fn claims_to_sync(&self, drain: &[Subject]) -> Vec<Claim> {
        let mut inner = self.lock();
        let Inner {
            leases,
            users,
            tokens,
            ..
        } = &mut *inner;
        leases.trim(drain, |s| match s {
            Subject::User(id) => users.get(&id).copied().unwrap_or(0),
            Subject::Token(id) => tokens.get(&id).copied().unwrap_or(0),
        });
        leases.take_dirty()
    }

    /// Every claim (a periodic refresh), or every claim raised to what is outstanding (Redis
    /// lost its state).
    pub fn all_claims(&self, reassert: bool) -> Vec<Claim> {
        let mut inner = self.lock();
        if reassert {
            inner.reassert();
            inner.leases.take_dirty();
        }
        inner.leases.all()
    }

    /// A usage record charged `quota`; it stays carried until reflected.
    pub fn charged(&self, request_id: &str, user: i64, token: i64, quota: i64) {
        if quota <= 0 {
            return;
        }
        let mut inner = self.lock();
        if inner
            .charged
            .insert(RecordKey::of(request_id), Charge { user, token, quota })
            .is_none()
        {
            inner.add(user, token, quota);
        }
    }

    /// The control plane committed these records; snapshots from `version` on include them
    /// (0: the control plane did not say, so the next snapshot is taken to include them).
    pub fn acknowledged<'a>(&self, version: u64, request_ids: impl IntoIterator<Item = &'a str>) {
        self.acknowledged_keys(version, request_ids.into_iter().map(RecordKey::of));
    }

    /// [`Carry::acknowledged`] with the records' keys.
    pub fn acknowledged_keys(&self, version: u64, keys: impl IntoIterator<Item = RecordKey>) {
        let mut inner = self.lock();
        let known: Vec<RecordKey> = keys
            .into_iter()
            .filter(|key| inner.charged.contains_key(key))
            .collect();
        if !known.is_empty() {
            inner
                .reflected_from
                .entry(version)
                .or_default()
                .extend(known);
        }
    }

    /// Before `snapshot` (config `version`) serves: drops what it reflects, and takes what
    /// it does not from its balances. Entries in `fresh` are new, holding the control plane's
    /// figures: everything outstanding is taken from them. The others are shared with the
    /// snapshot before, whose balances already had it taken; as their figures did not change,
    /// what this version reflects is given back to them. Either way a balance ends as the
    /// control plane's figure minus what is outstanding, and the work follows what is
    /// outstanding and what changed, never the number of tokens.
    pub fn apply(&self, version: u64, snapshot: &Snapshot, fresh: &Fresh) {
        let mut inner = self.lock();
        let later = inner.reflected_from.split_off(&(version + 1));
        let reflected = std::mem::replace(&mut inner.reflected_from, later);
        let mut left: HashMap<Subject, i64> = HashMap::new();
        for key in reflected.into_values().flatten() {
            if let Some(c) = inner.charged.remove(&key) {
                inner.add(c.user, c.token, -c.quota);
                *left.entry(Subject::User(c.user)).or_default() += c.quota;
                *left.entry(Subject::Token(c.token)).or_default() += c.quota;
            }
        }
        let figure = |subject: Subject| match subject {
            Subject::User(id) => snapshot.users.get(&id).map(|u| u.cp_quota),
            Subject::Token(id) => snapshot.token_by_id(id).map(|t| t.cp_remain),
        };
        // Charged and not yet acknowledged, by subject: counted once, when a figure fell.
        let mut unacknowledged: Option<HashMap<Subject, i64>> = None;
        for subject in inner.leases.subjects() {
            let Some(figure) = figure(subject) else {
                continue;
            };
            let outstanding = inner.outstanding(subject);
            let quota = left.get(&subject).copied().unwrap_or(0);
            let fell = inner
                .leases
                .get(subject)
                .is_some_and(|l| figure < l.balance - quota);
            let unacked = if fell {
                let by_subject = unacknowledged.get_or_insert_with(|| inner.unacknowledged());
                by_subject.get(&subject).copied().unwrap_or(0)
            } else {
                0
            };
            if quota > 0 {
                inner
                    .leases
                    .reflected(subject, quota, figure, version, outstanding, unacked);
            } else {
                inner
                    .leases
                    .refigure(subject, figure, version, outstanding, unacked);
            }
        }
        // Shared entries: what is reflected now is in the (unchanged) figure.
        for (subject, quota) in &left {
            match *subject {
                Subject::User(id) if !fresh.user(id) => {
                    if let Some(user) = snapshot.users.get(&id) {
                        user.quota.fetch_add(*quota, Ordering::AcqRel);
                    }
                }
                Subject::Token(id) if !fresh.token(id) => {
                    if let Some(token) = snapshot.token_by_id(id).filter(|t| !t.unlimited) {
                        token.remain.fetch_add(*quota, Ordering::AcqRel);
                    }
                }
                _ => {}
            }
        }
        // New entries: everything outstanding.
        for (id, amount) in inner.users.iter().filter(|(id, _)| fresh.user(**id)) {
            if let Some(user) = snapshot.users.get(id) {
                user.quota.fetch_sub(*amount, Ordering::AcqRel);
            }
        }
        for (id, amount) in inner.tokens.iter().filter(|(id, _)| fresh.token(**id)) {
            if let Some(token) = snapshot.token_by_id(*id).filter(|t| !t.unlimited) {
                token.remain.fetch_sub(*amount, Ordering::AcqRel);
            }
        }
    }

    /// Quota carried for a user now (tests and metrics).
    pub fn user_total(&self, user: i64) -> i64 {
        self.lock().users.get(&user).copied().unwrap_or(0)
    }

    /// Charged records not yet reflected.
    pub fn unreflected(&self) -> usize {
        self.lock().charged.len()
    }

    /// The lease of `subject` (tests).
    #[cfg(test)]
    pub fn lease(&self, subject: Subject) -> Option<super::leases::Lease> {
        self.lock().leases.get(subject)
    }
}

/// A request waiting for a grant (see [`Carry::queue`]); it stops waiting when dropped,
/// answered or cancelled.
#[must_use = "the request waits while this lives"]
#[derive(Debug)]
pub struct Queued<'a> {
    carry: &'a Carry,
    subjects: Vec<Subject>,
    amount: i64,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        let mut inner = self.carry.lock();
        for subject in &self.subjects {
            if let Some(sum) = inner.queued.get_mut(subject) {
                *sum -= self.amount;
                if *sum <= 0 {
                    inner.queued.remove(subject);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::billing::test_support::{one_user, token_index};

    fn snapshot(quota: i64, remain: i64) -> Snapshot {
        one_user(quota, remain, false)
    }

    fn balances(s: &Snapshot) -> (i64, i64) {
        (
            s.users[&1].quota.load(Ordering::Acquire),
            s.tokens[&token_index()].remain.load(Ordering::Acquire),
        )
    }

    #[test]
    fn held_and_unreflected_charges_are_taken_from_a_new_snapshot() {
        let carry = Carry::default();
        carry.hold(1, 7, 50);
        carry.charged("r1", 1, 7, 30);
        carry.charged("r1", 1, 7, 30); // the same record twice counts once
        let s = snapshot(1000, 500);
        carry.apply(5, &s, &Fresh::all());
        assert_eq!(balances(&s), (920, 420));
        carry.release(1, 7, 50);
        assert_eq!(carry.user_total(1), 30);
    }

    #[test]
    fn a_charge_leaves_once_a_snapshot_of_its_version_is_applied() {
        let carry = Carry::default();
        carry.charged("r1", 1, 7, 30);
        carry.charged("r2", 1, 7, 20);
        carry.acknowledged(9, ["r1", "unknown"]);
        let before = snapshot(1000, 500);
        carry.apply(8, &before, &Fresh::all());
        assert_eq!(balances(&before), (950, 450), "version 8 reflects neither");
        let after = snapshot(970, 470);
        carry.apply(9, &after, &Fresh::all());
        assert_eq!(balances(&after), (950, 450), "version 9 reflects r1 only");
        assert_eq!(carry.unreflected(), 1);
        carry.acknowledged(0, ["r2"]);
        let last = snapshot(950, 450);
        carry.apply(10, &last, &Fresh::all());
        assert_eq!(balances(&last), (950, 450));
        assert_eq!((carry.unreflected(), carry.user_total(1)), (0, 0));
    }

    /// The control plane's next version can reach this gateway before the acknowledgement of
    /// the batch it took in: the fall of the figure those charges explain keeps the lease's
    /// spare; a fall they cannot explain gives it back.
    #[test]
    fn a_version_ahead_of_its_acknowledgement_keeps_the_spare() {
        let carry = Carry::default();
        carry.enforce_leases(true);
        let s = one_user(1_000_000, 0, true);
        let (user, token) = (&s.users[&1], &s.tokens[&token_index()]);
        let want = carry.try_hold(user, token, 1, 10).unwrap_err();
        carry.granted(&[(want[0], 170, true)]);
        carry.try_hold(user, token, 1, 10).unwrap();
        carry.release(1, 7, 10);
        carry.charged("r1", 1, 7, 10);
        let lease = || {
            let l = carry.lease(Subject::User(1)).unwrap();
            (l.claimed, l.ample)
        };
        carry.apply(2, &one_user(1_000_000 - 10, 0, true), &Fresh::all());
        assert_eq!(lease(), (170, true), "r1 explains the fall");
        carry.acknowledged(2, ["r1"]);
        carry.apply(3, &one_user(1_000_000 - 10, 0, true), &Fresh::all());
        assert_eq!(lease(), (160, true), "r1 leaves the lease");
        carry.apply(4, &one_user(1_000_000 - 500, 0, true), &Fresh::all());
        assert_eq!(lease(), (0, false), "an unexplained fall");
    }

    #[test]
    fn a_want_asks_for_the_requests_queued_before_it() {
        let carry = Carry::default();
        carry.enforce_leases(true);
        let s = snapshot(1_000_000, 1_000_000);
        let (user, token) = (&s.users[&1], &s.tokens[&token_index()]);
        let first = carry.try_hold(user, token, 1, 10).unwrap_err();
        assert_eq!(first.iter().map(|w| w.queued).collect::<Vec<_>>(), [0, 0]);
        let waiting = carry.queue(&first, 10);
        let second = carry.try_hold(user, token, 1, 30).unwrap_err();
        assert_eq!(
            second.iter().map(|w| w.queued).collect::<Vec<_>>(),
            [10, 10]
        );
        let also = carry.queue(&second, 30);
        drop(waiting);
        let third = carry.try_hold(user, token, 1, 5).unwrap_err();
        assert_eq!(third.iter().map(|w| w.queued).collect::<Vec<_>>(), [30, 30]);
        drop(also);
        assert!(
            carry.lock().queued.is_empty(),
            "nothing queued once answered"
        );
    }

    #[test]
    fn unlimited_tokens_keep_their_figure() {
        let carry = Carry::default();
        carry.charged("r1", 1, 7, 30);
        let s = one_user(100, 0, true);
        carry.apply(1, &s, &Fresh::all());
        assert_eq!(balances(&s), (70, 0));
    }
}
