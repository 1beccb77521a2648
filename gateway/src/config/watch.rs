//! The Watch client: follows the control plane's config feed (a full snapshot, then deltas),
//! rebuilds the validated snapshot off the request path, swaps it in and acks the version.
//! When the control plane is away the last good snapshot keeps serving; reconnects back off.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use proto::config::v1 as pb;
use proto::config::v1::config_service_client::ConfigServiceClient;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;

pub use super::link::Auth;
use super::link::describe;
use super::{ConfigError, Snapshot};
use crate::state::GatewayState;

/// Problems talking to the control plane.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("control plane unreachable: {0}")]
    Connect(#[from] tonic::transport::Error),
    #[error("control plane: {0}")]
    Rpc(#[from] tonic::Status),
    #[error("the config stream ended")]
    Ended,
    #[error("a delta from version {got} does not follow version {have}")]
    OutOfOrder { have: u64, got: u64 },
    #[error(transparent)]
    Config(#[from] ConfigError),
}

type Client = ConfigServiceClient<InterceptedService<Channel, Auth>>;

/// The raw config as last received, by id, to apply deltas to.
#[derive(Debug, Default, Clone)]
pub struct RawConfig {
    pub version: u64,
    tokens: BTreeMap<i64, pb::Token>,
    users: BTreeMap<i64, pb::User>,
    channels: BTreeMap<i64, pb::Channel>,
    pricing: Option<pb::Pricing>,
    options: Option<pb::RelayOptions>,
}

impl RawConfig {
    /// From a full snapshot.
    pub fn from_snapshot(s: pb::Snapshot) -> RawConfig {
        RawConfig {
            version: s.version,
            tokens: s.tokens.into_iter().map(|t| (t.id, t)).collect(),
            users: s.users.into_iter().map(|u| (u.id, u)).collect(),
            channels: s.channels.into_iter().map(|c| (c.id, c)).collect(),
            pricing: s.pricing,
            options: s.options,
        }
    }

    /// Applies a delta that follows this version.
    pub fn apply(&mut self, d: pb::Delta) -> Result<(), SyncError> {
        if d.from_version > self.version {
            return Err(SyncError::OutOfOrder {
                have: self.version,
                got: d.from_version,
            });
        }
        for id in d.delete_tokens {
            self.tokens.remove(&id);
        }
        for id in d.delete_users {
            self.users.remove(&id);
        }
        for id in d.delete_channels {
            self.channels.remove(&id);
        }
        self.tokens
            .extend(d.upsert_tokens.into_iter().map(|t| (t.id, t)));
        self.users
            .extend(d.upsert_users.into_iter().map(|u| (u.id, u)));
        self.channels
            .extend(d.upsert_channels.into_iter().map(|c| (c.id, c)));
        if d.pricing.is_some() {
            self.pricing = d.pricing;
        }
        if d.options.is_some() {
            self.options = d.options;
        }
        self.version = self.version.max(d.version);
        Ok(())
    }

    /// The whole config as one snapshot message.
    pub fn to_snapshot(&self) -> pb::Snapshot {
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

/// Opens a Watch stream from `have_version`.
async fn open(
    client: &mut Client,
    gateway_id: &str,
    have_version: u64,
) -> Result<tonic::Streaming<pb::WatchResponse>, SyncError> {
    Ok(client
        .watch(pb::WatchRequest {
            have_version,
            gateway_id: gateway_id.to_string(),
        })
        .await?
        .into_inner())
}

fn client(channel: Channel, auth: Auth) -> Client {
    ConfigServiceClient::with_interceptor(channel, auth)
        .max_decoding_message_size(256 * 1024 * 1024)
}

/// Waits for the first full snapshot (retrying with backoff), for a gateway starting up.
pub async fn first_snapshot(channel: Channel, auth: Auth, gateway_id: &str) -> RawConfig {
    let mut client = client(channel, auth);
    let mut backoff = Backoff::new();
    loop {
        let attempt = async {
            let mut stream = open(&mut client, gateway_id, 0).await?;
            match stream.message().await? {
                Some(pb::WatchResponse {
                    snapshot: Some(s), ..
                }) => {
                    let raw = RawConfig::from_snapshot(s);
                    Snapshot::build(&raw.to_snapshot())?;
                    Ok::<_, SyncError>(raw)
                }
                _ => Err(SyncError::Ended),
            }
        };
        match attempt.await {
            Ok(raw) => return raw,
            Err(err) => {
                let wait = backoff.next_wait();
                tracing::warn!(
                    error = describe(&err),
                    retry_in_ms = wait.as_millis() as u64,
                    "no config from the control plane yet"
                );
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Follows the feed forever from `raw`: applies each message (and any already queued behind
/// it), swaps the rebuilt snapshot in, acks the version; reconnects with backoff.
pub async fn follow(
    state: Arc<GatewayState>,
    channel: Channel,
    auth: Auth,
    gateway_id: String,
    mut raw: RawConfig,
) {
    let mut client = client(channel, auth);
    let mut backoff = Backoff::new();
    loop {
        if let Err(err) =
            follow_once(&state, &mut client, &gateway_id, &mut raw, &mut backoff).await
        {
            tracing::warn!(
                error = describe(&err),
                version = raw.version,
                "config stream lost; serving the last snapshot"
            );
        }
        state.metrics.config_stream_up.set(0);
        state.readiness.stream_lost();
        let wait = backoff.next_wait();
        tokio::time::sleep(wait).await;
    }
}

async fn follow_once(
    state: &GatewayState,
    client: &mut Client,
    gateway_id: &str,
    raw: &mut RawConfig,
    backoff: &mut Backoff,
) -> Result<(), SyncError> {
    let mut stream = open(client, gateway_id, raw.version).await?;
    loop {
        let Some(msg) = stream.message().await? else {
            return Err(SyncError::Ended);
        };
        backoff.reset();
        state.metrics.config_stream_up.set(1);
        state.readiness.stream_up();
        let mut next = raw.clone();
        apply(&mut next, msg)?;
        // Coalesce: whatever else already arrived goes into the same rebuild.
        while let Some(Some(Ok(msg))) =
            futures_util::FutureExt::now_or_never(futures_util::StreamExt::next(&mut stream))
        {
            apply(&mut next, msg)?;
        }
        let built = Snapshot::build(&next.to_snapshot());
        match built {
            Ok(snapshot) => {
                install(state, next.version, snapshot);
                *raw = next;
                state.metrics.config_applied(raw.version);
                tracing::debug!(version = raw.version, "config applied");
            }
            Err(err) => {
                // Keep serving the last good snapshot; a later full snapshot may fix it.
                tracing::error!(error = %err, version = next.version, "config rejected");
                return Err(err.into());
            }
        }
        let ack = client
            .ack(pb::AckRequest {
                gateway_id: gateway_id.to_string(),
                applied_version: raw.version,
            })
            .await;
        if let Err(status) = ack {
            tracing::debug!(code = ?status.code(), "config ack failed");
        }
    }
}

/// Serves `snapshot` (config `version`) from now on, after taking from its balances what
/// this gateway spent that the control plane has not reflected yet.
pub fn install(state: &GatewayState, version: u64, snapshot: Snapshot) {
    if let Some(carry) = &state.carry {
        carry.apply(version, &snapshot);
    }
    state
        .breakers
        .retain_channels(|id| snapshot.channels.contains_key(&id));
    state.config.swap(snapshot);
}

fn apply(raw: &mut RawConfig, msg: pb::WatchResponse) -> Result<(), SyncError> {
    if let Some(s) = msg.snapshot {
        *raw = RawConfig::from_snapshot(s);
    }
    if let Some(d) = msg.delta {
        raw.apply(d)?;
    }
    Ok(())
}

/// Exponential backoff from 100 ms to 5 s.
pub struct Backoff(Duration);

impl Backoff {
    pub fn new() -> Backoff {
        Backoff(Duration::from_millis(100))
    }

    /// The wait before the next attempt (doubling, capped).
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.0;
        self.0 = (self.0 * 2).min(Duration::from_secs(5));
        wait
    }

    pub fn reset(&mut self) {
        self.0 = Duration::from_millis(100);
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn deltas_replace_and_delete_by_id() {
        let mut raw = RawConfig::from_snapshot(pb::Snapshot {
            version: 3,
            users: vec![pb::User {
                id: 1,
                quota: 10,
                ..Default::default()
            }],
            tokens: vec![pb::Token {
                id: 5,
                ..Default::default()
            }],
            ..Default::default()
        });
        raw.apply(pb::Delta {
            from_version: 3,
            version: 7,
            upsert_users: vec![pb::User {
                id: 1,
                quota: 4,
                ..Default::default()
            }],
            delete_tokens: vec![5],
            ..Default::default()
        })
        .unwrap();
        let s = raw.to_snapshot();
        assert_eq!((s.version, s.users[0].quota, s.tokens.len()), (7, 4, 0));
        assert!(matches!(
            raw.apply(pb::Delta {
                from_version: 9,
                version: 10,
                ..Default::default()
            }),
            Err(SyncError::OutOfOrder { have: 7, got: 9 })
        ));
    }

    #[test]
    fn backoff_doubles_up_to_five_seconds() {
        let mut b = Backoff::new();
        let waits: Vec<u64> = (0..8).map(|_| b.next_wait().as_millis() as u64).collect();
        assert_eq!(waits, vec![100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        b.reset();
        assert_eq!(b.next_wait(), Duration::from_millis(100));
    }
}
