//! Channel health: the upstream failures gateways report with their usage take a channel out of
//! routing at once (by the `AutomaticDisable*` options; the config feed carries the change to
//! every gateway), and periodic jobs test channels (a success brings an auto-disabled one back
//! when `AutomaticEnableChannelEnabled` is on) and refresh balances, each once per fleet.

use std::collections::BTreeMap;
use std::time::Duration;

use proto::usage::v1 as pb;

use crate::api::channel_ops;
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
    /// `None` when the upstream gave no answer (connection failure, timeout).
    pub status: Option<u16>,
    pub message: String,
}

/// The failures of a batch's records that make sense (a positive channel id, a status of 0 or
/// 100 to 599); the rest are ignored. Messages are cut to [`MAX_MESSAGE`] bytes.
pub fn failures_of(records: &[pb::UsageRecord]) -> Vec<LiveFailure> {
    records
        .iter()
        .flat_map(|r| &r.channel_failures)
        .filter(|f| f.channel_id > 0 && (f.status == 0 || (100..=599).contains(&f.status)))
        .map(|f| {
            let mut end = f.message.len().min(MAX_MESSAGE);
            while !f.message.is_char_boundary(end) {
                end -= 1;
            }
            LiveFailure {
                channel_id: f.channel_id,
                status: u16::try_from(f.status).ok().filter(|s| *s != 0),
                message: f.message[..end].replace('\0', ""),
            }
        })
        .collect()
}

/// The first failure of each channel that the policy says disables it, with the reason.
fn disabling(policy: &HealthPolicy, failures: &[LiveFailure]) -> BTreeMap<i64, String> {
    let mut out = BTreeMap::new();
    for f in failures {
        if out.contains_key(&f.channel_id) {
            continue;
        }
        let outcome = Err((f.status, f.message.clone()));
        // Whether the channel allows it (auto_ban) and is enabled is checked when switching.
        if let Verdict::Disable(reason) = channels::judge(policy, true, STATUS_ENABLED, &outcome) {
            let reason = match f.status {
                Some(status) => format!("upstream answered {status}: {reason}"),
                None => reason,
            };
            out.insert(f.channel_id, reason);
        }
    }
    out
}

/// Disables the channels whose live failures the policy names (enabled channels that allow
/// automatic disabling only); answers the ids disabled.
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
    for (channel_id, reason) in disabling(&policy, failures) {
        let channel = match store::channels::find(state.db(), channel_id).await {
            Ok(Some(c)) if c.auto_ban != 0 && c.status == STATUS_ENABLED => c,
            Ok(_) => continue,
            Err(err) => {
                tracing::warn!(channel_id, error = %err, "channel health: channel unreadable");
                continue;
            }
        };
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
    let options = state.options().await.map_err(|e| e.to_string())?;
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
    }
    .map_err(|e| format!("{e:?}"))?;
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
                status: Some(429),
                message: "slow down".into(),
            },
            LiveFailure {
                channel_id: 2,
                status: Some(502),
                message: "bad gateway".into(),
            },
            LiveFailure {
                channel_id: 3,
                status: Some(400),
                message: "Your credit balance is too low".into(),
            },
            LiveFailure {
                channel_id: 2,
                status: Some(401),
                message: "second".into(),
            },
        ];
        let out = disabling(&policy, &fails);
        assert_eq!(out.keys().copied().collect::<Vec<_>>(), [2, 3]);
        assert!(out[&2].contains("502"), "{}", out[&2]);
    }
}
