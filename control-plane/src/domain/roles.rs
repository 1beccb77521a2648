//! Roles (1 / 10 / 100), user statuses, and which management actions an actor may take.

use crate::i18n::Msg;

pub const ROLE_COMMON: i64 = 1;
pub const ROLE_ADMIN: i64 = 10;
pub const ROLE_ROOT: i64 = 100;

pub const STATUS_ENABLED: i64 = 1;
pub const STATUS_DISABLED: i64 = 2;
/// A status that the enable action refuses (spec 1 §4).
pub const STATUS_NOT_ENABLEABLE: i64 = 3;

/// Role 10 or higher.
pub fn is_admin(role: i64) -> bool {
    role >= ROLE_ADMIN
}

/// Role 100 or higher.
pub fn is_root(role: i64) -> bool {
    role >= ROLE_ROOT
}

/// Whether an actor may act on (view, edit, manage) a target account: only on lower roles, except
/// that the super administrator may act on their own account.
pub fn may_act_on(actor_id: i64, actor_role: i64, target_id: i64, target_role: i64) -> bool {
    actor_role > target_role || (is_root(actor_role) && actor_id == target_id)
}

/// An action of `POST /api/user/manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManageAction {
    Promote,
    Demote,
    Disable,
    Enable,
    Delete,
}

impl ManageAction {
    pub fn parse(action: &str) -> Result<Self, Msg> {
        match action {
            "promote" => Ok(Self::Promote),
            "demote" => Ok(Self::Demote),
            "disable" => Ok(Self::Disable),
            "enable" => Ok(Self::Enable),
            "delete" => Ok(Self::Delete),
            other => Err(Msg::UnknownAction {
                action: other.chars().take(32).collect(),
            }),
        }
    }
}

/// What a permitted management action leaves behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManageOutcome {
    pub role: i64,
    pub status: i64,
    pub deleted: bool,
}

/// Decides a management action of `actor` on a target with `role` and `status`.
pub fn decide_manage(
    actor_id: i64,
    actor_role: i64,
    target_id: i64,
    role: i64,
    status: i64,
    action: ManageAction,
) -> Result<ManageOutcome, Msg> {
    if !may_act_on(actor_id, actor_role, target_id, role) {
        return Err(Msg::CannotActOnEqualOrHigherRole);
    }
    let keep = ManageOutcome {
        role,
        status,
        deleted: false,
    };
    match action {
        ManageAction::Promote => {
            if !is_root(actor_role) {
                Err(Msg::OnlyRootCanPromote)
            } else if is_admin(role) {
                Err(Msg::AlreadyAdmin)
            } else {
                Ok(ManageOutcome {
                    role: ROLE_ADMIN,
                    ..keep
                })
            }
        }
        ManageAction::Demote => {
            if is_root(role) {
                Err(Msg::CannotDemoteRoot)
            } else if !is_admin(role) {
                Err(Msg::AlreadyCommonUser)
            } else {
                Ok(ManageOutcome {
                    role: ROLE_COMMON,
                    ..keep
                })
            }
        }
        ManageAction::Disable => {
            if is_root(role) {
                Err(Msg::CannotDisableRoot)
            } else {
                Ok(ManageOutcome {
                    status: STATUS_DISABLED,
                    ..keep
                })
            }
        }
        ManageAction::Enable => {
            if status == STATUS_NOT_ENABLEABLE {
                Err(Msg::CannotEnableStatus3)
            } else {
                Ok(ManageOutcome {
                    status: STATUS_ENABLED,
                    ..keep
                })
            }
        }
        ManageAction::Delete => {
            if is_root(role) {
                Err(Msg::CannotDeleteRoot)
            } else {
                Ok(ManageOutcome {
                    deleted: true,
                    ..keep
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admins_cannot_touch_equal_or_higher_roles() {
        for action in [
            ManageAction::Promote,
            ManageAction::Demote,
            ManageAction::Disable,
            ManageAction::Enable,
            ManageAction::Delete,
        ] {
            assert_eq!(
                decide_manage(1, ROLE_ADMIN, 2, ROLE_ADMIN, 1, action),
                Err(Msg::CannotActOnEqualOrHigherRole)
            );
            assert_eq!(
                decide_manage(1, ROLE_ADMIN, 2, ROLE_ROOT, 1, action),
                Err(Msg::CannotActOnEqualOrHigherRole)
            );
        }
    }

    #[test]
    fn root_cannot_be_demoted_disabled_or_deleted_even_by_itself() {
        assert_eq!(
            decide_manage(1, ROLE_ROOT, 1, ROLE_ROOT, 1, ManageAction::Demote),
            Err(Msg::CannotDemoteRoot)
        );
        assert_eq!(
            decide_manage(1, ROLE_ROOT, 1, ROLE_ROOT, 1, ManageAction::Delete),
            Err(Msg::CannotDeleteRoot)
        );
        assert_eq!(
            decide_manage(1, ROLE_ROOT, 1, ROLE_ROOT, 1, ManageAction::Disable),
            Err(Msg::CannotDisableRoot)
        );
    }

    #[test]
    fn promotion_is_for_root_only_and_status_3_stays_disabled() {
        assert_eq!(
            decide_manage(1, ROLE_ADMIN, 2, ROLE_COMMON, 1, ManageAction::Promote),
            Err(Msg::OnlyRootCanPromote)
        );
        let promoted = decide_manage(1, ROLE_ROOT, 2, ROLE_COMMON, 1, ManageAction::Promote);
        assert_eq!(promoted.map(|o| o.role), Ok(ROLE_ADMIN));
        assert_eq!(
            decide_manage(
                1,
                ROLE_ADMIN,
                2,
                ROLE_COMMON,
                STATUS_NOT_ENABLEABLE,
                ManageAction::Enable
            ),
            Err(Msg::CannotEnableStatus3)
        );
    }
}
