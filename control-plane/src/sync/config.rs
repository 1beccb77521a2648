//! `config.v1.ConfigService`: streams a full snapshot, then deltas read from the
//! `config_changes` outbox, to each gateway; records the versions gateways applied.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proto::config::v1 as pb;
use proto::config::v1::config_service_server::ConfigService;
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::snapshot::{self, SyncError};
use crate::state::AppState;
use crate::store::{self, DbKind, config_changes};

/// How often the newest version is read when no notification arrives (SQLite always polls:
/// there is a single writer process and the read is one index lookup).
const POLL: Duration = Duration::from_millis(100);
/// Fallback poll on PostgreSQL, where LISTEN/NOTIFY wakes the feed.
const PG_POLL: Duration = Duration::from_secs(1);
/// At most this many changes go into one delta.
const BATCH: i64 = 2000;
/// A version skipped by a stream (its transaction was still open) is looked for this long.
const GAP_WAIT: Duration = Duration::from_secs(10);
/// Changes older than this are pruned; gateways further behind get a full snapshot.
const KEEP_CHANGES_SECONDS: i64 = 3600;

/// The newest config version, read by one background task and shared by every stream.
pub struct Feed {
    latest: watch::Sender<i64>,
}

impl Feed {
    /// Starts the background reader of the newest version.
    pub fn start(state: AppState) -> Arc<Feed> {
        let (latest, _) = watch::channel(0);
        let feed = Arc::new(Feed { latest });
        tokio::spawn(follow(state, Arc::downgrade(&feed)));
        feed
    }

    /// The newest version seen.
    pub fn latest(&self) -> i64 {
        *self.latest.borrow()
    }
}

/// Publishes the newest version until the feed is dropped; prunes old changes hourly.
async fn follow(state: AppState, feed: std::sync::Weak<Feed>) {
    let mut listener = None;
    if state.db().kind == DbKind::Postgres
        && let Some(url) = state.settings().database_url.clone()
    {
        match sqlx::postgres::PgListener::connect(&url).await {
            Ok(mut l) => match l.listen("config_changes").await {
                Ok(()) => listener = Some(l),
                Err(err) => tracing::warn!(error = %err, "LISTEN config_changes failed; polling"),
            },
            Err(err) => tracing::warn!(error = %err, "no LISTEN connection; polling"),
        }
    }
    let mut last_prune = Instant::now();
    loop {
        let Some(feed) = feed.upgrade() else { return };
        match config_changes::max_version(state.db()).await {
            Ok(v) => {
                feed.latest.send_if_modified(|cur| {
                    let newer = v > *cur;
                    if newer {
                        *cur = v;
                    }
                    newer
                });
            }
            Err(err) => tracing::warn!(error = %err, "reading the config version failed"),
        }
        drop(feed);
        if last_prune.elapsed() > Duration::from_secs(3600) {
            last_prune = Instant::now();
            if let Err(err) =
                config_changes::prune(state.db(), store::now() - KEEP_CHANGES_SECONDS).await
            {
                tracing::warn!(error = %err, "pruning config changes failed");
            }
        }
        match listener.as_mut() {
            Some(l) => {
                if let Ok(Err(err)) = tokio::time::timeout(PG_POLL, l.recv()).await {
                    tracing::warn!(error = %err, "config notification failed; polling");
                    listener = None;
                }
            }
            None => tokio::time::sleep(POLL).await,
        }
    }
}

/// The config service over the application state.
#[derive(Clone)]
pub struct ConfigApi {
    state: AppState,
    feed: Arc<Feed>,
}

impl ConfigApi {
    pub fn new(state: AppState, feed: Arc<Feed>) -> Self {
        ConfigApi { state, feed }
    }
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

#[tonic::async_trait]
impl ConfigService for ConfigApi {
    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<pb::WatchRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let req = request.into_inner();
        let gateway_id = if req.gateway_id.is_empty() {
            "unnamed".to_string()
        } else {
            req.gateway_id
        };
        let have = i64::try_from(req.have_version).unwrap_or(i64::MAX);
        if let Err(err) =
            config_changes::gateway_watching(self.state.db(), &gateway_id, have.max(0)).await
        {
            tracing::warn!(gateway_id, error = %err, "recording the gateway failed");
        }
        let (tx, rx) = mpsc::channel(4);
        let (state, feed) = (self.state.clone(), self.feed.clone());
        tokio::spawn(async move {
            if let Err(err) = stream_changes(&state, &feed, have, &tx).await {
                tracing::warn!(gateway_id, error = %err, "config stream failed");
                let _ = tx
                    .send(Err(Status::unavailable("config stream failed")))
                    .await;
            }
            if let Err(err) = config_changes::gateway_gone(state.db(), &gateway_id).await {
                tracing::warn!(gateway_id, error = %err, "recording the gateway failed");
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn ack(
        &self,
        request: Request<pb::AckRequest>,
    ) -> Result<Response<pb::AckResponse>, Status> {
        let req = request.into_inner();
        let applied = i64::try_from(req.applied_version).unwrap_or(i64::MAX);
        config_changes::gateway_applied(self.state.db(), &req.gateway_id, applied)
            .await
            .map_err(|err| {
                tracing::warn!(gateway_id = req.gateway_id, error = %err, "recording the ack failed");
                Status::unavailable("ack not recorded")
            })?;
        Ok(Response::new(pb::AckResponse {}))
    }
}

type Sender = mpsc::Sender<Result<pb::WatchResponse, Status>>;

/// Sends a snapshot if needed, then deltas, until the gateway goes away.
async fn stream_changes(
    state: &AppState,
    feed: &Feed,
    have: i64,
    tx: &Sender,
) -> Result<(), SyncError> {
    let db = state.db();
    let newest = config_changes::max_version(db).await?;
    let oldest = config_changes::min_version(db).await?;
    let mut cursor = have;
    if have <= 0 || have > newest || have < oldest.saturating_sub(1) {
        let snap = snapshot::snapshot(state, newest).await?;
        let msg = pb::WatchResponse {
            snapshot: Some(snap),
            delta: None,
        };
        if tx.send(Ok(msg)).await.is_err() {
            return Ok(());
        }
        cursor = newest;
    }
    let mut wake = feed.latest.subscribe();
    // Versions below the cursor not seen yet (their transaction had not committed).
    let mut gaps: BTreeMap<i64, Instant> = BTreeMap::new();
    loop {
        loop {
            gaps.retain(|_, since| since.elapsed() < GAP_WAIT);
            let from = gaps.keys().next().map_or(cursor, |g| (*g - 1).min(cursor));
            let rows = config_changes::since(db, from, BATCH).await?;
            let fresh: Vec<_> = rows
                .into_iter()
                .filter(|c| c.version > cursor || gaps.contains_key(&c.version))
                .collect();
            if fresh.is_empty() {
                break;
            }
            let mut expected = cursor + 1;
            let mut top = cursor;
            for c in &fresh {
                gaps.remove(&c.version);
                if c.version > cursor {
                    if c.version - expected < 1000 {
                        for missing in expected..c.version {
                            gaps.insert(missing, Instant::now());
                        }
                    }
                    expected = c.version + 1;
                    top = top.max(c.version);
                }
            }
            let delta = snapshot::delta(state, cursor, top, &fresh).await?;
            let msg = pb::WatchResponse {
                snapshot: None,
                delta: Some(delta),
            };
            if tx.send(Ok(msg)).await.is_err() {
                return Ok(());
            }
            cursor = top;
        }
        let wait = if gaps.is_empty() { PG_POLL * 5 } else { POLL };
        tokio::select! {
            _ = tx.closed() => return Ok(()),
            changed = wake.changed() => {
                if changed.is_err() {
                    return Ok(());
                }
            }
            _ = tokio::time::sleep(wait) => {}
        }
    }
}
