//! The `users` table: accounts, balances, roles, invitation data and soft deletion.

use sqlx::{FromRow, Row};

use super::Db;
use super::dynamic::DynQuery;

/// A user row as stored (the password hash included; never serialised).
#[derive(Debug, Clone, FromRow)]
pub struct UserRecord {
    pub id: i64,
    pub username: String,
    pub password: String,
    pub display_name: String,
    pub role: i64,
    pub status: i64,
    pub email: String,
    pub github_id: String,
    pub oidc_id: String,
    pub wechat_id: String,
    pub telegram_id: String,
    pub linux_do_id: String,
    pub quota: i64,
    pub used_quota: i64,
    pub request_count: i64,
    pub group: String,
    pub aff_code: Option<String>,
    pub aff_count: i64,
    pub aff_quota: i64,
    pub aff_history_quota: i64,
    pub inviter_id: i64,
    pub setting: String,
    pub remark: String,
    pub created_at: i64,
    pub last_login_at: i64,
    pub deleted_at: Option<i64>,
}

/// `SELECT <every user column> FROM users ` followed by a literal tail, as one static string.
macro_rules! select_users {
    ($tail:literal) => {
        concat!(
            "SELECT id, username, password, display_name, role, status, email, github_id, ",
            "oidc_id, wechat_id, telegram_id, linux_do_id, quota, used_quota, request_count, ",
            "\"group\", aff_code, aff_count, aff_quota, aff_history_quota, inviter_id, setting, ",
            "remark, created_at, last_login_at, deleted_at FROM users ",
            $tail
        )
    };
}

/// Fields of a new account.
pub struct NewUser<'a> {
    pub username: &'a str,
    pub password_hash: &'a str,
    pub display_name: &'a str,
    pub role: i64,
    pub email: &'a str,
    pub group: &'a str,
    pub quota: i64,
    pub inviter_id: i64,
    pub created_at: i64,
}

/// Inserts a user and returns its id.
pub async fn insert<'e, E>(executor: E, user: &NewUser<'_>) -> Result<i64, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let row = sqlx::query(
        "INSERT INTO users (username, password, display_name, role, status, email, \"group\", \
         quota, inviter_id, created_at) VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(user.username)
    .bind(user.password_hash)
    .bind(user.display_name)
    .bind(user.role)
    .bind(user.email)
    .bind(user.group)
    .bind(user.quota)
    .bind(user.inviter_id)
    .bind(user.created_at)
    .fetch_one(executor)
    .await?;
    row.try_get("id")
}

/// The root account (the first live user with the root role).
pub async fn find_root(db: &Db) -> Result<Option<UserRecord>, sqlx::Error> {
    sqlx::query_as::<_, UserRecord>(select_users!(
        "WHERE role = 100 AND deleted_at IS NULL ORDER BY id LIMIT 1"
    ))
    .fetch_optional(&db.pool)
    .await
}

/// The user with this id, deleted or not.
pub async fn find_by_id(db: &Db, id: i64) -> Result<Option<UserRecord>, sqlx::Error> {
    sqlx::query_as::<_, UserRecord>(select_users!("WHERE id = $1"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

/// The live (not deleted) user whose username, or else email, is `login`.
pub async fn find_live_by_login(db: &Db, login: &str) -> Result<Option<UserRecord>, sqlx::Error> {
    sqlx::query_as::<_, UserRecord>(select_users!(
        "WHERE deleted_at IS NULL AND (username = $1 OR (email <> '' AND email = $1)) \
         ORDER BY CASE WHEN username = $1 THEN 0 ELSE 1 END, id LIMIT 1"
    ))
    .bind(login)
    .fetch_optional(&db.pool)
    .await
}

/// The live user holding this access-token hash.
pub async fn find_by_access_token_hash(
    db: &Db,
    hash: &str,
) -> Result<Option<UserRecord>, sqlx::Error> {
    sqlx::query_as::<_, UserRecord>(select_users!(
        "WHERE access_token_hash = $1 AND deleted_at IS NULL"
    ))
    .bind(hash)
    .fetch_optional(&db.pool)
    .await
}

/// The live user owning an invitation code.
pub async fn find_by_aff_code(db: &Db, code: &str) -> Result<Option<UserRecord>, sqlx::Error> {
    sqlx::query_as::<_, UserRecord>(select_users!("WHERE aff_code = $1 AND deleted_at IS NULL"))
        .bind(code)
        .fetch_optional(&db.pool)
        .await
}

/// The live user with this email address (compared case-insensitively).
pub async fn find_live_by_email(db: &Db, email: &str) -> Result<Option<UserRecord>, sqlx::Error> {
    sqlx::query_as::<_, UserRecord>(select_users!(
        "WHERE deleted_at IS NULL AND email <> '' AND LOWER(email) = LOWER($1) ORDER BY id LIMIT 1"
    ))
    .bind(email)
    .fetch_optional(&db.pool)
    .await
}

/// Sets the email address of an account.
pub async fn set_email<'e, E>(executor: E, id: i64, email: &str) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query("UPDATE users SET email = $1 WHERE id = $2")
        .bind(email)
        .bind(id)
        .execute(executor)
        .await?;
    Ok(())
}

/// The user (deleted or not) bound to a third-party account.
pub async fn find_by_binding(
    db: &Db,
    provider: crate::domain::oauth::Provider,
    provider_id: &str,
) -> Result<Option<UserRecord>, sqlx::Error> {
    use crate::domain::oauth::Provider;
    let sql = match provider {
        Provider::GitHub => select_users!("WHERE github_id = $1 ORDER BY id LIMIT 1"),
        Provider::Oidc => select_users!("WHERE oidc_id = $1 ORDER BY id LIMIT 1"),
        Provider::LinuxDo => select_users!("WHERE linux_do_id = $1 ORDER BY id LIMIT 1"),
        Provider::WeChat => select_users!("WHERE wechat_id = $1 ORDER BY id LIMIT 1"),
        Provider::Telegram => select_users!("WHERE telegram_id = $1 ORDER BY id LIMIT 1"),
    };
    sqlx::query_as::<_, UserRecord>(sql)
        .bind(provider_id)
        .fetch_optional(&db.pool)
        .await
}

/// Binds a third-party account to a user (or unbinds it with an empty id). Fails with a unique
/// violation when another user holds that id.
pub async fn set_binding<'e, E>(
    executor: E,
    id: i64,
    provider: crate::domain::oauth::Provider,
    provider_id: &str,
) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    use crate::domain::oauth::Provider;
    let sql = match provider {
        Provider::GitHub => "UPDATE users SET github_id = $1 WHERE id = $2",
        Provider::Oidc => "UPDATE users SET oidc_id = $1 WHERE id = $2",
        Provider::LinuxDo => "UPDATE users SET linux_do_id = $1 WHERE id = $2",
        Provider::WeChat => "UPDATE users SET wechat_id = $1 WHERE id = $2",
        Provider::Telegram => "UPDATE users SET telegram_id = $1 WHERE id = $2",
    };
    sqlx::query(sql)
        .bind(provider_id)
        .bind(id)
        .execute(executor)
        .await?;
    Ok(())
}

/// Whether any account (deleted ones included) uses `username`, other than `except_id`.
pub async fn username_taken(
    db: &Db,
    username: &str,
    except_id: Option<i64>,
) -> Result<bool, sqlx::Error> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM users WHERE username = $1 AND id <> $2")
        .bind(username)
        .bind(except_id.unwrap_or(-1))
        .fetch_one(&db.pool)
        .await?;
    Ok(row.try_get::<i64, _>("n")? > 0)
}

/// Whether a live super administrator exists.
pub async fn root_exists(db: &Db) -> Result<bool, sqlx::Error> {
    let row =
        sqlx::query("SELECT COUNT(*) AS n FROM users WHERE role >= 100 AND deleted_at IS NULL")
            .fetch_one(&db.pool)
            .await?;
    Ok(row.try_get::<i64, _>("n")? > 0)
}

/// Filters of the admin user search.
#[derive(Debug, Default, Clone)]
pub struct UserFilter {
    pub keyword: Option<String>,
    pub group: Option<String>,
}

/// One page of users (deleted ones included, newest first) and the total matching.
pub async fn list(
    db: &Db,
    filter: &UserFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<UserRecord>, i64), sqlx::Error> {
    let mut count = DynQuery::new("SELECT COUNT(*) AS n FROM users WHERE 1 = 1");
    push_filter(&mut count, filter);
    let total: i64 = count.build().fetch_one(&db.pool).await?.try_get("n")?;

    let mut page = DynQuery::new(select_users!("WHERE 1 = 1"));
    push_filter(&mut page, filter);
    page.push(" ORDER BY id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    let items = page.build_as::<UserRecord>().fetch_all(&db.pool).await?;
    Ok((items, total))
}

fn push_filter(query: &mut DynQuery, filter: &UserFilter) {
    if let Some(group) = filter.group.as_deref().filter(|g| !g.is_empty()) {
        query.push(" AND \"group\" = ").bind_text(group);
    }
    if let Some(keyword) = filter
        .keyword
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        let pattern = format!("%{}%", escape_like(&keyword.to_lowercase()));
        query.push(" AND (");
        if let Ok(id) = keyword.parse::<i64>() {
            query.push("id = ").bind_int(id).push(" OR ");
        }
        query
            .push("LOWER(username) LIKE ")
            .bind_text(pattern.clone())
            .push(" ESCAPE '\\' OR LOWER(display_name) LIKE ")
            .bind_text(pattern.clone())
            .push(" ESCAPE '\\' OR LOWER(email) LIKE ")
            .bind_text(pattern)
            .push(" ESCAPE '\\')");
    }
}

pub(crate) fn escape_like(input: &str) -> String {
    input
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Fields an administrator may change on another account.
pub struct AdminUpdate<'a> {
    pub username: &'a str,
    pub display_name: &'a str,
    pub email: &'a str,
    pub group: &'a str,
    pub remark: &'a str,
    pub password_hash: Option<&'a str>,
}

/// Applies an administrator's edit.
pub async fn update_by_admin<'e, E>(
    executor: E,
    id: i64,
    update: &AdminUpdate<'_>,
) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "UPDATE users SET username = $1, display_name = $2, email = $3, \"group\" = $4, \
         remark = $5, password = COALESCE($6, password) WHERE id = $7",
    )
    .bind(update.username)
    .bind(update.display_name)
    .bind(update.email)
    .bind(update.group)
    .bind(update.remark)
    .bind(update.password_hash)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(())
}

/// Applies a user's edit of their own profile.
pub async fn update_profile(
    db: &Db,
    id: i64,
    username: &str,
    display_name: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE users SET username = $1, display_name = $2 WHERE id = $3")
        .bind(username)
        .bind(display_name)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Replaces the password hash.
pub async fn set_password_hash<'e, E>(executor: E, id: i64, hash: &str) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query("UPDATE users SET password = $1 WHERE id = $2")
        .bind(hash)
        .bind(id)
        .execute(executor)
        .await?;
    Ok(())
}

/// Sets role and status together (the manage actions).
pub async fn set_role_status<'e, E>(
    executor: E,
    id: i64,
    role: i64,
    status: i64,
) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query("UPDATE users SET role = $1, status = $2 WHERE id = $3")
        .bind(role)
        .bind(status)
        .bind(id)
        .execute(executor)
        .await?;
    Ok(())
}

/// Soft-deletes a user; the access token stops working at once.
pub async fn soft_delete<'e, E>(executor: E, id: i64, now: i64) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "UPDATE users SET deleted_at = $1, access_token_hash = NULL WHERE id = $2 AND deleted_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(())
}

/// Stores the hash of a new access token.
pub async fn set_access_token_hash(db: &Db, id: i64, hash: &str) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE users SET access_token_hash = $1 WHERE id = $2")
        .bind(hash)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Sets the invitation code if none is set yet; returns whether this call set it.
pub async fn set_aff_code_if_empty(db: &Db, id: i64, code: &str) -> Result<bool, sqlx::Error> {
    let done = sqlx::query("UPDATE users SET aff_code = $1 WHERE id = $2 AND aff_code IS NULL")
        .bind(code)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Records a sign-in time.
pub async fn touch_login(db: &Db, id: i64, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE users SET last_login_at = $1 WHERE id = $2")
        .bind(now)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Credits an inviter for a new invitee: pending earnings and counters.
pub async fn reward_inviter<'e, E>(
    executor: E,
    inviter_id: i64,
    quota: i64,
) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "UPDATE users SET aff_count = aff_count + 1, aff_quota = aff_quota + $1, \
         aff_history_quota = aff_history_quota + $1 WHERE id = $2",
    )
    .bind(quota)
    .bind(inviter_id)
    .execute(executor)
    .await?;
    Ok(())
}

/// Sets a user's quota to `to` if it still is `from`; true when set.
pub async fn set_quota_if<'e, E>(
    executor: E,
    id: i64,
    from: i64,
    to: i64,
) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query("UPDATE users SET quota = $1 WHERE id = $2 AND quota = $3")
        .bind(to)
        .bind(id)
        .bind(from)
        .execute(executor)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Adds `delta` to a user's quota unless the result would be negative; the new quota, if added.
pub async fn add_quota_within<'e, E>(
    executor: E,
    id: i64,
    delta: i64,
) -> Result<Option<i64>, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let row = sqlx::query(
        "UPDATE users SET quota = quota + $1 WHERE id = $2 AND quota + $1 >= 0 RETURNING quota",
    )
    .bind(delta)
    .bind(id)
    .fetch_optional(executor)
    .await?;
    row.map(|row| row.try_get("quota")).transpose()
}

/// Adds `delta` to a user's quota (negative to take).
pub async fn add_quota<'e, E>(executor: E, id: i64, delta: i64) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query("UPDATE users SET quota = quota + $1 WHERE id = $2")
        .bind(delta)
        .bind(id)
        .execute(executor)
        .await?;
    Ok(())
}

/// Moves `amount` of invitation earnings into the balance if that much is pending; true when
/// moved.
pub async fn transfer_aff_quota<'e, E>(
    executor: E,
    id: i64,
    amount: i64,
) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "UPDATE users SET aff_quota = aff_quota - $1, quota = quota + $1 WHERE id = $2 AND aff_quota >= $1",
    )
    .bind(amount)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Adds invitation earnings (a rebate) to a user that still exists; true when added.
pub async fn add_aff_quota<'e, E>(executor: E, id: i64, amount: i64) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "UPDATE users SET aff_quota = aff_quota + $1, aff_history_quota = aff_history_quota + $1 \
         WHERE id = $2 AND deleted_at IS NULL",
    )
    .bind(amount)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Replaces the user's settings JSON.
pub async fn set_setting(db: &Db, id: i64, setting: &str) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE users SET setting = $1 WHERE id = $2")
        .bind(setting)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}
