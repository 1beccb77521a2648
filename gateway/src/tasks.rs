//! The control plane's records of asynchronous tasks, asked over gRPC (`usage.v1.FetchTasks`):
//! gateways answer task fetches from them, only ever with the caller's own tasks.

use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_client::UsageServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::config::link::Auth;

type Client = UsageServiceClient<InterceptedService<Channel, Auth>>;

/// A handle on the control plane's task records.
#[derive(Clone)]
pub struct TaskLookup {
    client: Client,
}

impl std::fmt::Debug for TaskLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLookup").finish_non_exhaustive()
    }
}

impl TaskLookup {
    /// Over the gateway's link to the control plane.
    pub fn new(channel: Channel, auth: Auth) -> Self {
        TaskLookup {
            client: UsageServiceClient::with_interceptor(channel, auth),
        }
    }

    /// The image URL of a finished drawing, whoever owns it (the image proxy).
    pub async fn image(&self, task_id: &str) -> Result<Option<String>, tonic::Status> {
        let mut client = self.client.clone();
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
        let mut client = self.client.clone();
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
