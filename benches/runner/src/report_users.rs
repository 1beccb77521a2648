//! The results file's section and headline rows for requests spread over many users: what the
//! gateway and its control plane cost per request when every usage batch carries many users,
//! against the plain gateway's one user in the same run.

use std::fmt::Write;

use crate::report::{Headline, f, waits_line, waits_section};
use crate::report_scale::{POINT_HEADER, grouped, paired_ratio, point_row};
use crate::results::{Results, ScalePoint, Users};

/// The plain row (one user) and the spread row.
fn rows(u: &Users) -> Option<(&ScalePoint, &ScalePoint)> {
    let plain = u.points.iter().find(|p| p.tokens == 1)?;
    let many = u.points.iter().find(|p| p.tokens > 1)?;
    Some((plain, many))
}

/// Headline rows: the gateway's and the control plane's CPU per request with the load spread
/// over the users, beside one user's.
pub fn headlines(r: &Results) -> Vec<Headline> {
    let Some(u) = &r.users else {
        return vec![];
    };
    let Some((plain, many)) = rows(u) else {
        return vec![];
    };
    let n = grouped(u.users);
    let cpu = |p: &ScalePoint| p.med(|x| x.cpu_us_per_req);
    let cp = |p: &ScalePoint| p.med(|x| x.control_plane_us_per_req.unwrap_or(f64::NAN));
    let (ratio, per_run) = paired_ratio(many, plain);
    vec![
        Headline {
            what: format!(
                "throughput with requests over {n} users ÷ over 1 user, non-stream, c={}",
                many.conns
            ),
            goal: "reported".into(),
            measured: format!(
                "{} (median of the runs' ratios {per_run}); per CPU-second: {} ÷ {} µs/req = {}",
                f(ratio, 3),
                f(cpu(plain), 1),
                f(cpu(many), 1),
                f(cpu(plain) / cpu(many), 3)
            ),
            verdict: "reported".into(),
        },
        Headline {
            what: format!(
                "control-plane CPU per relayed request, requests over {n} users, non-stream, c={}",
                many.conns
            ),
            goal: "reported".into(),
            measured: format!(
                "{} µs (over 1 user, same run: {} µs)",
                f(cp(many), 1),
                f(cp(plain), 1)
            ),
            verdict: "reported".into(),
        },
    ]
}

/// The users section of the results file.
pub fn section(out: &mut String, r: &Results) {
    let Some(u) = &r.users else {
        return;
    };
    let n = grouped(u.users);
    let _ = writeln!(
        out,
        "\n## Requests over {n} users\n\n\
         A third gateway, started like the plain one (its own control plane, Redis and channels), whose \
         control plane holds {n} users besides root, each with one unlimited token and an ample balance, \
         created through the REST API before the gateway starts (per user: `POST /api/user/`, a sign-in and \
         `POST /api/token/`; {} client threads, {} s in all, two password hashes per user). wrk sends the \
         non-stream chat workload authenticated with each user's key in turn, so every usage batch carries \
         many users and the gateway holds a balance lease per user; the plain gateway's row (every request \
         of root) runs beside it in each repetition. The gateway was ready {} s after it started; {} of the \
         {n} keys were answered 200 through it before the load (each user's first request).\n",
        u.setup_threads,
        f(u.setup_seconds, 1),
        f(u.ready_seconds, 2),
        u.keys_verified,
    );
    let _ = writeln!(out, "{POINT_HEADER}");
    for p in &u.points {
        point_row(out, p);
    }
    let lines: Vec<String> = u
        .points
        .iter()
        .filter_map(|p| {
            let calls: Vec<_> = p.runs.iter().filter_map(|x| x.budget_calls).collect();
            (!calls.is_empty()).then(|| waits_line(&p.label, &calls))
        })
        .collect();
    waits_section(out, "Requests", &lines);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget_calls::BudgetCalls;
    use crate::results::Run;

    fn point(label: &str, tokens: usize, rps: f64, cpu: f64, cp: f64) -> ScalePoint {
        ScalePoint {
            label: label.into(),
            tokens,
            churn: false,
            conns: 50,
            runs: vec![Run {
                requests: 1000,
                errors: 0,
                rps,
                p50_ms: 1.0,
                p99_ms: 2.0,
                cpu_us_per_req: cpu,
                control_plane_us_per_req: Some(cp),
                mock_us_per_req: 5.0,
                peak_rss_kib: 50 * 1024,
                load_avg: 1.0,
                steal_pct: None,
                budget_calls: Some(BudgetCalls {
                    waited: tokens as u64,
                    top_ups: 7,
                }),
            }],
        }
    }

    #[test]
    fn users_rows_compare_the_spread_load_with_one_user() {
        let mut r = Results::empty_quick_run();
        assert!(headlines(&r).is_empty());
        r.users = Some(Users {
            users: 1000,
            setup_seconds: 60.0,
            setup_threads: 2,
            ready_seconds: 0.5,
            keys_verified: 1000,
            points: vec![
                point("one user", 1, 10_000.0, 50.0, 7.0),
                point("many users", 1000, 8_000.0, 62.5, 12.0),
            ],
        });
        let h = headlines(&r);
        assert_eq!(h.len(), 2);
        assert!(
            h[0].measured
                .starts_with("0.800 (median of the runs' ratios 0.800)"),
            "{}",
            h[0].measured
        );
        assert!(
            h[0].measured.ends_with("50.0 ÷ 62.5 µs/req = 0.800"),
            "{}",
            h[0].measured
        );
        assert_eq!(h[1].measured, "12.0 µs (over 1 user, same run: 7.0 µs)");
        let text = crate::report::render(&r);
        assert!(text.contains("## Requests over 1 000 users"), "{text}");
        assert!(text.contains("| many users | 50 | 8000 |"), "{text}");
        assert!(
            text.contains("requests over 1 000 users ÷ over 1 user"),
            "{text}"
        );
        assert!(
            text.contains("- many users: 1000 (top-ups in the background: 7)"),
            "{text}"
        );
    }
}
