//! Notifications: a quota reminder when a user's balance falls under their warning threshold
//! (their own setting, else `QuotaRemindThreshold`), once per crossing, and a notice to the
//! root user when live failures disable a channel or one of its keys. Each goes by email or by
//! the user's webhook (POST of JSON with `Authorization: Bearer <their secret>`, through the
//! SSRF guard), off the path of what caused it, retried with backoff.

use std::time::Duration;

use serde_json::json;

use crate::api::wallet::UserSetting;
use crate::domain::options::Options;
use crate::outbound::mail::{self, Email};
use crate::state::AppState;
use crate::store::{self, users::UserRecord};

/// Delays before the second and the third try.
const BACKOFF: [Duration; 2] = [Duration::from_secs(2), Duration::from_secs(8)];

/// One message to one user.
#[derive(Debug, Clone)]
struct Notice {
    /// The webhook payload's `type`.
    kind: &'static str,
    title: String,
    content: String,
}

/// Checks the balances a usage batch moved and sends the reminders that are due. The batch's
/// users and their sent reminders are read in one statement each; only a user crossing their
/// threshold (either way) costs a write, so a batch of thousands of users does not become
/// thousands of statements competing with the next batch for the database.
pub async fn after_usage(state: &AppState, users: impl IntoIterator<Item = i64>) {
    let mut ids: Vec<i64> = users.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    let options = match state
        .options_of(&["QuotaRemindThreshold", "QuotaPerUnit", "SystemName"])
        .await
    {
        Ok(o) => o,
        Err(err) => {
            tracing::warn!(error = %err, "quota reminders: options unreadable");
            return;
        }
    };
    let db = state.db();
    let (balances, sent) = match tokio::try_join!(
        store::config_changes::users(db, Some(&ids)),
        store::notices::sent_among(db, &ids),
    ) {
        Ok(read) => read,
        Err(err) => {
            tracing::warn!(error = %err, "quota reminders: balances unreadable");
            return;
        }
    };
    let default_threshold = options.i64("QuotaRemindThreshold");
    let mut above_again = Vec::new();
    for user in balances {
        let setting = serde_json::from_str::<UserSetting>(&user.setting).ok();
        let threshold = setting
            .as_ref()
            .map(|s| s.quota_warning_threshold)
            .filter(|t| *t > 0)
            .unwrap_or(default_threshold);
        if threshold <= 0 {
            continue;
        }
        let was_sent = sent.contains(&user.id);
        if user.quota >= threshold {
            if was_sent {
                above_again.push(user.id);
            }
            continue;
        }
        if was_sent {
            continue;
        }
        remind(state, &options, user.id, threshold, setting).await;
    }
    if let Err(err) = store::notices::rearm(db, &above_again).await {
        tracing::warn!(users = above_again.len(), error = %err, "quota reminders: re-arming failed");
    }
}

/// Sends `user_id` a reminder under `threshold`, unless another batch or replica claimed it.
async fn remind(
    state: &AppState,
    options: &Options,
    user_id: i64,
    threshold: i64,
    setting: Option<UserSetting>,
) {
    match store::notices::claim(state.db(), user_id, store::now()).await {
        Ok(true) => {}
        Ok(false) => return,
        Err(err) => {
            tracing::warn!(user_id, error = %err, "quota reminders: claim failed");
            return;
        }
    }
    // The whole record, for the delivery (email, webhook); read after the claim, for the
    // balance as it stands now.
    let user = match store::users::find_by_id(state.db(), user_id).await {
        Ok(Some(user)) if user.deleted_at.is_none() => user,
        Ok(_) => return,
        Err(err) => {
            tracing::warn!(user_id, error = %err, "quota reminders: user unreadable");
            return;
        }
    };
    let per_unit = options.f64("QuotaPerUnit");
    let dollars = if per_unit > 0.0 {
        user.quota as f64 / per_unit
    } else {
        0.0
    };
    let notice = Notice {
        kind: "quota_exceed",
        title: format!("{}: your balance is running low", options.get("SystemName")),
        content: format!(
            "Your remaining quota is {} (about ${dollars:.2}), under your reminder threshold \
             of {threshold}. Top up to keep your requests served.",
            user.quota
        ),
    };
    spawn_delivery(state.clone(), user, setting, notice);
}

/// Tells the root user that live failures disabled `channel` (or its key `key_index`).
pub async fn channel_disabled(
    state: &AppState,
    channel_id: i64,
    channel_name: &str,
    key_index: Option<u32>,
    reason: &str,
) {
    let root = match store::users::find_root(state.db()).await {
        Ok(Some(root)) => root,
        Ok(None) => return,
        Err(err) => {
            tracing::warn!(error = %err, "channel notice: root unreadable");
            return;
        }
    };
    let what = match key_index {
        Some(k) => format!("Key #{k} of channel #{channel_id} ({channel_name})"),
        None => format!("Channel #{channel_id} ({channel_name})"),
    };
    let notice = Notice {
        kind: "channel_disabled",
        title: format!("{what} was disabled"),
        content: format!("{what} was disabled automatically after upstream failures: {reason}"),
    };
    let setting = serde_json::from_str::<UserSetting>(&root.setting).ok();
    spawn_delivery(state.clone(), root, setting, notice);
}

/// Delivers in the background: three tries, with [`BACKOFF`] between them.
fn spawn_delivery(state: AppState, user: UserRecord, setting: Option<UserSetting>, notice: Notice) {
    tokio::spawn(async move {
        for attempt in 0..=BACKOFF.len() {
            match deliver(&state, &user, setting.as_ref(), &notice).await {
                Ok(()) => {
                    tracing::info!(user_id = user.id, kind = notice.kind, "notification sent");
                    return;
                }
                Err(Undeliverable::Never(why)) => {
                    tracing::info!(
                        user_id = user.id,
                        kind = notice.kind,
                        why,
                        "notification not sent"
                    );
                    return;
                }
                Err(Undeliverable::Failed(error)) => {
                    tracing::warn!(
                        user_id = user.id,
                        kind = notice.kind,
                        attempt,
                        error,
                        "notification failed"
                    );
                    match BACKOFF.get(attempt) {
                        Some(delay) => tokio::time::sleep(*delay).await,
                        None => return,
                    }
                }
            }
        }
    });
}

/// Why a notification did not go.
enum Undeliverable {
    /// Nothing to send it to: trying again will not help.
    Never(&'static str),
    /// The transport failed: worth another try.
    Failed(String),
}

async fn deliver(
    state: &AppState,
    user: &UserRecord,
    setting: Option<&UserSetting>,
    notice: &Notice,
) -> Result<(), Undeliverable> {
    if let Some(s) = setting.filter(|s| s.notify_type == "webhook") {
        if s.webhook_url.is_empty() {
            return Err(Undeliverable::Never("no webhook address"));
        }
        let body = json!({
            "type": notice.kind,
            "title": notice.title,
            "content": notice.content,
            "values": [],
            "timestamp": store::now(),
        });
        return state
            .outbound()
            .post_json(&s.webhook_url, Some(&s.webhook_secret), &body)
            .await
            .map_err(|e| Undeliverable::Failed(e.to_string()));
    }
    let to = setting
        .map(|s| s.notification_email.trim())
        .filter(|e| !e.is_empty())
        .unwrap_or(user.email.trim());
    if to.is_empty() {
        return Err(Undeliverable::Never("no email address"));
    }
    let options = state
        .options()
        .await
        .map_err(|e| Undeliverable::Failed(e.to_string()))?;
    if !mail::is_configured(&options) {
        return Err(Undeliverable::Never("SMTP is not configured"));
    }
    let html = format!("<p>{}</p>", escape(&notice.content));
    mail::send(
        &options,
        Email {
            to,
            subject: notice.title.clone(),
            html,
        },
    )
    .await
    .map_err(|e| Undeliverable::Failed(e.to_string()))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
