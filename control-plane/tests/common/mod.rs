//! Test harness: the real application router on a fresh SQLite file or a fresh PostgreSQL
//! database, driven without a socket, with a chosen client address.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod fakes;

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use control_plane::settings::Settings;
use control_plane::state::AppState;
use control_plane::store::Db;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Which database a scenario runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Runs `scenario` on SQLite, or on PostgreSQL when `DATABASE_URL` is set (skipped otherwise).
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    let app = $crate::common::TestApp::start($crate::common::Backend::Sqlite).await.unwrap();
                    super::$name(&app).await;
                    app.finish().await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    let Some(app) = $crate::common::TestApp::start($crate::common::Backend::Postgres).await else {
                        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
                        return;
                    };
                    super::$name(&app).await;
                    app.finish().await;
                }
            }
        )*
    };
}

/// Like [`on_both_backends!`], on an application whose settings `tweak` (a function in the
/// calling module) changed first: `on_both_backends_with!(scenario => tweak, ...)`.
#[macro_export]
macro_rules! on_both_backends_with {
    ($($name:ident => $tweak:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    let app = $crate::common::TestApp::start_with($crate::common::Backend::Sqlite, super::$tweak).await.unwrap();
                    super::$name(&app).await;
                    app.finish().await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    let Some(app) = $crate::common::TestApp::start_with($crate::common::Backend::Postgres, super::$tweak).await else {
                        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
                        return;
                    };
                    super::$name(&app).await;
                    app.finish().await;
                }
            }
        )*
    };
}

/// A running application and what is needed to clean it up.
pub struct TestApp {
    pub router: Router,
    pub state: AppState,
    pub backend: Backend,
    _dir: tempfile::TempDir,
    pg_admin_url: Option<String>,
    pg_db_name: Option<String>,
}

pub const LOOPBACK: &str = "127.0.0.1:50000";
pub const REMOTE: &str = "203.0.113.7:50000";
pub const ROOT_PASSWORD: &str = "root-pass-1";

impl TestApp {
    /// A fresh application; `None` for PostgreSQL when `DATABASE_URL` is unset.
    pub async fn start(backend: Backend) -> Option<TestApp> {
        Self::start_with(backend, |_| {}).await
    }

    /// Like [`TestApp::start`], with a chance to change the settings.
    pub async fn start_with(
        backend: Backend,
        tweak: impl FnOnce(&mut Settings),
    ) -> Option<TestApp> {
        let dir = tempfile::tempdir().unwrap();
        let (url, admin_url, db_name) = match backend {
            Backend::Sqlite => (None, None, None),
            Backend::Postgres => {
                let admin_url = std::env::var("DATABASE_URL")
                    .ok()
                    .filter(|u| !u.is_empty())?;
                let name = format!(
                    "cpt_{}",
                    control_plane::domain::secrets::random_alphanumeric(12).to_lowercase()
                );
                let admin = admin_pool(&admin_url).await;
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&admin)
                    .await
                    .unwrap();
                admin.close().await;
                (
                    Some(with_database(&admin_url, &name)),
                    Some(admin_url),
                    Some(name),
                )
            }
        };
        let mut settings = Settings::for_tests(dir.path().to_path_buf(), url.clone());
        settings.setup_token = Some("test-setup-token".into());
        tweak(&mut settings);
        let db = Db::connect(url.as_deref(), dir.path(), 8).await.unwrap();
        db.migrate().await.unwrap();
        let state = AppState::new(db, settings).await.unwrap();
        Some(TestApp {
            router: control_plane::app(state.clone()),
            state,
            backend,
            _dir: dir,
            pg_admin_url: admin_url,
            pg_db_name: db_name,
        })
    }

    /// Closes the pool and drops a PostgreSQL test database.
    pub async fn finish(self) {
        self.state.db().close().await;
        if let (Some(admin_url), Some(name)) = (&self.pg_admin_url, &self.pg_db_name) {
            let admin = admin_pool(admin_url).await;
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&admin)
            .await;
            admin.close().await;
        }
    }

    pub fn db(&self) -> &Db {
        self.state.db()
    }

    /// Starts a request.
    pub fn req(&self, method: Method, path: &str) -> Req<'_> {
        Req {
            app: self,
            method,
            path: path.to_string(),
            headers: HeaderMap::new(),
            body: None,
            peer: LOOPBACK.parse().unwrap(),
        }
    }

    pub fn get(&self, path: &str) -> Req<'_> {
        self.req(Method::GET, path)
    }

    pub fn post(&self, path: &str, body: Value) -> Req<'_> {
        self.req(Method::POST, path).json(body)
    }

    pub fn put(&self, path: &str, body: Value) -> Req<'_> {
        self.req(Method::PUT, path).json(body)
    }

    pub fn delete(&self, path: &str) -> Req<'_> {
        self.req(Method::DELETE, path)
    }

    /// Runs setup from loopback with a root account `root` / [`ROOT_PASSWORD`].
    pub async fn setup(&self) {
        let reply = self
            .post(
                "/api/setup",
                json!({"username": "root", "password": ROOT_PASSWORD, "confirmPassword": ROOT_PASSWORD}),
            )
            .send()
            .await;
        assert!(reply.success(), "setup failed: {}", reply.body);
    }

    /// Signs in and returns the session.
    pub async fn login(&self, username: &str, password: &str) -> Session {
        let reply = self
            .post(
                "/api/user/login",
                json!({"username": username, "password": password}),
            )
            .send()
            .await;
        assert!(
            reply.success(),
            "login of {username} failed: {}",
            reply.body
        );
        let cookie = reply.cookie("session").expect("session cookie");
        Session {
            cookie,
            user_id: reply.body["data"]["id"].as_i64().unwrap(),
        }
    }

    /// Setup, then a root session.
    pub async fn root(&self) -> Session {
        self.setup().await;
        self.login("root", ROOT_PASSWORD).await
    }

    /// Creates a user through the API (as `by`) and signs them in.
    pub async fn user(&self, by: &Session, username: &str) -> Session {
        let reply = self
            .post(
                "/api/user/",
                json!({"username": username, "password": "user-pass-1", "display_name": username}),
            )
            .signed_in(by)
            .send()
            .await;
        assert!(reply.success(), "create {username}: {}", reply.body);
        self.login(username, "user-pass-1").await
    }

    /// Creates a user and promotes them to admin (as root).
    pub async fn admin(&self, root: &Session, username: &str) -> Session {
        let session = self.user(root, username).await;
        let reply = self
            .post(
                "/api/user/manage",
                json!({"id": session.user_id, "action": "promote"}),
            )
            .signed_in(root)
            .send()
            .await;
        assert!(reply.success(), "promote {username}: {}", reply.body);
        session
    }

    /// Sets an option directly in the database (as if saved earlier).
    pub async fn set_option(&self, key: &str, value: &str) {
        control_plane::store::options::upsert(&self.db().pool, key, value)
            .await
            .unwrap();
    }
}

async fn admin_pool(url: &str) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(url)
        .await
        .unwrap()
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    let root = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    format!("{root}/{name}{query}")
}

/// A signed-in browser session.
#[derive(Debug, Clone)]
pub struct Session {
    pub cookie: String,
    pub user_id: i64,
}

/// A request being built.
pub struct Req<'a> {
    app: &'a TestApp,
    method: Method,
    path: String,
    headers: HeaderMap,
    body: Option<Vec<u8>>,
    peer: SocketAddr,
}

impl Req<'_> {
    pub fn json(mut self, body: Value) -> Self {
        self.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        self.body = Some(serde_json::to_vec(&body).unwrap());
        self
    }

    pub fn raw_body(mut self, content_type: &'static str, body: &str) -> Self {
        self.headers
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        self.body = Some(body.as_bytes().to_vec());
        self
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers
            .insert(name, HeaderValue::from_str(value).unwrap());
        self
    }

    /// Session cookie and the `New-Api-User` header of `session`.
    pub fn signed_in(self, session: &Session) -> Self {
        let cookie = format!("session={}", session.cookie);
        self.header("cookie", &cookie)
            .header("new-api-user", &session.user_id.to_string())
    }

    pub fn via_peer(mut self, peer: &str) -> Self {
        self.peer = peer.parse().unwrap();
        self
    }

    pub fn zh(self) -> Self {
        self.header("accept-language", "zh-CN,zh;q=0.9")
    }

    pub async fn send(self) -> Reply {
        let mut builder = Request::builder().method(self.method).uri(&self.path);
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        let mut request = builder
            .body(self.body.map(Body::from).unwrap_or_else(Body::empty))
            .unwrap();
        request.extensions_mut().insert(ConnectInfo(self.peer));
        let response = self.app.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Reply {
            status,
            headers,
            body,
        }
    }
}

/// A response with its body parsed as JSON (or kept as a string).
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    /// HTTP 200 with `success: true`.
    pub fn success(&self) -> bool {
        self.status == StatusCode::OK && self.body["success"] == json!(true)
    }

    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or_default()
    }

    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    /// Asserts a business failure (HTTP 200, success false) with exactly `message`.
    #[track_caller]
    pub fn assert_rejected(&self, message: &str) {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        assert_eq!(self.body["success"], json!(false), "{}", self.body);
        assert_eq!(self.message(), message, "{}", self.body);
    }

    /// The value of a cookie set by this response.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.set_cookie_header(name).and_then(|c| {
            c.split(';')
                .next()
                .and_then(|pair| pair.split_once('='))
                .map(|(_, v)| v.to_string())
        })
    }

    /// The whole `Set-Cookie` header for `name`.
    pub fn set_cookie_header(&self, name: &str) -> Option<String> {
        self.headers
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with(&format!("{name}=")))
            .map(str::to_string)
    }
}

/// The sync token `Settings::for_tests` configures.
pub const SYNC_TOKEN: &str = "test-sync-token";

/// A gRPC request carrying the test sync token, as a gateway sends it.
pub fn authed<T>(message: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(message);
    req.metadata_mut().insert(
        "authorization",
        format!("Bearer {SYNC_TOKEN}").parse().unwrap(),
    );
    req
}

/// Serves the app (REST and gRPC) on a loopback port and returns its address.
pub async fn serve_with_grpc(app: &TestApp) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = control_plane::app_with_grpc(app.state.clone());
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .unwrap();
    });
    addr
}

impl TestApp {
    /// Creates an unlimited API token for `owner` and returns its id.
    pub async fn token_of(&self, owner: &Session, name: &str) -> i64 {
        let created = self
            .post(
                "/api/token/",
                json!({"name": name, "remain_quota": 0, "expired_time": -1, "unlimited_quota": true}),
            )
            .signed_in(owner)
            .send()
            .await;
        assert!(created.success(), "{}", created.body);
        created.data()[0]["id"].as_i64().unwrap()
    }
}
