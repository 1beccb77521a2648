//! The Watch client: follows the control plane's config feed (a full snapshot, then deltas),
//! applies each delta to the snapshot in force (only what it names is rebuilt) off the request
//! path, swaps the result in and acks the version.
//! When the control plane is away the last good snapshot keeps serving; reconnects back off.

use std::sync::Arc;
use std::time::Duration;

use proto::config::v1 as pb;
use proto::config::v1::config_service_client::ConfigServiceClient;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;

use super::delta::{Fresh, RawRest};
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

/// A Watch stream whose first message (the snapshot a gateway starts from) was read: it stays
/// open until [`follow`] has opened its successor, so a starting gateway is never seen as gone.
pub struct OpenStream(tonic::Streaming<pb::WatchResponse>);

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

/// The config a gateway starts from: the message as received (deltas apply to what it was
/// built from), the snapshot built from it once, and the stream it came on.
pub struct FirstSnapshot {
    pub raw: pb::Snapshot,
    pub built: Snapshot,
    pub stream: OpenStream,
}

/// Waits for the first full snapshot that builds (retrying with backoff), for a gateway
/// starting up. The stream it came on stays open for [`follow`].
pub async fn first_snapshot(channel: Channel, auth: Auth, gateway_id: &str) -> FirstSnapshot {
    let mut client = client(channel, auth);
    let mut backoff = Backoff::new();
    loop {
        let attempt = async {
            let mut stream = open(&mut client, gateway_id, 0).await?;
            match stream.message().await? {
                Some(pb::WatchResponse {
                    snapshot: Some(raw),
                    ..
                }) => Ok::<_, SyncError>(FirstSnapshot {
                    built: Snapshot::build(&raw)?,
                    raw,
                    stream: OpenStream(stream),
                }),
                _ => Err(SyncError::Ended),
            }
        };
        match attempt.await {
            Ok(first) => return first,
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

/// Follows the feed forever from `rest` (what the snapshot in force was built from), first on
/// a stream opened from that version while the one that brought it is still open (see
/// [`after_snapshot`]): acks that version, then applies each message (and any already
/// queued behind it), swaps the new snapshot in, acks the version; reconnects with backoff.
pub async fn follow(
    state: Arc<GatewayState>,
    channel: Channel,
    auth: Auth,
    gateway_id: String,
    mut rest: RawRest,
    first: OpenStream,
) {
    let mut client = client(channel, auth);
    let mut backoff = Backoff::new();
    state.metrics.config_stream_up.set(1);
    let first = after_snapshot(&mut client, &gateway_id, rest.version, first.0).await;
    ack(&mut client, &gateway_id, rest.version).await;
    let mut opened = Some(first);
    loop {
        if let Err(err) = follow_once(
            &state,
            &mut client,
            &gateway_id,
            &mut rest,
            &mut backoff,
            opened.take(),
        )
        .await
        {
            tracing::warn!(
                error = describe(&err),
                version = rest.version,
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
    rest: &mut RawRest,
    backoff: &mut Backoff,
    opened: Option<tonic::Streaming<pb::WatchResponse>>,
) -> Result<(), SyncError> {
    let mut stream = match opened {
        Some(stream) => stream,
        None => open(client, gateway_id, rest.version).await?,
    };
    loop {
        let Some(msg) = stream.message().await? else {
            return Err(SyncError::Ended);
        };
        backoff.reset();
        state.metrics.config_stream_up.set(1);
        state.readiness.stream_up();
        let base = state.config.load();
        let mut next_rest = rest.clone();
        let mut fresh = Fresh::default();
        let mut next = None;
        let mut outcome = advance(&base, &mut next, &mut next_rest, &mut fresh, msg);
        // Coalesce: whatever else already arrived goes into the same swap.
        while outcome.is_ok()
            && let Some(Some(Ok(msg))) =
                futures_util::FutureExt::now_or_never(futures_util::StreamExt::next(&mut stream))
        {
            outcome = advance(&base, &mut next, &mut next_rest, &mut fresh, msg);
        }
        if let Err(err) = outcome {
            // Keep serving the last good snapshot; a later full snapshot may fix it.
            tracing::error!(
                error = describe(&err),
                version = next_rest.version,
                "config rejected"
            );
            return Err(err);
        }
        if let Some(snapshot) = next {
            install_fresh(state, next_rest.version, snapshot, &fresh);
        }
        drop(base);
        *rest = next_rest;
        if fresh.all {
            // A full snapshot replaced the whole config: give back what the old one held.
            stream = after_snapshot(client, gateway_id, rest.version, stream).await;
        }
        state.metrics.config_applied(rest.version);
        tracing::debug!(version = rest.version, "config applied");
        ack(client, gateway_id, rest.version).await;
    }
}

/// The stream to follow after `stream` brought a full snapshot, applied as `version`: a new
/// stream from that version, opened before `stream` is dropped (so the gateway is never seen
/// as gone). The old stream's decode buffer grew to the snapshot's size (about 10 MiB with
/// 100 000 tokens) and would be kept for the stream's life. If the new stream cannot be
/// opened, the old one goes on. Either way the allocator then hands its free pages back (the
/// snapshot's build and the old stream's buffer leave many).
async fn after_snapshot(
    client: &mut Client,
    gateway_id: &str,
    version: u64,
    stream: tonic::Streaming<pb::WatchResponse>,
) -> tonic::Streaming<pb::WatchResponse> {
    let followed = match open(client, gateway_id, version).await {
        Ok(fresh) => {
            drop(stream);
            fresh
        }
        Err(err) => {
            tracing::debug!(
                error = describe(&err),
                "reopening the config stream after a snapshot failed; keeping it"
            );
            stream
        }
    };
    crate::memory::release_free_memory();
    followed
}

/// Tells the control plane this gateway serves `version` (a failed ack is only logged: the
/// next one, or the next stream's version, says it again).
async fn ack(client: &mut Client, gateway_id: &str, version: u64) {
    let ack = client
        .ack(pb::AckRequest {
            gateway_id: gateway_id.to_string(),
            applied_version: version,
        })
        .await;
    if let Err(status) = ack {
        tracing::debug!(code = ?status.code(), "config ack failed");
    }
}

/// Applies one message of the feed to `next` (or to `base` while nothing was applied yet):
/// a full snapshot is built anew, a delta changes what it names.
fn advance(
    base: &Snapshot,
    next: &mut Option<Snapshot>,
    rest: &mut RawRest,
    fresh: &mut Fresh,
    msg: pb::WatchResponse,
) -> Result<(), SyncError> {
    if let Some(s) = msg.snapshot {
        *next = Some(Snapshot::build(&s)?);
        *rest = RawRest::from_snapshot(&s);
        *fresh = Fresh::all();
    }
    if let Some(d) = msg.delta {
        rest.apply(&d).map_err(|o| SyncError::OutOfOrder {
            have: o.have,
            got: o.got,
        })?;
        let applied = next.as_ref().unwrap_or(base).with_delta(&d, rest, fresh)?;
        *next = Some(applied);
    }
    Ok(())
}

/// Serves `snapshot` (config `version`, every entry new) from now on, after taking from its
/// balances what this gateway spent that the control plane has not reflected yet.
pub fn install(state: &GatewayState, version: u64, snapshot: Snapshot) {
    install_fresh(state, version, snapshot, &Fresh::all());
}

/// Like [`install`] for a snapshot whose entries not in `fresh` are shared with the one in
/// force (their balances already account for this gateway's spending).
pub fn install_fresh(state: &GatewayState, version: u64, snapshot: Snapshot, fresh: &Fresh) {
    if let Some(carry) = &state.carry {
        carry.apply(version, &snapshot, fresh);
    }
    state
        .breakers
        .retain_channels(|id| snapshot.channels.contains_key(&id));
    state.config.swap(snapshot);
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
    fn backoff_doubles_up_to_five_seconds() {
        let mut b = Backoff::new();
        let waits: Vec<u64> = (0..8).map(|_| b.next_wait().as_millis() as u64).collect();
        assert_eq!(waits, vec![100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        b.reset();
        assert_eq!(b.next_wait(), Duration::from_millis(100));
    }
}
