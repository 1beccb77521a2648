//! `config.v1.ConfigService`: streams a full snapshot, then deltas read from the
//! `config_changes` outbox, to each gateway; records the versions gateways applied.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proto::config::v1 as pb;
use proto::config::v1::config_service_server::ConfigService;
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::snapshot::{self, SyncError};
use crate::spans::Recorded;
use crate::state::AppState;
use crate::store::config_changes::{self, Change};
use crate::store::{self, DbKind};
use telemetry::KeyValue;

/// How often the stable version is recomputed when no notification arrives (SQLite polls, and
/// is woken early by this process's own API writes: it is the only writer).
const POLL: Duration = Duration::from_millis(100);
/// While a version waits for writers that were still open, it is looked at this often.
const PENDING_POLL: Duration = Duration::from_millis(20);
/// Fallback poll on PostgreSQL, where LISTEN/NOTIFY wakes the feed.
const PG_POLL: Duration = Duration::from_secs(1);
/// At most this many changes go into one delta.
const BATCH: i64 = 2000;
/// At most this many entities go into one delta (a change of an update statement names up to
/// 1 000), unless its first change alone names more.
const MAX_DELTA_IDS: usize = 2000;
/// Changes older than this are pruned; gateways further behind get a full snapshot.
const KEEP_CHANGES_SECONDS: i64 = 3600;

/// The stable config version: every change at or below it is committed (or rolled back for
/// good), so streams never skip one by reading past a transaction still open. One background
/// task computes it for every stream of this replica.
pub struct Feed {
    latest: watch::Sender<i64>,
}

impl Feed {
    /// Starts the background reader of the stable version (-1 until it was first read).
    pub fn start(state: AppState) -> Arc<Feed> {
        let (latest, _) = watch::channel(-1);
        let feed = Arc::new(Feed { latest });
        tokio::spawn(follow(state, Arc::downgrade(&feed)));
        feed
    }

    /// The newest stable version.
    pub fn latest(&self) -> i64 {
        *self.latest.borrow()
    }

    fn publish(&self, v: i64) {
        self.latest.send_if_modified(|cur| {
            let newer = v > *cur;
            if newer {
                *cur = v;
            }
            newer
        });
    }
}

/// Versions read while some config writers were still open: each becomes stable once all of
/// those writers have ended (PostgreSQL; see [`config_changes::open_writers`]).
#[derive(Default)]
struct Pending {
    /// (version, writers open when it was read, when it was read), oldest first.
    waiting: Vec<(i64, Vec<String>, Instant)>,
    /// When the feed last said it was held up (at most every [`STALL_LOG_EVERY`]).
    warned: Option<Instant>,
}

/// Past this many waiting versions, new ones merge into the newest (a writer left open must
/// not grow the list without bound).
const MAX_PENDING: usize = 1000;
/// A version held up this long by an open writer is logged (and again at this interval).
const STALL_LOG_EVERY: Duration = Duration::from_secs(30);

impl Pending {
    /// Records `max` read before `writers` (the writers open then), and returns the newest
    /// version whose writers are all gone now.
    fn settle(&mut self, max: i64, writers: Vec<String>) -> Option<i64> {
        if self.waiting.last().is_none_or(|(v, _, _)| *v < max) {
            if self.waiting.len() >= MAX_PENDING
                && let Some(last) = self.waiting.last_mut()
            {
                // Waiting for the union is waiting at least as long: still never early.
                last.0 = max;
                for w in &writers {
                    if !last.1.contains(w) {
                        last.1.push(w.clone());
                    }
                }
            } else {
                self.waiting.push((max, writers.clone(), Instant::now()));
            }
        }
        let open: std::collections::HashSet<&String> = writers.iter().collect();
        let Some(done) = self
            .waiting
            .iter()
            .rposition(|(_, w, _)| !w.iter().any(|x| open.contains(x)))
        else {
            self.warn_if_stalled();
            return None;
        };
        let stable = self.waiting[done].0;
        self.waiting.drain(..=done);
        Some(stable)
    }

    fn warn_if_stalled(&mut self) {
        let Some((version, writers, since)) = self.waiting.first() else {
            return;
        };
        if since.elapsed() > STALL_LOG_EVERY
            && self.warned.is_none_or(|w| w.elapsed() > STALL_LOG_EVERY)
        {
            self.warned = Some(Instant::now());
            tracing::warn!(
                version,
                waiting_s = since.elapsed().as_secs(),
                transactions = ?writers,
                "config feed held up: a transaction that changed gateway config is still open"
            );
        }
    }

    fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

/// A LISTEN connection on PostgreSQL, reopened when it breaks (a database restart).
struct Listener {
    url: Option<String>,
    conn: Option<sqlx::postgres::PgListener>,
    retry_at: Instant,
}

impl Listener {
    fn new(state: &AppState) -> Listener {
        let url = match state.db().kind {
            DbKind::Postgres => state
                .settings()
                .database_url
                .as_ref()
                .map(|u| u.expose().to_owned()),
            DbKind::Sqlite => None,
        };
        Listener {
            url,
            conn: None,
            retry_at: Instant::now(),
        }
    }

    async fn ensure(&mut self) {
        let Some(url) = &self.url else { return };
        if self.conn.is_some() || Instant::now() < self.retry_at {
            return;
        }
        self.retry_at = Instant::now() + PG_POLL;
        match sqlx::postgres::PgListener::connect(url).await {
            Ok(mut l) => match l.listen("config_changes").await {
                Ok(()) => {
                    tracing::info!("listening for config changes");
                    self.conn = Some(l);
                }
                Err(err) => tracing::warn!(error = %err, "LISTEN config_changes failed; polling"),
            },
            Err(err) => tracing::warn!(error = %err, "no LISTEN connection; polling"),
        }
    }

    /// Waits for a notification or `wait`, whichever comes first; without a LISTEN connection,
    /// for this process's next API write or the poll.
    async fn wait(&mut self, state: &AppState, wait: Duration) {
        match self.conn.as_mut() {
            Some(l) => match tokio::time::timeout(wait, l.recv()).await {
                Ok(Ok(_)) => {
                    // One read of the changes answers every notification already here.
                    while l.next_buffered().is_some() {}
                }
                Ok(Err(err)) => {
                    tracing::warn!(error = %err, "config notifications lost; reconnecting");
                    self.conn = None;
                }
                Err(_) => {}
            },
            None => {
                tokio::select! {
                    () = tokio::time::sleep(wait.min(POLL)) => {}
                    () = state.next_write() => {}
                }
            }
        }
    }
}

/// Publishes the stable version until the feed is dropped; prunes old changes hourly.
async fn follow(state: AppState, feed: std::sync::Weak<Feed>) {
    let mut listener = Listener::new(&state);
    let mut pending = Pending::default();
    let mut last_prune = Instant::now();
    loop {
        listener.ensure().await;
        let Some(feed) = feed.upgrade() else { return };
        match stable_version(&state, &mut pending).await {
            Ok(Some(v)) => {
                feed.publish(v);
                state.metrics().config_version.set(feed.latest());
            }
            Ok(None) => {}
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
        let wait = if pending.is_empty() {
            PG_POLL
        } else {
            PENDING_POLL
        };
        listener.wait(&state, wait).await;
    }
}

/// The newest version below which nothing can still appear: on SQLite the newest one (one
/// writer at a time); on PostgreSQL the newest one read when every config writer open at that
/// moment has ended since.
async fn stable_version(
    state: &AppState,
    pending: &mut Pending,
) -> Result<Option<i64>, sqlx::Error> {
    let db = state.db();
    let max = config_changes::max_version(db).await?;
    if db.kind == DbKind::Sqlite {
        return Ok(Some(max));
    }
    let writers = config_changes::open_writers(db).await?;
    Ok(pending.settle(max, writers))
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
        if self.state.is_shutting_down() {
            return Err(Status::unavailable("control plane shutting down"));
        }
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
            let connected = state.metrics().gateways_connected.clone();
            connected.inc();
            let stopping = state.shutting_down();
            tokio::select! {
                result = stream_changes(&state, &feed, have, &tx, &gateway_id) => {
                    if let Err(err) = result {
                        tracing::warn!(gateway_id, error = %err, "config stream failed");
                        let _ = tx
                            .send(Err(Status::unavailable("config stream failed")))
                            .await;
                    }
                }
                () = stopping => {
                    let _ = tx
                        .send(Err(Status::unavailable("control plane shutting down")))
                        .await;
                }
            }
            connected.dec();
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

/// The span of one config message to a gateway: a snapshot of `to`, or the delta `from`..`to`.
fn push_span(
    state: &AppState,
    gateway_id: &str,
    kind: &'static str,
    from: i64,
    to: i64,
) -> Recorded {
    Recorded::start(state, "config.push", || {
        vec![
            KeyValue::new("ai_gateway.gateway.id", gateway_id.to_owned()),
            KeyValue::new("ai_gateway.config.kind", kind),
            KeyValue::new("ai_gateway.config.from_version", from),
            KeyValue::new("ai_gateway.config.version", to),
        ]
    })
}

/// Sends a snapshot if needed, then deltas up to the stable version, until the gateway goes
/// away.
async fn stream_changes(
    state: &AppState,
    feed: &Feed,
    have: i64,
    tx: &Sender,
    gateway_id: &str,
) -> Result<(), SyncError> {
    let db = state.db();
    let push = &state.metrics().config_push;
    let mut since = Instant::now();
    let mut wake = feed.latest.subscribe();
    let mut stable = match wake.wait_for(|v| *v >= 0).await {
        Ok(v) => *v,
        Err(_) => return Ok(()),
    };
    wake.borrow_and_update();
    let oldest = config_changes::min_version(db).await?;
    let mut cursor = have;
    if have <= 0 || have > stable || have < oldest.saturating_sub(1) {
        // Read after `stable` was: every change up to it is in the tables read.
        let mut span = push_span(state, gateway_id, "snapshot", 0, stable);
        let snap = snapshot::snapshot(state, stable).await?;
        let msg = pb::WatchResponse {
            snapshot: Some(snap),
            delta: None,
        };
        if tx.send(Ok(msg)).await.is_err() {
            span.fail("gateway_gone");
            span.end();
            return Ok(());
        }
        span.end();
        push.with_label_values(&["snapshot"])
            .observe(since.elapsed().as_secs_f64());
        cursor = stable;
    }
    loop {
        // Changes read but not sent yet (all at most `stable`), and whether that read reached
        // `stable`: a read's rest waits for the next delta rather than being read again.
        let mut unsent: Vec<Change> = Vec::new();
        let mut read_all = true;
        while cursor < stable {
            if unsent.is_empty() {
                unsent = config_changes::between(db, cursor, stable, BATCH).await?;
                read_all = unsent.len() < usize::try_from(BATCH).unwrap_or(usize::MAX);
            }
            let rows = take_delta(&mut unsent);
            let top = rows.last().map_or(stable, |c| c.version);
            if !rows.is_empty() {
                let mut span = push_span(state, gateway_id, "delta", cursor, top);
                let delta = snapshot::delta(state, cursor, top, &rows).await?;
                let msg = pb::WatchResponse {
                    snapshot: None,
                    delta: Some(delta),
                };
                if tx.send(Ok(msg)).await.is_err() {
                    span.fail("gateway_gone");
                    span.end();
                    return Ok(());
                }
                span.end();
                push.with_label_values(&["delta"])
                    .observe(since.elapsed().as_secs_f64());
            }
            cursor = if read_all && unsent.is_empty() {
                stable
            } else {
                top
            };
        }
        tokio::select! {
            _ = tx.closed() => return Ok(()),
            changed = wake.changed() => {
                if changed.is_err() {
                    return Ok(());
                }
                stable = *wake.borrow_and_update();
                since = Instant::now();
            }
        }
    }
}

/// Takes from the front of `unsent` the changes that name at most [`MAX_DELTA_IDS`] entities
/// together (at least one change); the rest stays for the next delta.
fn take_delta(unsent: &mut Vec<Change>) -> Vec<Change> {
    let mut named = 0;
    let keep = unsent
        .iter()
        .position(|c| {
            named += c.entity_id.split(',').count();
            named > MAX_DELTA_IDS
        })
        .map_or(unsent.len(), |over| over.max(1));
    let rest = unsent.split_off(keep);
    std::mem::replace(unsent, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(version: i64, ids: std::ops::Range<i64>) -> Change {
        let ids: Vec<String> = ids.map(|id| id.to_string()).collect();
        Change {
            version,
            entity: "token".into(),
            entity_id: ids.join(","),
        }
    }

    #[test]
    fn a_delta_takes_changes_until_they_name_too_many_entities() {
        let versions = |rows: &[Change]| rows.iter().map(|c| c.version).collect::<Vec<_>>();
        let mut unsent = vec![change(1, 0..1), change(2, 1..2)];
        assert_eq!(versions(&take_delta(&mut unsent)), vec![1, 2]);
        assert!(unsent.is_empty());
        // 1 000 + 1 000 fit, the third change waits for the next delta.
        let mut unsent = vec![
            change(1, 0..1000),
            change(2, 1000..2000),
            change(3, 2000..2001),
        ];
        assert_eq!(versions(&take_delta(&mut unsent)), vec![1, 2]);
        assert_eq!(versions(&unsent), vec![3]);
        assert_eq!(versions(&take_delta(&mut unsent)), vec![3]);
        // A first change over the bound still goes, alone.
        let mut unsent = vec![change(7, 0..2500), change(8, 0..1)];
        assert_eq!(versions(&take_delta(&mut unsent)), vec![7]);
        assert_eq!(versions(&unsent), vec![8]);
        assert!(take_delta(&mut Vec::new()).is_empty());
    }

    #[test]
    fn a_change_names_every_id_of_its_list() {
        let c = change(1, 5..8);
        assert_eq!(c.ids().collect::<Vec<_>>(), vec![5, 6, 7]);
        let option = Change {
            version: 2,
            entity: "option".into(),
            entity_id: "12".into(),
        };
        assert_eq!(option.ids().count(), 0);
    }

    fn w(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_version_is_stable_once_the_writers_open_when_it_was_read_have_ended() {
        let mut p = Pending::default();
        // Nothing open: stable at once.
        assert_eq!(p.settle(5, w(&[])), Some(5));
        // Version 9 read while A and B were open: not yet.
        assert_eq!(p.settle(9, w(&["A", "B"])), None);
        // B ended, C started and 12 was read: 9 still waits for A.
        assert_eq!(p.settle(12, w(&["A", "C"])), None);
        // A ended: 9 is stable, 12 waits for C.
        assert_eq!(p.settle(12, w(&["C"])), Some(9));
        assert_eq!(p.settle(12, w(&["D"])), Some(12));
        assert!(p.is_empty());
    }

    #[test]
    fn a_writer_left_open_does_not_grow_the_list_without_bound() {
        let mut p = Pending::default();
        for v in 1..5000 {
            assert_eq!(p.settle(v, w(&["stuck", &format!("t{v}")])), None);
        }
        assert!(p.waiting.len() <= MAX_PENDING);
        assert_eq!(p.settle(5000, w(&[])), Some(5000));
    }
}
