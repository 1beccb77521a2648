//! Applying a config delta to a snapshot: only the tokens and users it names are rebuilt, the
//! channel routes, prices and options only when it carries them; everything else (and the live
//! balances in it) is shared with the snapshot before. The cost of a delta follows its size,
//! not the number of tokens.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use proto::config::v1 as pb;

use super::snapshot::{key_hash, pricing, relay_options, routing, token, user};
use super::{ConfigError, Snapshot};

/// What a delta cannot change by itself: the channels (their routes are rebuilt from all of
/// them), prices and options as last received, and the version.
#[derive(Debug, Default, Clone)]
pub struct RawRest {
    pub version: u64,
    channels: BTreeMap<i64, pb::Channel>,
    pricing: Option<pb::Pricing>,
    options: Option<pb::RelayOptions>,
}

/// A delta that does not follow the version it is applied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfOrder {
    pub have: u64,
    pub got: u64,
}

impl RawRest {
    /// From a full snapshot.
    pub fn from_snapshot(s: &pb::Snapshot) -> RawRest {
        RawRest {
            version: s.version,
            channels: s.channels.iter().map(|c| (c.id, c.clone())).collect(),
            pricing: s.pricing.clone(),
            options: s.options.clone(),
        }
    }

    /// Takes the delta's channels, prices, options and version.
    pub fn apply(&mut self, d: &pb::Delta) -> Result<(), OutOfOrder> {
        if d.from_version > self.version {
            return Err(OutOfOrder {
                have: self.version,
                got: d.from_version,
            });
        }
        for id in &d.delete_channels {
            self.channels.remove(id);
        }
        self.channels
            .extend(d.upsert_channels.iter().map(|c| (c.id, c.clone())));
        if d.pricing.is_some() {
            self.pricing.clone_from(&d.pricing);
        }
        if d.options.is_some() {
            self.options.clone_from(&d.options);
        }
        self.version = self.version.max(d.version);
        Ok(())
    }
}

/// The entries of a new snapshot that are new objects (their balances are the control plane's
/// figures): every one after a full snapshot, else those the deltas upserted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Fresh {
    pub all: bool,
    pub users: HashSet<i64>,
    pub tokens: HashSet<i64>,
}

impl Fresh {
    pub fn all() -> Fresh {
        Fresh {
            all: true,
            ..Fresh::default()
        }
    }

    pub fn user(&self, id: i64) -> bool {
        self.all || self.users.contains(&id)
    }

    pub fn token(&self, id: i64) -> bool {
        self.all || self.tokens.contains(&id)
    }

    fn note(&mut self, d: &pb::Delta) {
        if !self.all {
            self.users.extend(d.upsert_users.iter().map(|u| u.id));
            self.tokens.extend(d.upsert_tokens.iter().map(|t| t.id));
        }
    }
}

impl Snapshot {
    /// This snapshot with `d` applied; `rest` is the channels, prices and options with `d`
    /// already taken (see [`RawRest::apply`]). `fresh` learns which entries were rebuilt.
    pub fn with_delta(
        &self,
        d: &pb::Delta,
        rest: &RawRest,
        fresh: &mut Fresh,
    ) -> Result<Snapshot, ConfigError> {
        let mut tokens = self.tokens.clone();
        // A token named twice is what it is named last.
        let upserts: BTreeMap<i64, &pb::Token> =
            d.upsert_tokens.iter().map(|t| (t.id, t)).collect();
        // Deleted and replaced tokens leave first, so keys can move between tokens in one delta.
        for id in d.delete_tokens.iter().chain(upserts.keys()) {
            tokens.remove(*id);
        }
        for t in upserts.values() {
            tokens.insert(key_hash(t)?, Arc::new(token(t)?))?;
        }
        let mut users = self.users.clone();
        for id in &d.delete_users {
            users.remove(id);
        }
        for u in &d.upsert_users {
            users.insert(u.id, Arc::new(user(u)));
        }
        let (channels, routes) = if d.upsert_channels.is_empty() && d.delete_channels.is_empty() {
            (self.channels.clone(), self.routes.clone())
        } else {
            routing(rest.channels.values())?
        };
        let pricing = match d.pricing {
            Some(_) => Arc::new(pricing(rest.pricing.as_ref())),
            None => self.pricing.clone(),
        };
        let options = match d.options {
            Some(_) => relay_options(rest.options.as_ref())?,
            None => self.options.clone(),
        };
        fresh.note(d);
        Ok(Snapshot {
            version: rest.version,
            tokens,
            users,
            channels,
            routes,
            pricing,
            options,
        })
    }
}

#[cfg(test)]
mod tests {
    //! Property: after any sequence of deltas (random, with key collisions and bad entries among
    //! them), the incremental snapshot equals a full rebuild from everything received, balances
    //! included, with this gateway's spending carried the same way on both.
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeMap;
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::billing::carry::Carry;
    use crate::config::{KeyHash, TokenEntry};

    /// xorshift64*: a reproducible sequence per seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn id(&mut self, n: u64) -> i64 {
            i64::try_from(self.below(n)).unwrap() + 1
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    /// Everything received, by id: what a full rebuild is built from.
    #[derive(Default)]
    struct Model {
        version: u64,
        tokens: BTreeMap<i64, pb::Token>,
        users: BTreeMap<i64, pb::User>,
        channels: BTreeMap<i64, pb::Channel>,
        pricing: Option<pb::Pricing>,
        options: Option<pb::RelayOptions>,
    }

    impl Model {
        fn apply(&mut self, d: &pb::Delta) {
            for id in &d.delete_tokens {
                self.tokens.remove(id);
            }
            for id in &d.delete_users {
                self.users.remove(id);
            }
            for id in &d.delete_channels {
                self.channels.remove(id);
            }
            self.tokens
                .extend(d.upsert_tokens.iter().map(|t| (t.id, t.clone())));
            self.users
                .extend(d.upsert_users.iter().map(|u| (u.id, u.clone())));
            self.channels
                .extend(d.upsert_channels.iter().map(|c| (c.id, c.clone())));
            if d.pricing.is_some() {
                self.pricing.clone_from(&d.pricing);
            }
            if d.options.is_some() {
                self.options.clone_from(&d.options);
            }
            self.version = self.version.max(d.version);
        }

        fn snapshot(&self) -> pb::Snapshot {
            pb::Snapshot {
                version: self.version,
                tokens: self.tokens.values().cloned().collect(),
                users: self.users.values().cloned().collect(),
                channels: self.channels.values().cloned().collect(),
                pricing: self.pricing.clone(),
                options: self.options.clone(),
            }
        }
    }

    fn hash(n: u64) -> String {
        format!("{n:064x}")
    }

    fn random_token(rng: &mut Rng) -> pb::Token {
        pb::Token {
            id: rng.id(12),
            // A small pool, so keys collide now and then; rarely not a key hash at all.
            key_hash: if rng.chance(2) {
                "not-hex".to_owned()
            } else {
                hash(rng.below(16))
            },
            user_id: rng.id(6),
            name: format!("t{}", rng.below(100)),
            status: 1,
            remain_quota: i64::try_from(rng.below(10_000)).unwrap(),
            unlimited_quota: rng.chance(20),
            allow_ips: if rng.chance(3) {
                vec!["not an ip".to_owned()]
            } else {
                Vec::new()
            },
            group: ["", "vip"][usize::try_from(rng.below(2)).unwrap()].to_owned(),
            ..Default::default()
        }
    }

    fn random_delta(rng: &mut Rng, from: u64) -> pb::Delta {
        let mut d = pb::Delta {
            from_version: from,
            version: from + 1,
            ..Default::default()
        };
        for _ in 0..rng.below(4) {
            d.upsert_tokens.push(random_token(rng));
        }
        for _ in 0..rng.below(2) {
            d.delete_tokens.push(rng.id(12));
        }
        for _ in 0..rng.below(3) {
            d.upsert_users.push(pb::User {
                id: rng.id(6),
                username: format!("u{}", rng.below(100)),
                status: 1,
                group: ["", "vip"][usize::try_from(rng.below(2)).unwrap()].to_owned(),
                quota: i64::try_from(rng.below(100_000)).unwrap(),
                ..Default::default()
            });
        }
        if rng.chance(10) {
            d.delete_users.push(rng.id(6));
        }
        if rng.chance(20) {
            d.upsert_channels.push(pb::Channel {
                id: rng.id(4),
                r#type: 1,
                name: "c".to_owned(),
                key: "sk-upstream".to_owned(),
                models: vec![format!("m{}", rng.below(3))],
                groups: vec!["default".to_owned(), "vip".to_owned()],
                priority: i64::try_from(rng.below(3)).unwrap(),
                status: [1, 2][usize::try_from(rng.below(2)).unwrap()],
                ..Default::default()
            });
        }
        if rng.chance(10) {
            d.delete_channels.push(rng.id(4));
        }
        if rng.chance(10) {
            d.pricing = Some(pb::Pricing {
                model_ratio: [("m0".to_owned(), rng.below(10) as f64)].into(),
                ..Default::default()
            });
        }
        if rng.chance(10) {
            d.options = Some(pb::RelayOptions {
                retry_times: u32::try_from(rng.below(5)).unwrap(),
                ..Default::default()
            });
        }
        d
    }

    fn user_balances(s: &Snapshot) -> BTreeMap<i64, (i64, i64, String, i64)> {
        s.users
            .iter()
            .map(|(id, u)| {
                (
                    *id,
                    (
                        u.quota.load(Ordering::Acquire),
                        u.cp_quota,
                        u.group.clone(),
                        u.used.load(Ordering::Acquire),
                    ),
                )
            })
            .collect()
    }

    type TokenView = (i64, i64, Box<str>, bool, i64, i64, Arc<str>, usize);

    fn token_view(s: &Snapshot) -> BTreeMap<KeyHash, TokenView> {
        s.tokens
            .iter()
            .map(|(h, t)| {
                (
                    *h,
                    (
                        t.id,
                        t.user_id,
                        t.name.clone(),
                        t.unlimited,
                        t.remain.load(Ordering::Acquire),
                        t.cp_remain,
                        t.group.clone(),
                        t.allow_ips.len(),
                    ),
                )
            })
            .collect()
    }

    /// (group, model) → (priority, channel ids) of each tier.
    type RouteView = BTreeMap<(String, String), Vec<(i64, Vec<i64>)>>;

    fn route_view(s: &Snapshot) -> RouteView {
        s.routes
            .iter()
            .flat_map(|(g, models)| {
                models.iter().map(move |(m, tiers)| {
                    let tiers = tiers
                        .iter()
                        .map(|t| (t.priority, t.channels.iter().map(|c| c.id).collect()))
                        .collect();
                    ((g.clone(), m.clone()), tiers)
                })
            })
            .collect()
    }

    fn assert_same(inc: &Snapshot, full: &Snapshot, seed: u64, step: usize) {
        let at = format!("seed {seed}, step {step}");
        assert_eq!(inc.version, full.version, "{at}");
        assert_eq!(token_view(inc), token_view(full), "tokens, {at}");
        // Every id the test draws finds its token by id, and only its token.
        for s in [inc, full] {
            let by_key: BTreeMap<i64, &Arc<TokenEntry>> =
                s.tokens.iter().map(|(_, t)| (t.id, t)).collect();
            for id in 0..=12 {
                let found = s.token_by_id(id);
                assert_eq!(
                    found.map(Arc::as_ptr),
                    by_key.get(&id).map(|t| Arc::as_ptr(t)),
                    "token {id} by id, {at}"
                );
            }
        }
        assert_eq!(user_balances(inc), user_balances(full), "users, {at}");
        let channels = |s: &Snapshot| {
            let mut ids: Vec<(i64, bool, i64)> = s
                .channels
                .values()
                .map(|c| (c.id, c.enabled, c.priority))
                .collect();
            ids.sort_unstable();
            ids
        };
        assert_eq!(channels(inc), channels(full), "channels, {at}");
        assert_eq!(route_view(inc), route_view(full), "routes, {at}");
        assert_eq!(
            inc.pricing.model_ratio, full.pricing.model_ratio,
            "pricing, {at}"
        );
        assert_eq!(
            inc.options.retry_times, full.options.retry_times,
            "options, {at}"
        );
    }

    /// Spends `q` from a user and token on a snapshot the way the relay does (the balance, then
    /// the carry), on both sides.
    fn spend(s: &Snapshot, carry: &Carry, request: &str, user: i64, token: i64, q: i64) {
        if let Some(u) = s.users.get(&user) {
            u.quota.fetch_sub(q, Ordering::AcqRel);
        }
        if let Some(t) = s.token_by_id(token).filter(|t| !t.unlimited) {
            t.remain.fetch_sub(q, Ordering::AcqRel);
        }
        carry.charged(request, user, token, q);
    }

    #[test]
    fn incremental_snapshots_equal_a_full_rebuild_after_any_deltas() {
        for seed in 1..=300u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let mut model = Model::default();
            let mut rest = RawRest::default();
            let mut inc = Snapshot::build(&model.snapshot()).unwrap();
            let mut full = Snapshot::build(&model.snapshot()).unwrap();
            let (inc_carry, full_carry) = (Carry::default(), Carry::default());
            let mut rejected = 0;
            for step in 0..40 {
                // Spending between config versions, acknowledged for a later version.
                if rng.chance(50) {
                    let (user, token, q) = (rng.id(6), rng.id(12), rng.id(500));
                    let request = format!("r{seed}-{step}");
                    spend(&inc, &inc_carry, &request, user, token, q);
                    spend(&full, &full_carry, &request, user, token, q);
                    let reflected_at = model.version + rng.below(3);
                    inc_carry.acknowledged(reflected_at, [request.as_str()]);
                    full_carry.acknowledged(reflected_at, [request.as_str()]);
                }
                let d = random_delta(&mut rng, model.version);
                let mut fresh = Fresh::default();
                let mut next_rest = rest.clone();
                next_rest.apply(&d).unwrap();
                let incremental = inc.with_delta(&d, &next_rest, &mut fresh);
                let mut next_model = Model {
                    version: model.version,
                    tokens: model.tokens.clone(),
                    users: model.users.clone(),
                    channels: model.channels.clone(),
                    pricing: model.pricing.clone(),
                    options: model.options.clone(),
                };
                next_model.apply(&d);
                let rebuilt = Snapshot::build(&next_model.snapshot());
                match (incremental, rebuilt) {
                    (Ok(i), Ok(f)) => {
                        inc_carry.apply(next_rest.version, &i, &fresh);
                        full_carry.apply(next_model.version, &f, &Fresh::all());
                        (inc, full, model, rest) = (i, f, next_model, next_rest);
                        assert_same(&inc, &full, seed, step);
                    }
                    (Err(_), Err(_)) => rejected += 1,
                    (i, f) => panic!(
                        "seed {seed}, step {step}: incremental {:?} but rebuild {:?}",
                        i.err(),
                        f.err()
                    ),
                }
            }
            assert!(rejected < 40, "seed {seed}: every delta was rejected");
        }
    }

    #[test]
    fn a_delta_shares_what_it_does_not_touch() {
        let mut rng = Rng(7);
        let mut model = Model::default();
        let mut d = random_delta(&mut rng, 0);
        d.upsert_tokens = (1..=5)
            .map(|id| pb::Token {
                id,
                key_hash: hash(u64::try_from(id).unwrap()),
                user_id: 1,
                ..Default::default()
            })
            .collect();
        d.upsert_users = vec![
            pb::User {
                id: 1,
                ..Default::default()
            },
            pb::User {
                id: 2,
                ..Default::default()
            },
        ];
        model.apply(&d);
        let before = Snapshot::build(&model.snapshot()).unwrap();
        let mut rest = RawRest::from_snapshot(&model.snapshot());
        let touch = pb::Delta {
            from_version: model.version,
            version: model.version + 1,
            upsert_tokens: vec![pb::Token {
                id: 3,
                key_hash: hash(3),
                user_id: 1,
                remain_quota: 9,
                ..Default::default()
            }],
            upsert_users: vec![pb::User {
                id: 2,
                quota: 4,
                ..Default::default()
            }],
            ..Default::default()
        };
        rest.apply(&touch).unwrap();
        let mut fresh = Fresh::default();
        let after = before.with_delta(&touch, &rest, &mut fresh).unwrap();
        assert!(Arc::ptr_eq(
            before.token_by_id(1).unwrap(),
            after.token_by_id(1).unwrap()
        ));
        assert!(!Arc::ptr_eq(
            before.token_by_id(3).unwrap(),
            after.token_by_id(3).unwrap()
        ));
        assert!(Arc::ptr_eq(&before.users[&1], &after.users[&1]));
        assert!(
            Arc::ptr_eq(&before.channels, &after.channels),
            "no channel in the delta"
        );
        assert!(Arc::ptr_eq(&before.options, &after.options));
        assert_eq!(fresh.tokens, HashSet::from([3]));
        assert_eq!(fresh.users, HashSet::from([2]));
        assert!(fresh.token(3) && !fresh.token(1) && fresh.user(2) && !fresh.user(1));
    }
}
