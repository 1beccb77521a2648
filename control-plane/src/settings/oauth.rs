//! Where the control plane calls the fixed-address sign-in providers (GitHub, LinuxDO): their
//! public endpoints by default, another address for an enterprise GitHub or a test stand-in.
//! OIDC and the WeChat server are configured in the console's options instead.

use clap::Args;

/// Endpoints of the providers whose addresses are not options.
#[derive(Debug, Clone, Args)]
pub struct OAuthEndpoints {
    /// GitHub's token endpoint (exchanges the sign-in code).
    #[arg(long, env = "OAUTH_GITHUB_TOKEN_URL", default_value = GITHUB_TOKEN_URL)]
    pub oauth_github_token_url: String,

    /// GitHub's endpoint describing the signed-in user.
    #[arg(long, env = "OAUTH_GITHUB_USER_URL", default_value = GITHUB_USER_URL)]
    pub oauth_github_user_url: String,

    /// LinuxDO's token endpoint.
    #[arg(long, env = "LINUX_DO_TOKEN_ENDPOINT", default_value = LINUXDO_TOKEN_URL)]
    pub oauth_linuxdo_token_url: String,

    /// LinuxDO's endpoint describing the signed-in user.
    #[arg(long, env = "LINUX_DO_USER_ENDPOINT", default_value = LINUXDO_USER_URL)]
    pub oauth_linuxdo_user_url: String,
}

const GITHUB_TOKEN_URL: &str = "https://github.com/login/oauth/access_token";
const GITHUB_USER_URL: &str = "https://api.github.com/user";
const LINUXDO_TOKEN_URL: &str = "https://connect.linux.do/oauth2/token";
const LINUXDO_USER_URL: &str = "https://connect.linux.do/api/user";

impl Default for OAuthEndpoints {
    fn default() -> Self {
        OAuthEndpoints {
            oauth_github_token_url: GITHUB_TOKEN_URL.to_owned(),
            oauth_github_user_url: GITHUB_USER_URL.to_owned(),
            oauth_linuxdo_token_url: LINUXDO_TOKEN_URL.to_owned(),
            oauth_linuxdo_user_url: LINUXDO_USER_URL.to_owned(),
        }
    }
}
