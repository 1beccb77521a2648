-- A third-party account (GitHub, OIDC, LinuxDO, WeChat, Telegram) signs in to one user only:
-- two concurrent first sign-ins or binds of the same id cannot both succeed. Deleted users keep
-- their ids (a deleted account's binding is not handed to someone else).
CREATE UNIQUE INDEX idx_users_github_id ON users (github_id) WHERE github_id <> '';
CREATE UNIQUE INDEX idx_users_oidc_id ON users (oidc_id) WHERE oidc_id <> '';
CREATE UNIQUE INDEX idx_users_linux_do_id ON users (linux_do_id) WHERE linux_do_id <> '';
CREATE UNIQUE INDEX idx_users_wechat_id ON users (wechat_id) WHERE wechat_id <> '';
CREATE UNIQUE INDEX idx_users_telegram_id ON users (telegram_id) WHERE telegram_id <> '';
