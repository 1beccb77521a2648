//! Routing: picks the next channel for a request (highest priority tier first, weighted
//! random inside a tier, never a channel already tried, channels whose circuit breakers are
//! open only when nothing else is left) and resolves model mapping.

mod breaker;

pub use breaker::{BreakerPolicy, Breakers, KeyState};

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rand::Rng;

use crate::config::{ChannelEntry, Snapshot};
use crate::error::RouteError;

/// Picks the next untried channel for `model` in `group` among those `usable` allows: the
/// highest tier that still has one, weighted random inside it (all-zero weights count as
/// equal). When `usable` leaves none, the untried ones it refused are picked from the same
/// way: a broken channel is still better than no answer.
pub fn next_channel(
    snap: &Snapshot,
    group: &str,
    model: &str,
    tried: &HashSet<i64>,
    usable: impl Fn(&ChannelEntry) -> bool,
    rng: &mut impl Rng,
) -> Option<Arc<ChannelEntry>> {
    pick_channel(
        snap,
        group,
        model,
        |c| !tried.contains(&c.id) && usable(c),
        rng,
    )
    .or_else(|| pick_channel(snap, group, model, |c| !tried.contains(&c.id), rng))
}

fn pick_channel(
    snap: &Snapshot,
    group: &str,
    model: &str,
    candidate: impl Fn(&ChannelEntry) -> bool,
    rng: &mut impl Rng,
) -> Option<Arc<ChannelEntry>> {
    for tier in snap.tiers(group, model) {
        let open: Vec<&Arc<ChannelEntry>> = tier.channels.iter().filter(|c| candidate(c)).collect();
        if open.is_empty() {
            continue;
        }
        let total: u64 = open.iter().map(|c| u64::from(c.weight)).sum();
        if total == 0 {
            return open
                .get(rng.random_range(0..open.len()))
                .map(|c| (*c).clone());
        }
        let mut pick = rng.random_range(0..total);
        for c in &open {
            let w = u64::from(c.weight);
            if pick < w {
                return Some((*c).clone());
            }
            pick -= w;
        }
    }
    None
}

/// The model name sent to a channel: its model mapping chain followed (`a→b→c` gives `c`,
/// cycles refused), then its model prefix added unless the name already has it.
pub fn map_model(channel: &ChannelEntry, model: &str) -> Result<String, RouteError> {
    let mapped =
        map_chain(&channel.model_mapping, model).ok_or(RouteError::MappingCycle(channel.id))?;
    Ok(with_prefix(&channel.model_prefix, mapped))
}

fn with_prefix(prefix: &str, model: String) -> String {
    if prefix.is_empty() || model.starts_with(prefix) {
        model
    } else {
        format!("{prefix}{model}")
    }
}

/// Whether a request of `prompt_tokens` (estimated; asked only when the channel has a limit)
/// is too long for the channel.
pub fn input_too_long(channel: &ChannelEntry, prompt_tokens: impl FnOnce() -> i64) -> bool {
    channel.max_input_tokens > 0 && prompt_tokens() > channel.max_input_tokens
}

fn map_chain(mapping: &HashMap<String, String>, model: &str) -> Option<String> {
    let mut seen = HashSet::new();
    let mut current = model;
    while let Some(next) = mapping
        .get(current)
        .filter(|n| !n.is_empty() && n.as_str() != current)
    {
        if !seen.insert(current) {
            return None;
        }
        current = next;
    }
    Some(current.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proto::config::v1 as pb;

    #[test]
    fn mapping_is_chained_and_cycle_safe() {
        let m: HashMap<String, String> =
            [("a", "b"), ("b", "c"), ("x", "y"), ("y", "x"), ("s", "s")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        assert_eq!(map_chain(&m, "a").unwrap(), "c");
        assert_eq!(map_chain(&m, "z").unwrap(), "z");
        assert_eq!(map_chain(&m, "s").unwrap(), "s");
        assert!(map_chain(&m, "x").is_none());
    }

    #[test]
    fn the_prefix_is_added_once() {
        assert_eq!(with_prefix("openai/", "gpt-4o".into()), "openai/gpt-4o");
        assert_eq!(
            with_prefix("openai/", "openai/gpt-4o".into()),
            "openai/gpt-4o"
        );
        assert_eq!(with_prefix("", "gpt-4o".into()), "gpt-4o");
    }

    #[test]
    fn never_repicks_and_moves_down_tiers() {
        let raw: pb::Snapshot = serde_json::from_value(serde_json::json!({"channels": [
            {"id": 1, "type": 1, "models": ["m"], "priority": 10, "weight": 1, "status": 1},
            {"id": 2, "type": 1, "models": ["m"], "priority": 10, "weight": 0, "status": 1},
            {"id": 3, "type": 1, "models": ["m"], "priority": 0, "status": 1}
        ]}))
        .unwrap();
        let s = Snapshot::build(&raw).unwrap();
        let mut rng = rand::rng();
        let mut tried = HashSet::new();
        let order: Vec<i64> = std::iter::from_fn(|| {
            let c = next_channel(&s, "default", "m", &tried, |_| true, &mut rng)?;
            tried.insert(c.id);
            Some(c.id)
        })
        .collect();
        assert_eq!(order, vec![1, 2, 3]);
    }

    #[test]
    fn unusable_channels_are_picked_last() {
        let raw: pb::Snapshot = serde_json::from_value(serde_json::json!({"channels": [
            {"id": 1, "type": 1, "models": ["m"], "priority": 10, "weight": 1, "status": 1},
            {"id": 2, "type": 1, "models": ["m"], "priority": 0, "weight": 1, "status": 1}
        ]}))
        .unwrap();
        let s = Snapshot::build(&raw).unwrap();
        let mut rng = rand::rng();
        let mut tried = HashSet::new();
        let first = next_channel(&s, "default", "m", &tried, |c| c.id != 1, &mut rng).unwrap();
        assert_eq!(first.id, 2, "the lower tier before a broken channel");
        tried.insert(2);
        let second = next_channel(&s, "default", "m", &tried, |c| c.id != 1, &mut rng).unwrap();
        assert_eq!(second.id, 1, "then the broken one rather than nothing");
    }
}
