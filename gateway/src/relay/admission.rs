//! The steps every relayed request takes between reading its body and its first attempt,
//! shared by chat-like calls and the media endpoints: the model is routable for the caller,
//! its price, the rate limits and the user's in-flight slot, and the quota reservation.

use super::{Failure, Relay, Trace};
use crate::billing::{self, Reservation, Slot};
use crate::config::Snapshot;
use crate::edge::Caller;
use crate::error::{BillingError, RouteError};
use crate::limits::{self, Admission};

/// The model has a channel for the caller (or the caller's pinned channel is usable).
pub fn check_routable(snap: &Snapshot, caller: &Caller, model: &str) -> Result<(), Failure> {
    match caller.pinned_channel {
        Some(id) if !snap.channels.get(&id).is_some_and(|c| c.enabled) => {
            Err(RouteError::PinnedUnavailable(id).into())
        }
        None if snap.tiers(&caller.group, model).is_empty() => Err(RouteError::NoChannel {
            model: model.to_owned(),
            group: caller.group.clone(),
        }
        .into()),
        _ => Ok(()),
    }
}

/// The model's price for the caller; an unpriced model costs nothing in self-use mode or for a
/// user who accepts it.
pub fn price(snap: &Snapshot, caller: &Caller, model: &str) -> Result<billing::Price, Failure> {
    match billing::price_for(&snap.pricing, model, &caller.user.group, &caller.group) {
        Err(BillingError::NotPriced(_))
            if snap.options.self_use_mode || caller.user.accept_unpriced =>
        {
            Ok(billing::Price::Fixed {
                price: 0.0,
                group_ratio: 1.0,
            })
        }
        other => Ok(other?),
    }
}

/// What a request holds while it is served: its rate-limit admission (dropped on failure, which
/// takes back its provisional success) and its place among the user's requests in flight.
pub struct Admitted {
    pub admission: Admission,
    pub _slot: Slot,
}

/// Rate limits, then the user's concurrency slot; refused requests are not charged (nothing is
/// reserved yet).
pub async fn admit(
    r: &Relay,
    snap: &Snapshot,
    caller: &Caller,
    model: &str,
    trace: &Trace,
) -> Result<Admitted, Failure> {
    let opts = &snap.options;
    let rules = limits::rules_for(&caller.token, &caller.user, &caller.group, model, opts);
    let admission = match r.state.limits.admit(&rules, &trace.request_id).await {
        Ok(admission) => admission,
        Err(denied) => {
            r.state
                .metrics
                .rate_limited
                .with_label_values(&[denied.scope.label()])
                .inc();
            return Err(denied.into());
        }
    };
    let slot = r
        .state
        .concurrency
        .enter(caller.user.id, opts.concurrency_limit(&caller.user.group))?;
    Ok(Admitted {
        admission,
        _slot: slot,
    })
}

/// Reserves `pre` from the user's wallet and the token: through the fleet's Redis leases, the
/// carry of a gateway following a control plane, or in-process.
pub async fn reserve(
    r: &Relay,
    snap: &Snapshot,
    caller: &Caller,
    pre: i64,
    trace: &Trace,
) -> Result<Reservation, Failure> {
    let reservation = match (r.state.fleet.get(), &r.state.carry) {
        (Some(fleet), _) => {
            fleet
                .reserve(
                    &caller.user,
                    &caller.token,
                    snap.version,
                    pre,
                    &trace.request_id,
                )
                .await?
        }
        (None, Some(carry)) => billing::reserve_carried(
            &caller.user,
            &caller.token,
            snap.version,
            pre,
            carry,
            &trace.request_id,
        )
        .map_err(|e| match e {
            billing::Refused::Billing(e) => e,
            // Leases are enforced only by a fleet budget, which this gateway has not.
            billing::Refused::Lease(_) => BillingError::UserQuotaShort {
                remaining: 0,
                need: pre,
            },
        })?,
        (None, None) => billing::reserve(&caller.user, &caller.token, pre)?,
    };
    Ok(reservation)
}
