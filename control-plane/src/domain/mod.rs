//! Product rules with no I/O: roles and what they may do, passwords, account input, options.

pub mod accounts;
pub mod channel_keys;
pub mod channels;
pub mod crypto;
pub mod limits;
pub mod oauth;
pub mod options;
pub mod password;
pub mod payment;
pub mod pricing;
pub mod quota;
pub mod redemption;
pub mod roles;
pub mod secrets;
pub mod tokens;
pub mod usage;
pub mod verification;
