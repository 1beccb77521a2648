//! Third-party sign-in and binding (`/api/oauth/*`): the state value against CSRF, the code
//! callbacks of GitHub, OIDC and LinuxDO, WeChat codes, the Telegram login widget, and
//! unbinding (`DELETE /api/user/self/bindings/{provider}`). A signed-in caller binds; anyone
//! else signs in, registering on first sign-in when registration is open.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use super::account::{LoginView, NewAccount, create_account, open_session};
use super::auth::{Caller, authenticate, cookie_value};
use super::envelope::{EmptyEnvelope, Envelope, done, ok, ok_with_message};
use super::extract::{ApiQuery, ClientHttps, ClientIp};
use super::throttle;
use crate::domain::accounts::DISPLAY_NAME_MAX;
use crate::domain::limits::Action;
use crate::domain::oauth::{
    self, Provider, ProviderAccount, STATE_TTL_SECS, TelegramAuth, TelegramRefusal,
};
use crate::domain::options::Options;
use crate::domain::{password, roles};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::outbound::oauth::{self as providers, ProviderError};
use crate::state::AppState;
use crate::store::users::UserRecord;
use crate::store::{self, is_unique_violation, now};

const STATE_COOKIE: &str = "oauth_state";
const AFF_COOKIE: &str = "oauth_aff";

/// The invitation code to keep through the round trip.
#[derive(Debug, Deserialize, IntoParams)]
pub struct StateQuery {
    pub aff: Option<String>,
}

#[utoipa::path(get, path = "/api/oauth/state", tag = "account", params(StateQuery),
    responses((status = 200, description = "a state value to send to the provider; also set as an HttpOnly cookie the callback compares it with", body = Envelope<String>)))]
pub async fn get_state(
    State(state): State<AppState>,
    https: ClientHttps,
    ApiQuery(query): ApiQuery<StateQuery>,
) -> Response {
    let value = oauth::new_state();
    let secure = state.settings().auth.secure_cookies.secure(https.0);
    let mut response = ok(value.clone()).into_response();
    let headers = response.headers_mut();
    headers.append(
        header::SET_COOKIE,
        flow_cookie(STATE_COOKIE, &value, STATE_TTL_SECS, secure),
    );
    let aff = query
        .aff
        .as_deref()
        .and_then(oauth::clean_aff)
        .unwrap_or("");
    headers.append(
        header::SET_COOKIE,
        flow_cookie(
            AFF_COOKIE,
            aff,
            if aff.is_empty() { 0 } else { STATE_TTL_SECS },
            secure,
        ),
    );
    response
}

/// The provider's answer to the authorize page.
#[derive(Debug, Deserialize, IntoParams)]
pub struct CallbackQuery {
    pub code: Option<String>,
    pub state: Option<String>,
}

#[utoipa::path(get, path = "/api/oauth/{provider}", tag = "account",
    params(("provider" = String, Path, description = "github, oidc or linuxdo"), CallbackQuery),
    responses((status = 200, description = "signed in (the user, and a session cookie), or message `bind` when a signed-in caller bound the account", body = Envelope<LoginView>),
        (status = 429, description = "too many failed sign-ins from this address (Retry-After)", body = EmptyEnvelope)))]
pub async fn callback(
    State(state): State<AppState>,
    Path(provider): Path<String>,
    headers: HeaderMap,
    client: ClientIp,
    https: ClientHttps,
    ApiQuery(query): ApiQuery<CallbackQuery>,
) -> ApiResult<Response> {
    let provider = match Provider::from_path(&provider) {
        Some(p @ (Provider::GitHub | Provider::Oidc | Provider::LinuxDo)) => p,
        _ => return Err(ApiError::NotFound),
    };
    let options = enabled(&state, provider).await?;
    let returned = query.state.as_deref().unwrap_or_default();
    if !oauth::state_matches(cookie_value(&headers, STATE_COOKIE).as_deref(), returned) {
        return Err(ApiError::Rejected(Msg::OAuthStateInvalid));
    }
    let code = required_code(query.code.as_deref())?;
    let attempt = throttle::attempt(&state, Action::OAuth, client, provider.path()).await?;
    let redirect_uri = redirect_uri(&options, &headers, https.0, provider);
    let out = state.outbound();
    let endpoints = &state.settings().oauth;
    let account = match provider {
        Provider::GitHub => providers::github_account(out, endpoints, &options, code).await,
        Provider::Oidc => providers::oidc_account(out, &options, code, &redirect_uri).await,
        _ => providers::linuxdo_account(out, endpoints, &options, code, &redirect_uri).await,
    }
    .map_err(|e| provider_failed(provider, e))?;
    attempt.succeeded().await?;
    let aff = cookie_value(&headers, AFF_COOKIE);
    let mut response = match authenticate(&headers, &state).await {
        Ok(caller) => bind(&state, &caller, provider, &account.id).await?,
        Err(ApiError::Unauthorized(_)) => {
            sign_in(
                &state,
                &options,
                provider,
                &account,
                aff.as_deref(),
                https.0,
            )
            .await?
        }
        Err(other) => return Err(other),
    };
    // The state is used up.
    let secure = state.settings().auth.secure_cookies.secure(https.0);
    for name in [STATE_COOKIE, AFF_COOKIE] {
        response
            .headers_mut()
            .append(header::SET_COOKIE, flow_cookie(name, "", 0, secure));
    }
    Ok(response)
}

/// A code shown by the WeChat server.
#[derive(Debug, Deserialize, IntoParams)]
pub struct CodeQuery {
    pub code: Option<String>,
}

#[utoipa::path(get, path = "/api/oauth/wechat", tag = "account", params(CodeQuery),
    responses((status = 200, description = "signed in: the user, and a session cookie", body = Envelope<LoginView>),
        (status = 429, description = "too many failed sign-ins from this address (Retry-After)", body = EmptyEnvelope)))]
pub async fn wechat_login(
    State(state): State<AppState>,
    client: ClientIp,
    https: ClientHttps,
    ApiQuery(query): ApiQuery<CodeQuery>,
) -> ApiResult<Response> {
    let options = enabled(&state, Provider::WeChat).await?;
    let code = required_code(query.code.as_deref())?;
    let account = wechat_account(&state, &options, client, code).await?;
    sign_in(&state, &options, Provider::WeChat, &account, None, https.0).await
}

#[utoipa::path(get, path = "/api/oauth/wechat/bind", tag = "self", params(CodeQuery),
    responses((status = 200, description = "message `bind`: the WeChat account is bound", body = EmptyEnvelope),
        (status = 401, body = EmptyEnvelope)))]
pub async fn wechat_bind(
    State(state): State<AppState>,
    caller: Caller,
    client: ClientIp,
    ApiQuery(query): ApiQuery<CodeQuery>,
) -> ApiResult<Response> {
    let options = enabled(&state, Provider::WeChat).await?;
    let code = required_code(query.code.as_deref())?;
    let account = wechat_account(&state, &options, client, code).await?;
    bind(&state, &caller, Provider::WeChat, &account.id).await
}

#[utoipa::path(get, path = "/api/oauth/telegram/login", tag = "account", params(TelegramAuth),
    responses((status = 200, description = "signed in: the user, and a session cookie", body = Envelope<LoginView>)))]
pub async fn telegram_login(
    State(state): State<AppState>,
    https: ClientHttps,
    ApiQuery(auth): ApiQuery<TelegramAuth>,
) -> ApiResult<Response> {
    let options = enabled(&state, Provider::Telegram).await?;
    let account = telegram_account(&options, &auth)?;
    sign_in(
        &state,
        &options,
        Provider::Telegram,
        &account,
        None,
        https.0,
    )
    .await
}

#[utoipa::path(get, path = "/api/oauth/telegram/bind", tag = "self", params(TelegramAuth),
    responses((status = 200, description = "message `bind`: the Telegram account is bound", body = EmptyEnvelope),
        (status = 401, body = EmptyEnvelope)))]
pub async fn telegram_bind(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(auth): ApiQuery<TelegramAuth>,
) -> ApiResult<Response> {
    let options = enabled(&state, Provider::Telegram).await?;
    let account = telegram_account(&options, &auth)?;
    bind(&state, &caller, Provider::Telegram, &account.id).await
}

#[utoipa::path(delete, path = "/api/user/self/bindings/{provider}", tag = "self",
    params(("provider" = String, Path, description = "github, oidc, linuxdo, wechat or telegram")),
    responses((status = 200, description = "unbound; refused when it is the account's only way to sign in", body = EmptyEnvelope),
        (status = 401, body = EmptyEnvelope)))]
pub async fn unbind(
    State(state): State<AppState>,
    caller: Caller,
    Path(provider): Path<String>,
) -> ApiResult<Json<Envelope<()>>> {
    let provider = Provider::from_path(&provider).ok_or(ApiError::NotFound)?;
    let user = &caller.user;
    let others = Provider::ALL
        .into_iter()
        .filter(|p| *p != provider)
        .any(|p| !binding(user, p).is_empty());
    // A password also signs in, and so does an email address while mail can be sent (a
    // password reset link).
    let options = state.options().await?;
    let mail_works = !options.get("SMTPServer").trim().is_empty();
    let has_password = password::is_hash(&user.password) || (mail_works && !user.email.is_empty());
    if !others && !has_password {
        return Err(ApiError::Rejected(Msg::LastSignInMethod));
    }
    store::users::set_binding(&state.db().pool, user.id, provider, "").await?;
    Ok(done())
}

/// The options, when sign-in with `provider` is switched on.
async fn enabled(state: &AppState, provider: Provider) -> ApiResult<Options> {
    let options = state.options().await?;
    if !options.bool(provider.enabled_option()) {
        return Err(ApiError::Rejected(Msg::OAuthDisabled {
            provider: provider.label(),
        }));
    }
    Ok(options)
}

fn required_code(code: Option<&str>) -> ApiResult<&str> {
    code.map(str::trim)
        .filter(|c| !c.is_empty() && c.len() <= 2048)
        .ok_or(ApiError::Rejected(Msg::OAuthCodeMissing))
}

/// The WeChat account behind a code, counting failures per address.
async fn wechat_account(
    state: &AppState,
    options: &Options,
    client: ClientIp,
    code: &str,
) -> ApiResult<ProviderAccount> {
    let attempt = throttle::attempt(state, Action::OAuth, client, "wechat").await?;
    let id = providers::wechat_id(state.outbound(), options, code)
        .await
        .map_err(|e| provider_failed(Provider::WeChat, e))?;
    attempt.succeeded().await?;
    Ok(ProviderAccount {
        display_name: String::new(),
        login: String::new(),
        email: String::new(),
        id,
    })
}

fn telegram_account(options: &Options, auth: &TelegramAuth) -> ApiResult<ProviderAccount> {
    let token = options.get("TelegramBotToken").trim();
    if token.is_empty() {
        return Err(ApiError::Rejected(Msg::OAuthNotConfigured {
            provider: Provider::Telegram.label(),
        }));
    }
    auth.verify(token, now()).map_err(|refusal| {
        ApiError::Rejected(match refusal {
            TelegramRefusal::BadSignature => Msg::TelegramSignatureInvalid,
            TelegramRefusal::Expired => Msg::TelegramLoginExpired,
        })
    })
}

/// The client-facing error for a provider failure; the detail goes to the log only.
fn provider_failed(provider: Provider, err: ProviderError) -> ApiError {
    tracing::warn!(provider = provider.path(), error = %err, "third-party sign-in failed");
    match err {
        ProviderError::NotConfigured(_) => ApiError::Rejected(Msg::OAuthNotConfigured {
            provider: provider.label(),
        }),
        _ => ApiError::Rejected(Msg::OAuthFailed {
            provider: provider.label(),
        }),
    }
}

/// The user's id at `provider`.
fn binding(user: &UserRecord, provider: Provider) -> &str {
    match provider {
        Provider::GitHub => &user.github_id,
        Provider::Oidc => &user.oidc_id,
        Provider::LinuxDo => &user.linux_do_id,
        Provider::WeChat => &user.wechat_id,
        Provider::Telegram => &user.telegram_id,
    }
}

/// Binds the provider's account to the caller, unless another user holds it.
async fn bind(
    state: &AppState,
    caller: &Caller,
    provider: Provider,
    provider_id: &str,
) -> ApiResult<Response> {
    let db = state.db();
    let taken = Msg::OAuthAccountTaken {
        provider: provider.label(),
    };
    if let Some(holder) = store::users::find_by_binding(db, provider, provider_id).await?
        && holder.id != caller.user.id
    {
        return Err(ApiError::Rejected(taken));
    }
    match store::users::set_binding(&db.pool, caller.user.id, provider, provider_id).await {
        Err(err) if is_unique_violation(&err) => return Err(ApiError::Rejected(taken)),
        other => other?,
    }
    Ok(ok_with_message((), "bind").into_response())
}

/// Signs in the user bound to the provider's account, registering one on first sign-in.
async fn sign_in(
    state: &AppState,
    options: &Options,
    provider: Provider,
    account: &ProviderAccount,
    aff: Option<&str>,
    over_https: bool,
) -> ApiResult<Response> {
    let db = state.db();
    let user = match store::users::find_by_binding(db, provider, &account.id).await? {
        Some(user) => user,
        None => match register(state, options, provider, account, aff).await? {
            Some(user) => user,
            // Another sign-in of the same account registered it first.
            None => store::users::find_by_binding(db, provider, &account.id)
                .await?
                .ok_or_else(|| ApiError::Internal("a bound user vanished".to_owned()))?,
        },
    };
    if user.deleted_at.is_some() {
        return Err(ApiError::Rejected(Msg::AccountDeleted));
    }
    if user.status != roles::STATUS_ENABLED {
        return Err(ApiError::Rejected(Msg::UserBanned));
    }
    open_session(state, user, over_https, false, String::new()).await
}

/// Creates the account of a first sign-in, bound to the provider's account; `None` when a
/// concurrent sign-in bound that account first.
async fn register(
    state: &AppState,
    options: &Options,
    provider: Provider,
    account: &ProviderAccount,
    aff: Option<&str>,
) -> ApiResult<Option<UserRecord>> {
    if !options.bool("RegisterEnabled") {
        return Err(ApiError::Rejected(Msg::RegisterDisabled));
    }
    let db = state.db();
    let mut username = None;
    for candidate in oauth::username_candidates(provider, account) {
        if !store::users::username_taken(db, &candidate, None).await? {
            username = Some(candidate);
            break;
        }
    }
    let username = username.ok_or(ApiError::Rejected(Msg::UsernameTaken))?;
    let display_name: String = if account.display_name.is_empty() {
        username.clone()
    } else {
        account
            .display_name
            .chars()
            .take(DISPLAY_NAME_MAX)
            .collect()
    };
    let email = if account.email.is_empty()
        || store::users::find_live_by_email(db, &account.email)
            .await?
            .is_some()
    {
        ""
    } else {
        account.email.as_str()
    };
    let inviter = match aff {
        Some(code) => store::users::find_by_aff_code(db, code).await?,
        None => None,
    };
    let mut tx = db.pool.begin().await?;
    let new = NewAccount {
        username: &username,
        password_hash: "",
        display_name: &display_name,
        email,
        inviter: inviter.as_ref(),
    };
    let id = match create_account(&mut tx, options, &new).await {
        Err(err) if is_unique_violation(&err) => {
            return Err(ApiError::Rejected(Msg::UsernameTaken));
        }
        other => other?,
    };
    match store::users::set_binding(&mut *tx, id, provider, &account.id).await {
        Err(err) if is_unique_violation(&err) => return Ok(None),
        other => other?,
    }
    tx.commit().await?;
    Ok(store::users::find_by_id(db, id).await?)
}

/// Where the provider sent the browser back: `/oauth/{provider}` on the origin the console
/// called from (the console builds the same URI from its own address, and the state cookie
/// lives there); `ServerAddress` when the request names no host.
fn redirect_uri(options: &Options, headers: &HeaderMap, https: bool, provider: Provider) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|h| !h.is_empty() && !h.contains(['/', '\\', '@', ' ']));
    let origin = match host {
        Some(host) => format!("{}://{host}", if https { "https" } else { "http" }),
        None => options
            .get("ServerAddress")
            .trim()
            .trim_end_matches('/')
            .to_owned(),
    };
    format!("{origin}/oauth/{}", provider.path())
}

/// A cookie of the sign-in round trip: HttpOnly, sent back only to `/api/oauth`, and `Lax` so
/// it survives the provider's redirect.
fn flow_cookie(name: &str, value: &str, max_age: u64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/api/oauth; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static(""))
}
