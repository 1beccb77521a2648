//! Which open-loop rounds ran on a quiet machine. A round is one run of every open-loop target
//! in turn; it is quiet when the hypervisor took at most `--max-steal-pct` of the target's and
//! the load generator's CPUs during each of its runs (steal time, `/proc/stat`). A p99 over
//! 10 s is the worst 0.1 s of requests, so a few milliseconds stolen now and then set it: the
//! runner repeats disturbed rounds (up to [`ROUNDS_PER_RUN`] × `--runs` in all) and the headline
//! judges the quiet ones, every round still listed in the results file.

use std::fmt::Write;

use crate::report::f;
use crate::results::{Point, Results, Run};

/// The most open-loop rounds the runner makes for each quiet round it needs.
pub const ROUNDS_PER_RUN: usize = 3;

/// Whether one run counts as quiet (unknown steal counts: kernels without steal time have no
/// hypervisor to take it, and older results did not record it).
pub fn run_is_quiet(run: &Run, max_steal_pct: Option<f64>) -> bool {
    match (run.steal_pct, max_steal_pct) {
        (Some(stolen), Some(max)) => stolen <= max,
        _ => true,
    }
}

/// Indices of the rounds in which every point's run was quiet.
pub fn quiet_rounds(points: &[Point], max_steal_pct: Option<f64>) -> Vec<usize> {
    let rounds = points.iter().map(|p| p.runs.len()).min().unwrap_or(0);
    (0..rounds)
        .filter(|&i| {
            points
                .iter()
                .all(|p| run_is_quiet(&p.runs[i], max_steal_pct))
        })
        .collect()
}

/// The open-loop rounds the headline judges: the quiet ones when there are `--runs` of them,
/// otherwise every round (the machine never was quiet enough; the report says so).
pub fn judged_rounds(r: &Results) -> Vec<usize> {
    let quiet = quiet_rounds(&r.open, r.settings.max_steal_pct);
    if quiet.len() >= r.settings.runs {
        return quiet;
    }
    let rounds = r.open.iter().map(|p| p.runs.len()).min().unwrap_or(0);
    (0..rounds).collect()
}

/// `r` with each open-loop point reduced to the judged rounds.
pub fn judged_view(r: &Results) -> Results {
    let rounds = judged_rounds(r);
    let mut view = r.clone();
    for p in &mut view.open {
        p.runs = rounds
            .iter()
            .filter_map(|&i| p.runs.get(i).cloned())
            .collect();
    }
    view
}

/// The open-loop section's account of the rounds: the rule, each target's p99 and steal per
/// round, and which rounds the table and headline use.
pub fn rounds_section(out: &mut String, r: &Results) {
    let Some(max) = r.settings.max_steal_pct else {
        return;
    };
    let rounds = r.open.iter().map(|p| p.runs.len()).min().unwrap_or(0);
    if rounds == 0 {
        return;
    }
    let quiet = quiet_rounds(&r.open, Some(max));
    let judged = judged_rounds(r);
    let listed = |rs: &[usize]| {
        rs.iter()
            .map(|i| (i + 1).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let verdict = if judged == quiet {
        format!(
            "The table above and the headline use the quiet rounds: {}.",
            listed(&quiet)
        )
    } else {
        format!(
            "Only {} of {rounds} rounds were quiet ({}), fewer than the {} asked for: the table above and the headline use every round, and their p99 measures the hypervisor as much as the targets.",
            quiet.len(),
            if quiet.is_empty() {
                "none".to_owned()
            } else {
                listed(&quiet)
            },
            r.settings.runs
        )
    };
    let _ = writeln!(
        out,
        "\nRounds: a round is one run of every target above in turn. It is quiet when the hypervisor took at most {} % of the target's or the load generator's CPU (steal time) in each of its runs; disturbed rounds were repeated, up to {} rounds in all. {verdict} p99 ms per round (steal %):\n",
        f(max, 1),
        ROUNDS_PER_RUN * r.settings.runs
    );
    for p in &r.open {
        let per_round: Vec<String> = p
            .runs
            .iter()
            .map(|x| {
                let stolen = x
                    .steal_pct
                    .map(|s| format!("{} %", f(s, 1)))
                    .unwrap_or_else(|| "–".into());
                format!("{} ({stolen})", f(x.p99_ms, 3))
            })
            .collect();
        let _ = writeln!(out, "- {}: {}", p.target, per_round.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::Kind;

    fn point(target: Kind, runs: &[(f64, Option<f64>)]) -> Point {
        Point {
            target,
            workload: "non-stream chat",
            conns: 100,
            rate: Some(5000),
            runs: runs
                .iter()
                .map(|&(p99_ms, steal_pct)| Run {
                    requests: 50_000,
                    errors: 0,
                    rps: 5000.0,
                    p50_ms: 0.2,
                    p99_ms,
                    cpu_us_per_req: 40.0,
                    control_plane_us_per_req: None,
                    mock_us_per_req: 20.0,
                    peak_rss_kib: 1024,
                    load_avg: 1.0,
                    budget_calls: None,
                    steal_pct,
                })
                .collect(),
        }
    }

    fn results(runs: usize, max: Option<f64>, open: Vec<Point>) -> Results {
        let mut r = Results::empty_quick_run();
        r.settings.runs = runs;
        r.settings.max_steal_pct = max;
        r.open = open;
        r
    }

    #[test]
    fn a_round_is_quiet_only_when_every_targets_run_was() {
        let open = vec![
            point(
                Kind::Mock,
                &[(1.0, Some(0.2)), (1.0, Some(0.1)), (1.0, Some(3.0))],
            ),
            point(
                Kind::Gateway,
                &[(1.0, Some(5.0)), (1.0, Some(0.9)), (1.0, None)],
            ),
        ];
        assert_eq!(quiet_rounds(&open, Some(1.0)), vec![1]);
        assert_eq!(quiet_rounds(&open, None), vec![0, 1, 2]);
    }

    #[test]
    fn the_headline_judges_the_quiet_rounds_when_there_are_enough() {
        let r = results(
            2,
            Some(1.0),
            vec![
                point(
                    Kind::Mock,
                    &[(1.0, Some(0.2)), (9.0, Some(8.0)), (1.1, Some(0.3))],
                ),
                point(
                    Kind::Gateway,
                    &[(1.3, Some(0.4)), (40.0, Some(6.0)), (1.5, Some(0.5))],
                ),
            ],
        );
        assert_eq!(judged_rounds(&r), vec![0, 2]);
        let view = judged_view(&r);
        let p99s: Vec<f64> = view.open[1].runs.iter().map(|x| x.p99_ms).collect();
        assert_eq!(p99s, vec![1.3, 1.5]);
        let mut text = String::new();
        rounds_section(&mut text, &r);
        assert!(text.contains("use the quiet rounds: 1, 3."), "{text}");
        assert!(
            text.contains("- gateway: 1.300 (0.4 %), 40.000 (6.0 %), 1.500 (0.5 %)"),
            "{text}"
        );
    }

    #[test]
    fn without_enough_quiet_rounds_every_round_is_judged_and_the_report_says_so() {
        let r = results(
            2,
            Some(1.0),
            vec![
                point(Kind::Mock, &[(1.0, Some(0.2)), (9.0, Some(8.0))]),
                point(Kind::Gateway, &[(1.3, Some(0.4)), (40.0, Some(6.0))]),
            ],
        );
        assert_eq!(judged_rounds(&r), vec![0, 1]);
        assert_eq!(judged_view(&r).open[1].runs.len(), 2);
        let mut text = String::new();
        rounds_section(&mut text, &r);
        assert!(text.contains("Only 1 of 2 rounds were quiet (1)"), "{text}");
    }

    #[test]
    fn results_without_a_steal_limit_keep_every_round_and_say_nothing() {
        let r = results(
            1,
            None,
            vec![point(Kind::Mock, &[(1.0, Some(9.0)), (2.0, Some(9.0))])],
        );
        assert_eq!(judged_rounds(&r), vec![0, 1]);
        let mut text = String::new();
        rounds_section(&mut text, &r);
        assert!(text.is_empty());
    }
}
