//! Signing in and out, and registration with a password (`/api/user/login`, `/logout`,
//! `/register`).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{session_clear_cookie, session_cookie, session_set_cookie};
use super::envelope::{EmptyEnvelope, Envelope, done, ok_with_message};
use super::extract::{ApiJson, ApiQuery, ClientHttps, ClientIp, ReqLang};
use super::throttle;
use super::verification::{TurnstileQuery, check_code, require_human};
use super::views::UserView;
use crate::domain::limits::Action;
use crate::domain::roles::{self, ROLE_COMMON, STATUS_ENABLED};
use crate::domain::verification::{self, Purpose};
use crate::domain::{accounts, password, secrets};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::logs::{EventLog, LogType};
use crate::store::users::UserRecord;
use crate::store::{self, is_unique_violation, now};

/// Sign-in form.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// Username or email.
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub password: String,
}

/// The signed-in user, and whether the root account still uses the well-known default password.
#[derive(Debug, Serialize, ToSchema)]
pub struct LoginView {
    #[serde(flatten)]
    pub user: UserView,
    pub using_default_password: bool,
}

#[utoipa::path(post, path = "/api/user/login", tag = "account", request_body = LoginRequest,
    params(TurnstileQuery), responses((status = 200, body = Envelope<LoginView>),
        (status = 429, description = "too many failed attempts for this account or address (Retry-After)", body = EmptyEnvelope),
        (status = 503, description = "every password-hashing slot is busy", body = EmptyEnvelope)))]
pub async fn login(
    State(state): State<AppState>,
    ReqLang(lang): ReqLang,
    client: ClientIp,
    https: ClientHttps,
    ApiQuery(human): ApiQuery<TurnstileQuery>,
    ApiJson(form): ApiJson<LoginRequest>,
) -> ApiResult<Response> {
    let login = form.username.trim();
    if login.is_empty() || form.password.is_empty() {
        return Err(ApiError::Rejected(Msg::UsernamePasswordRequiredLogin));
    }
    let options = state.options().await?;
    let db = state.db();
    let found = store::users::find_live_by_login(db, login).await?;
    // Failures are counted per account (by id, whether it was named by username or email) and
    // per address; a name that is no account is counted under that name.
    let account = match &found {
        Some(user) => format!("user:{}", user.id),
        None => format!("login:{login}"),
    };
    let attempt = throttle::attempt(&state, Action::Login, client, &account).await?;
    require_human(&state, &options, human.turnstile.as_deref(), client).await?;
    let user = match found {
        Some(user)
            if state
                .passwords()
                .verify(&form.password, &user.password)
                .await? =>
        {
            user
        }
        Some(_) => return Err(ApiError::Rejected(Msg::WrongCredentials)),
        None => {
            // The same work as a wrong password, so the reply does not tell whether the account
            // exists.
            state.passwords().verify_absent(&form.password).await?;
            return Err(ApiError::Rejected(Msg::WrongCredentials));
        }
    };
    attempt.succeeded().await?;
    if user.status != STATUS_ENABLED {
        return Err(ApiError::Rejected(Msg::UserBanned));
    }
    if !options.bool("PasswordLoginEnabled") && !roles::is_root(user.role) {
        return Err(ApiError::Rejected(Msg::PasswordLoginDisabled));
    }
    if password::needs_rehash(&user.password) {
        let fresh = state.passwords().hash(form.password.clone()).await?;
        store::users::set_password_hash(&db.pool, user.id, &fresh).await?;
    }

    let using_default_password =
        roles::is_root(user.role) && form.password == password::WELL_KNOWN_ROOT_PASSWORD;
    let message = if using_default_password {
        Msg::DefaultPasswordWarning.text(lang).into_owned()
    } else {
        String::new()
    };
    open_session(&state, user, https.0, using_default_password, message).await
}

/// Signs `user` in: a new session, its cookie, and the user as the reply's data.
pub(super) async fn open_session(
    state: &AppState,
    mut user: UserRecord,
    over_https: bool,
    using_default_password: bool,
    message: String,
) -> ApiResult<Response> {
    let db = state.db();
    let cookie_value = secrets::random_alphanumeric(48);
    let ttl = state.settings().session_ttl().as_secs();
    let now = now();
    store::sessions::insert(
        db,
        &secrets::sha256_hex(&cookie_value),
        user.id,
        now,
        now.saturating_add(ttl as i64),
    )
    .await?;
    store::users::touch_login(db, user.id, now).await?;
    user.last_login_at = now;
    let body = ok_with_message(
        LoginView {
            user: user.into(),
            using_default_password,
        },
        message,
    );
    let mut response = body.into_response();
    response.headers_mut().append(
        header::SET_COOKIE,
        session_set_cookie(
            &cookie_value,
            ttl,
            state.settings().auth.secure_cookies.secure(over_https),
        ),
    );
    Ok(response)
}

#[utoipa::path(get, path = "/api/user/logout", tag = "account",
    responses((status = 200, body = EmptyEnvelope)))]
pub async fn logout(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    if let Some(cookie) = session_cookie(&headers) {
        store::sessions::delete(state.db(), &secrets::sha256_hex(&cookie)).await?;
    }
    let mut response = done().into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, session_clear_cookie());
    Ok(response)
}

/// Registration form.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RegisterRequest {
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub password: String,
    /// The repeated password; checked when sent.
    #[serde(default)]
    pub password2: Option<String>,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub verification_code: String,
    /// The inviter's invitation code.
    #[serde(default)]
    pub aff_code: String,
}

#[utoipa::path(post, path = "/api/user/register", tag = "account", request_body = RegisterRequest,
    params(TurnstileQuery), responses((status = 200, body = EmptyEnvelope),
        (status = 429, description = "too many attempts for this username or address (Retry-After)", body = EmptyEnvelope),
        (status = 503, description = "every password-hashing slot is busy", body = EmptyEnvelope)))]
pub async fn register(
    State(state): State<AppState>,
    client: ClientIp,
    ApiQuery(human): ApiQuery<TurnstileQuery>,
    ApiJson(form): ApiJson<RegisterRequest>,
) -> ApiResult<Json<Envelope<()>>> {
    let options = state.options().await?;
    if !options.bool("RegisterEnabled") {
        return Err(ApiError::Rejected(Msg::RegisterDisabled));
    }
    if !options.bool("PasswordRegisterEnabled") {
        return Err(ApiError::Rejected(Msg::PasswordRegisterDisabled));
    }
    let username = form.username.trim();
    if username.is_empty() || form.password.is_empty() {
        return Err(ApiError::Rejected(Msg::UsernamePasswordRequired));
    }
    accounts::check_username(username).map_err(ApiError::Rejected)?;
    accounts::check_password(&form.password).map_err(ApiError::Rejected)?;
    if form
        .password2
        .as_deref()
        .is_some_and(|p2| p2 != form.password)
    {
        return Err(ApiError::Rejected(Msg::PasswordsDiffer));
    }
    // Every attempt counts, successful or not: each one may create an account.
    let _counted = throttle::attempt(&state, Action::Register, client, username).await?;
    require_human(&state, &options, human.turnstile.as_deref(), client).await?;
    let db = state.db();
    if store::users::username_taken(db, username, None).await? {
        return Err(ApiError::Rejected(Msg::UsernameTaken));
    }
    let email = verification::normalize_email(&form.email);
    let verified_code = if options.bool("EmailVerificationEnabled") {
        if email.is_empty() {
            return Err(ApiError::Rejected(Msg::EmailRequired));
        }
        check_email_policy(&email, &options)?;
        if store::users::find_live_by_email(db, &email)
            .await?
            .is_some()
        {
            return Err(ApiError::Rejected(Msg::EmailTaken));
        }
        Some(check_code(&state, Purpose::Email, &email, &form.verification_code).await?)
    } else {
        None
    };
    let inviter = match form.aff_code.trim() {
        "" => None,
        code => store::users::find_by_aff_code(db, code).await?,
    };
    let hash = state.passwords().hash(form.password.clone()).await?;

    let mut tx = db.pool.begin().await?;
    if let Some(code_hash) = &verified_code
        && !store::verification::consume(&mut *tx, Purpose::Email.as_str(), &email, code_hash)
            .await?
    {
        return Err(ApiError::Rejected(Msg::VerificationCodeInvalid));
    }
    let account = NewAccount {
        username,
        password_hash: &hash,
        display_name: username,
        email: if verified_code.is_some() { &email } else { "" },
        inviter: inviter.as_ref(),
    };
    match create_account(&mut tx, &options, &account).await {
        Err(err) if is_unique_violation(&err) => {
            return Err(ApiError::Rejected(Msg::UsernameTaken));
        }
        other => other?,
    };
    tx.commit().await?;
    Ok(done())
}

/// What a new account starts with.
pub(super) struct NewAccount<'a> {
    pub username: &'a str,
    /// Empty for an account that signs in only through a third party.
    pub password_hash: &'a str,
    pub display_name: &'a str,
    pub email: &'a str,
    pub inviter: Option<&'a UserRecord>,
}

/// Creates a user in `tx` with the new-user gift, the invitee bonus and the inviter's reward
/// (each logged); returns its id. A taken username is a unique violation.
pub(super) async fn create_account(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    options: &crate::domain::options::Options,
    account: &NewAccount<'_>,
) -> Result<i64, sqlx::Error> {
    let new_user_quota = options.i64("QuotaForNewUser");
    let invitee_bonus = if account.inviter.is_some() {
        options.i64("QuotaForInvitee")
    } else {
        0
    };
    let username = account.username;
    let new_user = store::users::NewUser {
        username,
        password_hash: account.password_hash,
        display_name: account.display_name,
        role: ROLE_COMMON,
        email: account.email,
        group: "default",
        quota: new_user_quota.saturating_add(invitee_bonus),
        inviter_id: account.inviter.map_or(0, |i| i.id),
        created_at: now(),
    };
    let id = store::users::insert(&mut **tx, &new_user).await?;
    if new_user_quota > 0 {
        store::logs::insert_event(
            &mut **tx,
            EventLog {
                user_id: id,
                username,
                kind: LogType::System,
                content: format!("new user registration gift: {new_user_quota} quota"),
                quota: new_user_quota,
            },
        )
        .await?;
    }
    if let Some(inviter) = account.inviter {
        if invitee_bonus > 0 {
            store::logs::insert_event(
                &mut **tx,
                EventLog {
                    user_id: id,
                    username,
                    kind: LogType::System,
                    content: format!("invitation bonus: {invitee_bonus} quota"),
                    quota: invitee_bonus,
                },
            )
            .await?;
        }
        let reward = options.i64("QuotaForInviter").max(0);
        store::users::reward_inviter(&mut **tx, inviter.id, reward).await?;
    }
    Ok(id)
}

/// Domain whitelist and alias rules for an email address.
pub fn check_email_policy(
    email: &str,
    options: &crate::domain::options::Options,
) -> Result<(), ApiError> {
    let domain = accounts::email_domain(email).map_err(ApiError::Rejected)?;
    if options.bool("EmailDomainRestrictionEnabled") {
        let allowed = options
            .get("EmailDomainWhitelist")
            .split(',')
            .any(|d| d.trim().eq_ignore_ascii_case(&domain));
        if !allowed {
            return Err(ApiError::Rejected(Msg::EmailDomainNotAllowed));
        }
    }
    if options.bool("EmailAliasRestrictionEnabled") && accounts::email_has_alias(email) {
        return Err(ApiError::Rejected(Msg::EmailAliasNotAllowed));
    }
    Ok(())
}
