//! The control plane's records of asynchronous tasks, asked over gRPC (`usage.v1.FetchTasks`):
//! gateways answer task fetches from them, only ever with the caller's own tasks.

use std::sync::OnceLock;

use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_client::UsageServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

use crate::config::link::Auth;

type Client = UsageServiceClient<InterceptedService<Channel, Auth>>;

/// A handle on the control plane's task records. Its gRPC channel is its own, opened by the
/// first lookup on the runtime that asks (the relay's), so a lookup never waits for the
/// background runtime that carries config and usage, which runs at idle priority.
pub struct TaskLookup {
    endpoint: Endpoint,
    auth: Auth,
    client: OnceLock<Client>,
}

impl std::fmt::Debug for TaskLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLookup").finish_non_exhaustive()
    }
}

impl TaskLookup {
    /// For the control plane at `endpoint`; nothing connects before the first lookup.
    pub fn new(endpoint: Endpoint, auth: Auth) -> Self {
        TaskLookup {
            endpoint,
            auth,
            client: OnceLock::new(),
        }
    }

    /// The client, its channel opened on the calling runtime the first time.
    fn client(&self) -> Client {
        self.client
            .get_or_init(|| {
                UsageServiceClient::with_interceptor(
                    self.endpoint.connect_lazy(),
                    self.auth.clone(),
                )
            })
            .clone()
    }

    /// The image URL of a finished drawing, whoever owns it (the image proxy).
    pub async fn image(&self, task_id: &str) -> Result<Option<String>, tonic::Status> {
        let mut client = self.client();
        let answer = client
            .fetch_tasks(pb::FetchTasksRequest {
                user_id: 0,
                platform: "mj".to_owned(),
                task_ids: vec![task_id.to_owned()],
                image_only: true,
            })
            .await?;
        Ok(answer
            .into_inner()
            .tasks
            .into_iter()
            .next()
            .map(|t| t.image_url)
            .filter(|u| !u.is_empty()))
    }

    /// `user_id`'s tasks among `task_ids` on `platform` (`mj`, `suno`).
    pub async fn fetch(
        &self,
        user_id: i64,
        platform: &str,
        task_ids: Vec<String>,
    ) -> Result<Vec<pb::TaskState>, tonic::Status> {
        let mut client = self.client();
        let answer = client
            .fetch_tasks(pb::FetchTasksRequest {
                user_id,
                platform: platform.to_owned(),
                task_ids,
                image_only: false,
            })
            .await?;
        Ok(answer.into_inner().tasks)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::link::{self, LinkConfig};
    use proto::usage::v1::usage_service_server::{UsageService, UsageServiceServer};
    use tonic::{Request, Response, Status, Streaming};

    /// Answers a lookup with each task asked for, finished; takes no usage.
    struct FinishedTasks;

    #[tonic::async_trait]
    impl UsageService for FinishedTasks {
        type ReportStream = std::pin::Pin<
            Box<dyn tokio_stream::Stream<Item = Result<pb::ReportAck, Status>> + Send>,
        >;

        async fn report(
            &self,
            _request: Request<Streaming<pb::ReportBatch>>,
        ) -> Result<Response<Self::ReportStream>, Status> {
            Err(Status::unimplemented("no usage here"))
        }

        async fn fetch_tasks(
            &self,
            request: Request<pb::FetchTasksRequest>,
        ) -> Result<Response<pb::FetchTasksResponse>, Status> {
            let tasks = request
                .into_inner()
                .task_ids
                .into_iter()
                .map(|task_id| pb::TaskState {
                    task_id,
                    status: "SUCCESS".to_owned(),
                    ..Default::default()
                })
                .collect();
            Ok(Response::new(pb::FetchTasksResponse { tasks }))
        }
    }

    #[test]
    fn a_lookup_runs_on_the_runtime_that_asks_not_the_one_it_was_made_on() {
        let server = tokio::runtime::Runtime::new().unwrap();
        let listener = server
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        server.spawn(
            tonic::transport::Server::builder()
                .add_service(UsageServiceServer::new(FinishedTasks))
                .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
        );
        // Made inside the background runtime, as the gateway makes it, and that runtime gone:
        // a channel driven there would have nothing left to drive it.
        let background = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let lookup = {
            let _entered = background.enter();
            let (endpoint, auth) = link::endpoint(&LinkConfig {
                url,
                token: Some("sync-token".to_owned()),
                ..Default::default()
            })
            .unwrap();
            TaskLookup::new(endpoint, auth)
        };
        drop(background);
        let relay = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let tasks = relay
            .block_on(lookup.fetch(7, "mj", vec!["task-1".to_owned()]))
            .unwrap();
        assert_eq!(tasks.len(), 1);
        assert_eq!(tasks[0].task_id, "task-1");
        assert_eq!(tasks[0].status, "SUCCESS");
    }
}
