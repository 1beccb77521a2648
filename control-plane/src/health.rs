//! Channel health: the upstream failures gateways report with their usage take a channel out of
//! routing at once (by the `AutomaticDisable*` options; the config feed carries the change to
//! every gateway), and periodic jobs test channels (a success brings an auto-disabled one back
//! when `AutomaticEnableChannelEnabled` is on) and refresh balances, each once per fleet.

use std::collections::BTreeMap;
use std::time::Duration;

use proto::usage::v1 as pb;

use crate::api::channel_ops;
use crate::api::channels::channel_keys;
use crate::domain::channel_keys::{self, KeyStates};
use crate::domain::channels::{self, HealthPolicy, STATUS_AUTO_DISABLED, STATUS_ENABLED, Verdict};
use crate::state::AppState;
use crate::store::{self, now};

/// The longest failure message kept (longer ones are cut on a character boundary).
const MAX_MESSAGE: usize = 500;
/// How often each replica looks whether a periodic job is due.
const SCHEDULER_TICK: Duration = Duration::from_millis(500);

/// One failed upstream attempt, as a gateway reported it (validated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveFailure {
    pub channel_id: i64,
    /// The key the attempt used (its index in the channel's key list).
    pub key_index: u32,
    /// `None` when the upstream gave no answer (connection failure, timeout).
    pub status: Option<u16>,
    pub message: String,
    /// When the gateway recorded it (Unix seconds).
    pub at: i64,
}

/// The failures of a batch's records that make sense (a positive channel id, a status of 0 or
/// 100 to 599); the rest are ignored. Messages are cut to [`MAX_MESSAGE`] bytes.
pub fn failures_of(records: &[pb::UsageRecord]) -> Vec<LiveFailure> {
    records
        .iter()
        .flat_map(|r| r.channel_failures.iter().map(move |f| (r, f)))
        .filter(|(_, f)| f.channel_id > 0 && (f.status == 0 || (100..=599).contains(&f.status)))
        .map(|(r, f)| {
            let mut end = f.message.len().min(MAX_MESSAGE);
            while !f.message.is_char_boundary(end) {
                end -= 1;
            }
            LiveFailure {
                channel_id: f.channel_id,
                key_index: f.key_index,
                status: u16::try_from(f.status).ok().filter(|s| *s != 0),
                message: f.message[..end].replace('\0', ""),
                at: r.created_at,
            }
        })
        .collect()
}

/// The first failure of each channel key that the policy says disables it, with the reason,
/// and when the newest such failure of that key happened.
fn disabling(
    policy: &HealthPolicy,
    failures: &[LiveFailure],
) -> BTreeMap<(i64, u32), (String, i64)> {
    let mut out: BTreeMap<(i64, u32), (String, i64)> = BTreeMap::new();
    for f in failures {
        let outcome = Err((f.status, f.message.clone()));
        // Whether the channel allows it (auto_ban) and is enabled is checked when switching.
        if let Verdict::Disable(reason) = channels::judge(policy, true, STATUS_ENABLED, &outcome) {
            let reason = match f.status {
                Some(status) => format!("upstream answered {status}: {reason}"),
                None => reason,
            };
            out.entry((f.channel_id, f.key_index))
                .and_modify(|(_, at)| *at = (*at).max(f.at))
                .or_insert((reason, f.at));
        }
    }
    out
}

/// Disables the channels whose live failures the policy names (enabled channels that allow
/// automatic disabling only); in a multi-key channel only the failing key, the channel with
/// its last key. Answers the ids of the channels disabled.
pub async fn judge_live_failures(state: &AppState, failures: &[LiveFailure]) -> Vec<i64> {
    if failures.is_empty() {
        return Vec::new();
    }
    let options = match state.options().await {
        Ok(o) => o,
        Err(err) => {
            tracing::warn!(error = %err, "channel health: options unreadable");
            return Vec::new();
        }
    };
    let policy = HealthPolicy::from_options(&options);
    if !policy.auto_disable {
        return Vec::new();
    }
    let mut disabled = Vec::new();
    for ((channel_id, key_index), (reason, at)) in disabling(&policy, failures) {
        let channel = match store::channels::find(state.db(), channel_id).await {
            Ok(Some(c)) if c.auto_ban != 0 && c.status == STATUS_ENABLED => c,
            Ok(_) => continue,
            Err(err) => {
                tracing::warn!(channel_id, error = %err, "channel health: channel unreadable");
                continue;
            }
        };
        // Reports arrive in batches: failures from before a check brought the channel back
        // (or from that same second) say nothing about it now.
        if channels::enabled_time(&channel.other_info).is_some_and(|back| at <= back) {
            tracing::info!(
                channel_id,
                "channel health: failures older than its re-enabling ignored"
            );
            continue;
        }
        if channel_keys(state, &channel).len() > 1 {
            match change_keys(state, channel_id, |states, count| {
                (key_index as usize) < count
                    && states.status(key_index) == STATUS_ENABLED
                    && states.set(key_index, STATUS_AUTO_DISABLED, &reason, now())
            })
            .await
            {
                Ok(Some(change)) if change.changed => {
                    tracing::warn!(
                        channel_id,
                        key_index,
                        reason,
                        "channel key disabled by live failures"
                    );
                    state.metrics().channel_keys_auto_disabled.inc();
                    crate::notify::channel_disabled(
                        state,
                        channel_id,
                        &channel.name,
                        Some(key_index),
                        &reason,
                    )
                    .await;
                    if change.channel_status == STATUS_AUTO_DISABLED {
                        state.metrics().channels_auto_disabled.inc();
                        disabled.push(channel_id);
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(channel_id, error = %err, "channel health: disabling a key failed");
                }
            }
            continue;
        }
        let info = channels::other_info(&reason, now());
        match store::channels::switch_status(
            state.db(),
            channel.id,
            STATUS_ENABLED,
            STATUS_AUTO_DISABLED,
            &info,
        )
        .await
        {
            Ok(true) => {
                tracing::warn!(channel_id, reason, "channel disabled by live failures");
                state.metrics().channels_auto_disabled.inc();
                crate::notify::channel_disabled(state, channel_id, &channel.name, None, &reason)
                    .await;
                disabled.push(channel_id);
            }
            Ok(false) => {}
            Err(err) => {
                tracing::warn!(channel_id, error = %err, "channel health: disabling failed");
            }
        }
    }
    disabled
}

/// What a change of a channel's keys did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyChange {
    pub changed: bool,
    /// The channel's status afterwards.
    pub channel_status: i64,
}

/// How many times a change of keys is tried again when another writer got in between.
const KEY_CHANGE_TRIES: usize = 8;

/// Changes the key states of channel `id` with `edit` (given the states and the number of
/// keys; it answers whether it changed anything), atomically against other writers; the
/// channel follows its keys (see [`channel_keys::channel_status_after`]). `None` when the
/// channel does not exist.
pub async fn change_keys(
    state: &AppState,
    id: i64,
    edit: impl Fn(&mut KeyStates, usize) -> bool,
) -> Result<Option<KeyChange>, sqlx::Error> {
    for _ in 0..KEY_CHANGE_TRIES {
        let Some(channel) = store::channels::find(state.db(), id).await? else {
            return Ok(None);
        };
        let count = channel_keys(state, &channel).len();
        let mut states = KeyStates::parse(&channel.key_status);
        let enabled_before = states.enabled(count).count();
        if !edit(&mut states, count) {
            return Ok(Some(KeyChange {
                changed: false,
                channel_status: channel.status,
            }));
        }
        states.truncate(count);
        let enabled = states.enabled(count).count();
        let follow =
            channel_keys::channel_status_after(channel.status, enabled, enabled > enabled_before);
        let info = follow.map(|(status, reason)| {
            let info = if status == STATUS_ENABLED {
                String::new()
            } else {
                channels::other_info(reason, now())
            };
            (status, info)
        });
        let written = store::channels::set_key_states(
            state.db(),
            id,
            (&channel.key_status, channel.status),
            &states.to_json(),
            info.as_ref().map(|(s, i)| (*s, i.as_str())),
        )
        .await?;
        if written {
            return Ok(Some(KeyChange {
                changed: true,
                channel_status: info.map_or(channel.status, |(s, _)| s),
            }));
        }
    }
    Err(sqlx::Error::Protocol(
        "the channel's keys kept changing; try again".into(),
    ))
}

/// A periodic job: its enabling option, its interval option (minutes) and what it runs.
struct Job {
    name: &'static str,
    enabled: &'static str,
    minutes: &'static str,
}

const TEST_CHANNELS: Job = Job {
    name: "channel_test",
    enabled: "monitor_setting.auto_test_channel_enabled",
    minutes: "monitor_setting.auto_test_channel_minutes",
};

const REFRESH_BALANCES: Job = Job {
    name: "balance_refresh",
    enabled: "monitor_setting.auto_update_balance_enabled",
    minutes: "monitor_setting.auto_update_balance_minutes",
};

/// Runs the periodic jobs on this replica (`replica` names it in the claims): each job runs
/// only on the replica that claims it, at most once per interval for the whole fleet.
pub fn spawn_jobs(state: AppState, replica: String) {
    for job in [TEST_CHANNELS, REFRESH_BALANCES] {
        let (state, replica) = (state.clone(), replica.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(SCHEDULER_TICK).await;
                if let Err(err) = run_if_due(&state, &job, &replica).await {
                    tracing::warn!(job = job.name, error = %err, "periodic job failed");
                }
            }
        });
    }
}

async fn run_if_due(state: &AppState, job: &Job, replica: &str) -> Result<(), String> {
    // Twice a second per job: the two settings it needs, not every option and its defaults.
    let options = state
        .options_of(&[job.enabled, job.minutes])
        .await
        .map_err(|e| e.to_string())?;
    if !options.bool(job.enabled) {
        return Ok(());
    }
    let interval_ms = (options.f64(job.minutes) * 60_000.0).max(600.0) as i64;
    let now_ms = now().saturating_mul(1000);
    let claimed = store::job_leases::claim(state.db(), job.name, replica, now_ms, interval_ms)
        .await
        .map_err(|e| e.to_string())?;
    if !claimed {
        return Ok(());
    }
    let summary = if job.name == TEST_CHANNELS.name {
        channel_ops::test_every_channel(state).await
    } else {
        channel_ops::refresh_every_balance(state).await
    };
    state.metrics().job_ran(job.name, summary.is_ok());
    let summary = summary.map_err(|e| format!("{e:?}"))?;
    tracing::info!(
        job = job.name,
        checked = summary.checked,
        failed = summary.failed,
        disabled = summary.disabled,
        enabled = summary.enabled,
        "periodic job ran"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(channel_id: i64, status: u32, message: &str) -> pb::ChannelFailure {
        pb::ChannelFailure {
            channel_id,
            key_index: 0,
            status,
            message: message.to_owned(),
        }
    }

    #[test]
    fn reported_failures_are_validated() {
        let record = pb::UsageRecord {
            channel_failures: vec![
                failure(3, 500, "boom"),
                failure(0, 500, "no channel"),
                failure(4, 1000, "bad status"),
                failure(5, 0, &"é".repeat(400)),
            ],
            ..Default::default()
        };
        let got = failures_of(&[record]);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].status, Some(500));
        assert_eq!(got[1].status, None);
        assert!(got[1].message.len() <= MAX_MESSAGE);
    }

    #[test]
    fn statuses_and_keywords_of_the_policy_disable() {
        let policy = HealthPolicy {
            auto_disable: true,
            disable_statuses: vec![(401, 401), (500, 503)],
            keywords: vec!["credit balance is too low".into()],
            ..HealthPolicy::default()
        };
        let fails = [
            LiveFailure {
                channel_id: 1,
                key_index: 0,
                status: Some(429),
                message: "slow down".into(),
                at: 10,
            },
            LiveFailure {
                channel_id: 2,
                key_index: 0,
                status: Some(502),
                message: "bad gateway".into(),
                at: 10,
            },
            LiveFailure {
                channel_id: 3,
                key_index: 0,
                status: Some(400),
                message: "Your credit balance is too low".into(),
                at: 10,
            },
            LiveFailure {
                channel_id: 2,
                key_index: 0,
                status: Some(401),
                message: "second".into(),
                at: 12,
            },
        ];
        let out = disabling(&policy, &fails);
        assert_eq!(out.keys().copied().collect::<Vec<_>>(), [(2, 0), (3, 0)]);
        assert!(out[&(2, 0)].0.contains("502"), "{:?}", out[&(2, 0)]);
        assert_eq!(out[&(2, 0)].1, 12, "the newest disabling failure's time");
    }
}
