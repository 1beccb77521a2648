//! Settings that protect sign-in: limits on credential guessing, the password-hashing pool and
//! when the session cookie is `Secure`.

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::domain::limits::Limits;

/// When the session cookie carries `Secure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SecureCookies {
    /// When the request came over HTTPS: its own scheme, or `X-Forwarded-Proto: https` from a
    /// proxy the control plane trusts for the client address (a peer on this machine).
    Auto,
    /// Always (the console is only ever served over HTTPS).
    Always,
    /// Never.
    Never,
}

impl SecureCookies {
    /// Whether a cookie set in answer to a request (over HTTPS or not) is `Secure`.
    pub fn secure(self, request_is_https: bool) -> bool {
        match self {
            SecureCookies::Auto => request_is_https,
            SecureCookies::Always => true,
            SecureCookies::Never => false,
        }
    }
}

/// Sign-in protection.
#[derive(Debug, Clone, Args)]
pub struct AuthSettings {
    /// Window, in seconds, in which credential attempts are counted (sign-in, registration,
    /// email codes, password reset, redeeming codes).
    #[arg(long, env = "AUTH_LIMIT_WINDOW_SECS", default_value_t = 900)]
    pub auth_limit_window_secs: u64,

    /// Attempts per account or target (user, username, email) and endpoint in the window; for
    /// sign-in, codes, reset tokens and redeeming only failures count. 0: no limit.
    #[arg(long, env = "AUTH_LIMIT_PER_ACCOUNT", default_value_t = 10)]
    pub auth_limit_per_account: u64,

    /// Attempts per client address (IPv6: per /64) and endpoint in the window. 0: no limit.
    #[arg(long, env = "AUTH_LIMIT_PER_IP", default_value_t = 30)]
    pub auth_limit_per_ip: u64,

    /// Password hashes computed at once (argon2id takes about 19 MiB each); 0: one per CPU core.
    #[arg(long, env = "PASSWORD_HASH_CONCURRENCY", default_value_t = 0)]
    pub password_hash_concurrency: usize,

    /// Milliseconds a request waits for a hashing slot before it is answered 503.
    #[arg(long, env = "PASSWORD_HASH_WAIT_MS", default_value_t = 5000)]
    pub password_hash_wait_ms: u64,

    /// When the session cookie is marked `Secure`.
    #[arg(long, env = "SECURE_COOKIES", value_enum, default_value_t = SecureCookies::Auto)]
    pub secure_cookies: SecureCookies,
}

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            auth_limit_window_secs: 900,
            auth_limit_per_account: 10,
            auth_limit_per_ip: 30,
            password_hash_concurrency: 0,
            password_hash_wait_ms: 5000,
            secure_cookies: SecureCookies::Auto,
        }
    }
}

impl AuthSettings {
    /// The attempt limits.
    pub fn limits(&self) -> Limits {
        let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        Limits {
            window_secs: int(self.auth_limit_window_secs),
            per_account: int(self.auth_limit_per_account),
            per_ip: int(self.auth_limit_per_ip),
        }
    }

    /// How many hashes run at once.
    pub fn hash_concurrency(&self) -> usize {
        match self.password_hash_concurrency {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    pub fn hash_wait(&self) -> Duration {
        Duration::from_millis(self.password_hash_wait_ms)
    }
}
