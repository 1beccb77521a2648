//! `usage.v1.UsageService`: receives batches of usage records from gateways, commits each in
//! one transaction (records that break the rules are set aside, the rest commit) and
//! acknowledges it.

use std::pin::Pin;

use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_server::UsageService;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::spans::Recorded;
use crate::state::AppState;
use crate::store::usage::{self, UsageRow};
use crate::store::{config_changes, task_progress};
use telemetry::KeyValue;

/// The usage service over the application state.
#[derive(Clone)]
pub struct UsageApi {
    state: AppState,
}

impl UsageApi {
    pub fn new(state: AppState) -> Self {
        UsageApi { state }
    }
}

/// Converts a wire record into a row to store.
pub fn to_row(r: pb::UsageRecord) -> UsageRow {
    UsageRow {
        request_id: r.request_id,
        created_at: r.created_at,
        kind: i64::from(r.r#type),
        user_id: r.user_id,
        username: r.username,
        token_id: r.token_id,
        token_name: r.token_name,
        group: r.group,
        model_name: r.model_name,
        channel_id: r.channel_id,
        use_time: r.use_time,
        is_stream: r.is_stream,
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
        quota: r.quota,
        content: r.content,
        other: r.other,
        ip: r.ip,
        task: r.task.map(|t| crate::store::task_progress::SubmittedTask {
            platform: t.platform,
            task_id: t.task_id,
            action: t.action,
            prompt: t.prompt,
            code: i64::from(t.code),
            description: t.description,
            properties: t.properties,
        }),
    }
}

type AckStream = Pin<Box<dyn Stream<Item = Result<pb::ReportAck, Status>> + Send>>;

#[tonic::async_trait]
impl UsageService for UsageApi {
    type ReportStream = AckStream;

    async fn report(
        &self,
        request: Request<Streaming<pb::ReportBatch>>,
    ) -> Result<Response<Self::ReportStream>, Status> {
        Ok(Response::new(commit_batches(
            self.state.clone(),
            request.into_inner(),
        )))
    }

    async fn fetch_tasks(
        &self,
        request: Request<pb::FetchTasksRequest>,
    ) -> Result<Response<pb::FetchTasksResponse>, Status> {
        let req = request.into_inner();
        if req.image_only {
            let id = req.task_ids.first().cloned().unwrap_or_default();
            let url = task_progress::image_of(self.state.db(), &id)
                .await
                .map_err(|err| {
                    tracing::warn!(error = %err, "task image lookup failed");
                    Status::unavailable("task lookup failed")
                })?;
            let tasks = url
                .map(|image_url| pb::TaskState {
                    task_id: id,
                    image_url,
                    ..Default::default()
                })
                .into_iter()
                .collect();
            return Ok(Response::new(pb::FetchTasksResponse { tasks }));
        }
        if req.user_id <= 0
            || !crate::domain::usage::TASK_PLATFORMS.contains(&req.platform.as_str())
        {
            return Err(Status::invalid_argument("a user and a known platform"));
        }
        let views =
            task_progress::for_user(self.state.db(), req.user_id, &req.platform, &req.task_ids)
                .await
                .map_err(|err| {
                    tracing::warn!(error = %err, "task lookup failed");
                    Status::unavailable("task lookup failed")
                })?;
        Ok(Response::new(pb::FetchTasksResponse {
            tasks: views.into_iter().map(task_state).collect(),
        }))
    }
}

/// A stored task on the wire.
fn task_state(v: task_progress::TaskView) -> pb::TaskState {
    pb::TaskState {
        task_id: v.task_id,
        action: v.action,
        prompt: v.prompt,
        prompt_en: v.prompt_en,
        description: v.description,
        status: v.status,
        progress: v.progress,
        fail_reason: v.fail_reason,
        submit_time: v.submit_time,
        start_time: v.start_time,
        finish_time: v.finish_time,
        image_url: v.image_url,
        buttons: v.buttons,
        properties: v.properties,
        data: v.data,
        channel_id: v.channel_id,
    }
}

/// Commits batches one after another and yields an ack for each; a database error ends the
/// stream with `unavailable`, so the gateway resends what was not acknowledged. When the
/// control plane stops, the batch being committed is finished and acked, then the stream ends.
fn commit_batches(state: AppState, mut batches: Streaming<pb::ReportBatch>) -> AckStream {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<pb::ReportAck, Status>>(16);
    tokio::spawn(async move {
        let mut stopping = Box::pin(state.shutting_down());
        loop {
            let item = tokio::select! {
                biased;
                () = &mut stopping => {
                    let _ = tx.send(Err(Status::unavailable("control plane shutting down"))).await;
                    return;
                }
                item = batches.next() => item,
            };
            let batch = match item {
                Some(Ok(batch)) => batch,
                Some(Err(status)) => {
                    tracing::debug!(code = ?status.code(), "usage stream ended by the gateway");
                    return;
                }
                None => return,
            };
            let reply = commit(&state, batch).await;
            let failed = reply.is_err();
            if tx.send(reply).await.is_err() || failed {
                return;
            }
        }
    });
    Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))
}

/// Commits one batch and builds its ack.
async fn commit(state: &AppState, batch: pb::ReportBatch) -> Result<pb::ReportAck, Status> {
    let batch_id = batch.batch_id;
    let gateway_id = batch.gateway_id;
    let mut span = Recorded::start(state, "usage.ingest", || {
        vec![
            KeyValue::new("ai_gateway.gateway.id", gateway_id.clone()),
            KeyValue::new("ai_gateway.batch.id", batch_id.to_string()),
            KeyValue::new(
                "ai_gateway.batch.records",
                i64::try_from(batch.records.len()).unwrap_or(i64::MAX),
            ),
        ]
    });
    let failures = crate::health::failures_of(&batch.records);
    let rows: Vec<UsageRow> = batch.records.into_iter().map(to_row).collect();
    // Consumption rows are charged without a log row while LogConsumeEnabled is off, and
    // without the dashboard's roll-ups while DataExportEnabled is.
    let recording = match state
        .options_of(&["LogConsumeEnabled", "DataExportEnabled"])
        .await
    {
        Ok(o) => usage::Recording {
            consume_logs: o.bool("LogConsumeEnabled"),
            rollups: o.bool("DataExportEnabled"),
        },
        Err(_) => usage::Recording::default(),
    };
    let written = {
        let _writing = super::ingest_sched::writing();
        usage::ingest_with(state.db(), &gateway_id, &rows, recording).await
    };
    let outcome = match written {
        Ok(outcome) => outcome,
        Err(err) => {
            state
                .metrics()
                .usage_batches
                .with_label_values(&["failed"])
                .inc();
            tracing::warn!(gateway_id, batch_id, error = %err, "usage batch not committed");
            span.fail("not_committed");
            span.end();
            return Err(Status::unavailable("usage batch not committed"));
        }
    };
    let now = crate::store::now();
    for row in rows.iter().filter(|r| r.created_at > 0) {
        // A gateway's clock ahead of ours counts as no lag.
        state
            .metrics()
            .usage_lag
            .observe(now.saturating_sub(row.created_at).max(0) as f64);
    }
    // Read after the commit: at least the ids of the changes it made.
    let config_version = match config_changes::max_version(state.db()).await {
        Ok(v) => u64::try_from(v).unwrap_or(0),
        Err(err) => {
            tracing::warn!(error = %err, "config version unknown after usage batch");
            0
        }
    };
    span.record(|| {
        vec![
            KeyValue::new("ai_gateway.batch.inserted", i64::from(outcome.inserted)),
            KeyValue::new("ai_gateway.batch.duplicates", i64::from(outcome.duplicates)),
            KeyValue::new(
                "ai_gateway.batch.rejected",
                i64::try_from(outcome.rejected.len()).unwrap_or(i64::MAX),
            ),
        ]
    });
    span.end();
    let m = state.metrics();
    m.usage_batches.with_label_values(&["committed"]).inc();
    m.usage_records
        .with_label_values(&["inserted"])
        .inc_by(u64::from(outcome.inserted));
    m.usage_records
        .with_label_values(&["duplicate"])
        .inc_by(u64::from(outcome.duplicates));
    m.usage_records
        .with_label_values(&["rejected"])
        .inc_by(outcome.rejected.len() as u64);
    for r in &outcome.rejected {
        m.usage_rejected.with_label_values(&[r.code]).inc();
        tracing::warn!(
            gateway_id,
            request_id = r.request_id,
            reason = r.message,
            "usage record rejected"
        );
    }
    tracing::debug!(
        gateway_id,
        batch_id,
        inserted = outcome.inserted,
        duplicates = outcome.duplicates,
        rejected = outcome.rejected.len(),
        "usage batch committed"
    );
    if outcome.inserted > 0 {
        // Reminders off the ack's path too.
        let (state, users) = (
            state.clone(),
            rows.iter().map(|r| r.user_id).collect::<Vec<_>>(),
        );
        tokio::spawn(async move { crate::notify::after_usage(&state, users).await });
    }
    if !failures.is_empty() {
        // Judged off the ack's path: the ack does not wait for channel updates.
        let state = state.clone();
        tokio::spawn(async move {
            crate::health::judge_live_failures(&state, &failures).await;
        });
    }
    Ok(pb::ReportAck {
        batch_id,
        inserted: outcome.inserted,
        duplicates: outcome.duplicates,
        config_version,
        rejected: outcome
            .rejected
            .into_iter()
            .map(|r| pb::RejectedRecord {
                request_id: r.request_id,
                code: r.code.to_string(),
                message: r.message,
            })
            .collect(),
    })
}
