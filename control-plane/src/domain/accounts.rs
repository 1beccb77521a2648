//! Rules for account input: usernames, passwords, display names, emails.

use crate::i18n::Msg;

pub const PASSWORD_MIN: usize = 8;
pub const PASSWORD_MAX: usize = 20;
pub const USERNAME_MAX: usize = 20;
pub const SETUP_USERNAME_MAX: usize = 12;
pub const DISPLAY_NAME_MAX: usize = 20;

/// A username: not blank, at most 20 characters, no whitespace, '@' or control characters.
pub fn check_username(username: &str) -> Result<(), Msg> {
    if username.trim().is_empty() {
        return Err(Msg::UsernamePasswordRequired);
    }
    if username.chars().count() > USERNAME_MAX {
        return Err(Msg::UsernameTooLong { max: USERNAME_MAX });
    }
    if username
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '@')
    {
        return Err(Msg::UsernameInvalid);
    }
    Ok(())
}

/// A password: 8 to 20 characters.
pub fn check_password(password: &str) -> Result<(), Msg> {
    let len = password.chars().count();
    if len < PASSWORD_MIN {
        return Err(Msg::PasswordTooShort { min: PASSWORD_MIN });
    }
    if len > PASSWORD_MAX {
        return Err(Msg::PasswordTooLong { max: PASSWORD_MAX });
    }
    Ok(())
}

/// A display name: at most 20 characters (empty means "use the username").
pub fn check_display_name(name: &str) -> Result<(), Msg> {
    if name.chars().count() > DISPLAY_NAME_MAX {
        return Err(Msg::DisplayNameTooLong {
            max: DISPLAY_NAME_MAX,
        });
    }
    Ok(())
}

/// A plausible email address; returns its lower-cased domain.
pub fn email_domain(email: &str) -> Result<String, Msg> {
    let (local, domain) = email.rsplit_once('@').ok_or(Msg::EmailInvalid)?;
    let valid = !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if valid {
        Ok(domain.to_ascii_lowercase())
    } else {
        Err(Msg::EmailInvalid)
    }
}

/// Whether the local part uses an alias (`name+tag@…`).
pub fn email_has_alias(email: &str) -> bool {
    email
        .rsplit_once('@')
        .is_some_and(|(local, _)| local.contains('+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        assert_eq!(check_username(""), Err(Msg::UsernamePasswordRequired));
        assert_eq!(check_username("   "), Err(Msg::UsernamePasswordRequired));
        assert_eq!(check_username("a b"), Err(Msg::UsernameInvalid));
        assert_eq!(check_username("a@b"), Err(Msg::UsernameInvalid));
        assert!(check_username(&"x".repeat(21)).is_err());
        assert!(check_username("alice_01").is_ok());
        assert!(check_username("用户").is_ok());
    }

    #[test]
    fn passwords() {
        assert_eq!(
            check_password("1234567"),
            Err(Msg::PasswordTooShort { min: 8 })
        );
        assert!(check_password("12345678").is_ok());
        assert!(check_password(&"p".repeat(20)).is_ok());
        assert_eq!(
            check_password(&"p".repeat(21)),
            Err(Msg::PasswordTooLong { max: 20 })
        );
    }

    #[test]
    fn emails() {
        assert_eq!(email_domain("a@Example.COM"), Ok("example.com".into()));
        assert_eq!(email_domain("nope"), Err(Msg::EmailInvalid));
        assert_eq!(email_domain("@x.com"), Err(Msg::EmailInvalid));
        assert_eq!(email_domain("a@localhost"), Err(Msg::EmailInvalid));
        assert!(email_has_alias("a+b@x.com"));
        assert!(!email_has_alias("ab@x.com"));
    }
}
