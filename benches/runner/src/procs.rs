//! Child processes of a run: started pinned to a core in their own process group, stopped
//! (the whole group) when dropped, and measured from /proc: CPU time and resident memory of a
//! process and all its descendants.

use std::collections::HashMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// A started program; its process group is terminated on drop.
pub struct Child {
    pub name: String,
    child: std::process::Child,
}

/// What to start.
pub struct Spec<'a> {
    pub name: &'a str,
    pub program: &'a Path,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Pin to this CPU (`taskset -c`).
    pub cpu: Option<usize>,
    /// stdout and stderr go here.
    pub log: &'a Path,
    pub cwd: Option<&'a Path>,
}

impl Child {
    pub fn start(spec: Spec<'_>) -> anyhow::Result<Child> {
        let log = fs::File::create(spec.log)
            .with_context(|| format!("creating {}", spec.log.display()))?;
        let mut cmd = match spec.cpu {
            Some(cpu) => {
                let mut c = Command::new("taskset");
                c.arg("-c").arg(cpu.to_string()).arg(spec.program);
                c
            }
            None => Command::new(spec.program),
        };
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .process_group(0);
        if let Some(dir) = spec.cwd {
            cmd.current_dir(dir);
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {} ({})", spec.name, spec.program.display()))?;
        Ok(Child {
            name: spec.name.to_owned(),
            child,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails when the process has already exited.
    pub fn check_running(&mut self) -> anyhow::Result<()> {
        if let Some(status) = self.child.try_wait()? {
            bail!("{} exited early ({status})", self.name);
        }
        Ok(())
    }

    /// SIGTERM to the group, then SIGKILL after `grace`.
    pub fn stop(&mut self, grace: Duration) {
        let group = format!("-{}", self.child.id());
        let signal = |sig: &str| {
            let _ = Command::new("kill")
                .args([sig, "--", &group])
                .stderr(Stdio::null())
                .status();
        };
        if matches!(self.child.try_wait(), Ok(None)) {
            signal("-TERM");
            let start = Instant::now();
            while start.elapsed() < grace {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        // Workers may outlive their parent (nginx, python): kill what is left of the group.
        signal("-KILL");
        let _ = self.child.wait();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(3));
    }
}

/// The fields of `/proc/PID/stat` we use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub ppid: u32,
    /// utime + stime + cutime + cstime, in clock ticks.
    pub ticks: u64,
}

/// Parses one `/proc/PID/stat` line (the command name may contain spaces and parentheses).
pub fn parse_stat(line: &str) -> Option<Stat> {
    let rest = &line[line.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<i64>().ok());
    let ticks = [11, 12, 13, 14]
        .iter()
        .map(|&i| num(i).map(|v| v.max(0) as u64))
        .sum::<Option<u64>>()?;
    Some(Stat {
        ppid: u32::try_from(num(1)?).ok()?,
        ticks,
    })
}

fn all_stats() -> HashMap<u32, Stat> {
    let mut out = HashMap::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(st) = fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|l| parse_stat(&l))
        {
            out.insert(pid, st);
        }
    }
    out
}

/// `root` and all its descendants that are alive now.
pub fn tree(root: u32) -> Vec<u32> {
    tree_in(root, &all_stats())
}

fn tree_in(root: u32, stats: &HashMap<u32, Stat>) -> Vec<u32> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(
            stats
                .iter()
                .filter(|(_, s)| s.ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    out.retain(|p| stats.contains_key(p));
    out
}

/// CPU time (clock ticks) used so far by `root` and its descendants.
pub fn tree_ticks(root: u32) -> u64 {
    let stats = all_stats();
    tree_in(root, &stats)
        .iter()
        .filter_map(|p| stats.get(p))
        .map(|s| s.ticks)
        .sum()
}

/// Clock ticks per second (`getconf CLK_TCK`, 100 on Linux).
pub fn clock_ticks() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

/// `VmRSS` of one process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Resident memory of `root` and its descendants now, in KiB.
pub fn tree_rss_kib(root: u32) -> u64 {
    tree(root).iter().map(|p| rss_kib(*p)).sum()
}

/// Samples the resident memory of process trees every 50 ms and keeps the peak of each.
pub struct RssSampler {
    stop: Arc<AtomicBool>,
    peaks: Vec<Arc<AtomicU64>>,
    thread: Option<JoinHandle<()>>,
}

impl RssSampler {
    pub fn start(roots: &[u32]) -> RssSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let peaks: Vec<Arc<AtomicU64>> = roots.iter().map(|_| Arc::default()).collect();
        let (s, p, roots) = (stop.clone(), peaks.clone(), roots.to_vec());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                for (root, peak) in roots.iter().zip(&p) {
                    peak.fetch_max(tree_rss_kib(*root), Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        RssSampler {
            stop,
            peaks,
            thread: Some(thread),
        }
    }

    /// Stops sampling; the peak of each root, in KiB, in the order given.
    pub fn finish(mut self) -> Vec<u64> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peaks
            .iter()
            .map(|p| p.load(Ordering::Relaxed))
            .collect()
    }
}

/// The 1-minute load average now.
pub fn load_average() -> f64 {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// Steal ticks of each CPU so far (`/proc/stat`, the eighth value of each `cpuN` line): time
/// the hypervisor ran something else while the CPU had work. Empty where the kernel reports
/// none.
pub fn steal_ticks() -> Vec<u64> {
    let Ok(stat) = fs::read_to_string("/proc/stat") else {
        return vec![];
    };
    stat.lines()
        .filter(|l| l.starts_with("cpu") && !l.starts_with("cpu "))
        .filter_map(|l| l.split_whitespace().nth(8)?.parse().ok())
        .collect()
}

/// Pins this process (all its threads) to `cpu`; children started without a CPU inherit it.
pub fn pin_self(cpu: usize) -> anyhow::Result<()> {
    let status = Command::new("taskset")
        .args([
            "-a",
            "-p",
            "-c",
            &cpu.to_string(),
            &std::process::id().to_string(),
        ])
        .stdout(Stdio::null())
        .status()
        .context("taskset")?;
    if !status.success() {
        bail!("taskset failed to pin the runner to CPU {cpu}");
    }
    Ok(())
}

/// Raises this process's open-file limit (children inherit it); returns the limit in force.
pub fn raise_nofile(want: u64) -> u64 {
    let pid = std::process::id().to_string();
    let _ = Command::new("prlimit")
        .args(["--pid", &pid, &format!("--nofile={want}:{want}")])
        .stderr(Stdio::null())
        .status();
    Command::new("prlimit")
        .args([
            "--pid",
            &pid,
            "--nofile",
            "--raw",
            "--noheadings",
            "--output=SOFT",
        ])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_odd_names() {
        let line =
            "4242 (tokio (rt) 1) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 31 4 2 20 0 3 0 1 0 0";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                ppid: 17,
                ticks: 250 + 31 + 4 + 2
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn this_process_is_measurable() {
        let me = std::process::id();
        assert!(tree(me).contains(&me));
        assert!(tree_rss_kib(me) > 0);
    }
}
