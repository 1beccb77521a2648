//! What the API shows of stored records (never password hashes or token hashes).

use serde::Serialize;
use utoipa::ToSchema;

use crate::store::users::UserRecord;

/// A user as the console sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UserView {
    pub id: i64,
    pub username: String,
    pub display_name: String,
    /// 1 normal user, 10 admin, 100 super admin.
    pub role: i64,
    /// 1 active, 2 banned, 3 cannot be enabled.
    pub status: i64,
    pub email: String,
    pub group: String,
    pub quota: i64,
    pub used_quota: i64,
    pub request_count: i64,
    pub aff_code: String,
    pub aff_count: i64,
    pub aff_quota: i64,
    pub aff_history_quota: i64,
    pub inviter_id: i64,
    pub github_id: String,
    pub oidc_id: String,
    pub wechat_id: String,
    pub telegram_id: String,
    pub linux_do_id: String,
    /// The user's settings as a JSON string.
    pub setting: String,
    pub remark: String,
    pub created_at: i64,
    pub last_login_at: i64,
    /// Epoch seconds of the soft deletion; null while the account is live.
    pub deleted_at: Option<i64>,
}

impl UserView {
    /// The view administrators get: the user's own secrets (webhook secret) left out.
    pub fn for_admin(record: UserRecord) -> Self {
        let mut view = UserView::from(record);
        if let Ok(serde_json::Value::Object(mut setting)) =
            serde_json::from_str::<serde_json::Value>(&view.setting)
            && setting.remove("webhook_secret").is_some()
        {
            view.setting = serde_json::Value::Object(setting).to_string();
        }
        view
    }
}

impl From<UserRecord> for UserView {
    fn from(u: UserRecord) -> Self {
        UserView {
            id: u.id,
            username: u.username,
            display_name: u.display_name,
            role: u.role,
            status: u.status,
            email: u.email,
            group: u.group,
            quota: u.quota,
            used_quota: u.used_quota,
            request_count: u.request_count,
            aff_code: u.aff_code.unwrap_or_default(),
            aff_count: u.aff_count,
            aff_quota: u.aff_quota,
            aff_history_quota: u.aff_history_quota,
            inviter_id: u.inviter_id,
            github_id: u.github_id,
            oidc_id: u.oidc_id,
            wechat_id: u.wechat_id,
            telegram_id: u.telegram_id,
            linux_do_id: u.linux_do_id,
            setting: u.setting,
            remark: u.remark,
            created_at: u.created_at,
            last_login_at: u.last_login_at,
            deleted_at: u.deleted_at,
        }
    }
}
