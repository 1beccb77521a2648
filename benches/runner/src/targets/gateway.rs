//! The gateway target: its control plane (release, SQLite, load core) set up through the REST
//! API, a private Redis when installed, the gateway following it over gRPC (target core), and
//! the converted and rate-limited views of the same processes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::{
    CONVERTED_MODEL, Env, Kind, Target, Workload, free_port, target, wait_listening, wait_ok,
};
use crate::procs::{Child, Spec};
use crate::setup;

/// The control plane (SQLite, load core), set up with a channel per workload (and the
/// Anthropic-type channel of the converted scenario) and an unlimited token through its REST
/// API, and the gateway following it (target core).
pub fn start_gateway(env: &Env, mock: &str) -> anyhow::Result<Target> {
    start_gateway_seeded(env, mock, "", |_| Ok(())).map(|(t, ())| t)
}

/// [`start_gateway`] with `seed` run against the control plane (its address) after the
/// operator's setup and before the gateway starts: what it creates is in the gateway's first
/// snapshot. `tag` names the logs and folders of this gateway apart from the others.
pub fn start_gateway_seeded<T>(
    env: &Env,
    mock: &str,
    tag: &str,
    seed: impl FnOnce(&str) -> anyhow::Result<T>,
) -> anyhow::Result<(Target, T)> {
    let cp_addr = format!("127.0.0.1:{}", free_port()?);
    let data = env.work.join(format!("control-plane{tag}"));
    std::fs::create_dir_all(&data)?;
    let mut cp = Child::start(Spec {
        name: "control-plane",
        program: &env.bin_dir.join("control-plane"),
        args: vec![
            "--listen".into(),
            cp_addr.clone(),
            "--data-dir".into(),
            data.display().to_string(),
        ],
        env: vec![("RUST_LOG".into(), "warn".into())],
        cpu: Some(env.load_cpu),
        log: &env.work.join(format!("control-plane{tag}.log")),
        cwd: None,
    })?;
    wait_listening(&cp_addr, Duration::from_secs(60), &mut cp)?;
    let mut channels: Vec<setup::Channel> = [Workload::Chat, Workload::Slow, env.paced]
        .into_iter()
        .map(|w| setup::Channel {
            channel_type: 1,
            model: w.gateway_model(),
            base_url: format!("http://{mock}/s/{}", w.spec()),
        })
        .collect();
    // The mock answers `/v1/messages` as Anthropic does, with the same 20 pieces.
    channels.push(setup::Channel {
        channel_type: 14,
        model: CONVERTED_MODEL,
        base_url: format!("http://{mock}/s/{}", Workload::Chat.spec()),
    });
    let keys = setup::configure(&cp_addr, &env.work, &channels)?;
    let seeded = seed(&cp_addr)?;
    // Redis, as a fleet runs it (rate limits and balances shared), when it is installed: the
    // plain token's requests make no Redis call, the limited token's one each.
    let redis = start_redis(env, tag)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let admin = format!("127.0.0.1:{}", free_port()?);
    let gw_started = Instant::now();
    let mut gw = Child::start(Spec {
        name: "gateway",
        program: &env.bin_dir.join("gateway"),
        args: vec![
            "--listen".into(),
            addr.clone(),
            "--admin-listen".into(),
            admin.clone(),
            "--control-plane".into(),
            format!("http://{cp_addr}"),
            "--gateway-id".into(),
            "bench".into(),
            // The control plane wrote this token into its data folder at start.
            "--sync-token-file".into(),
            data.join("gateway-sync-token").display().to_string(),
            "--spool-dir".into(),
            env.work.join(format!("spool{tag}")).display().to_string(),
            "--threads".into(),
            "1".into(),
            "--drain-seconds".into(),
            "0".into(),
            "--grace-period-seconds".into(),
            "0".into(),
        ]
        .into_iter()
        .chain(
            redis
                .as_ref()
                .map(|(_, url)| ["--redis-url".to_owned(), url.clone()])
                .into_iter()
                .flatten(),
        )
        .collect(),
        env: vec![("RUST_LOG".into(), "warn".into())],
        cpu: Some(env.target_cpu),
        log: &env.work.join(format!("gateway{tag}.log")),
        cwd: None,
    })?;
    wait_listening(&addr, Duration::from_secs(30), &mut gw)?;
    // Before any request: the idle scenario, and the scale gateway's memory with its tokens.
    let (idle, ready_after) = if env.measure_idle || !tag.is_empty() {
        crate::idle::wait_ready(&admin, Duration::from_secs(300), &mut gw)?;
        let ready = gw_started.elapsed();
        (Some(crate::idle::settled_rss(gw.pid())), Some(ready))
    } else {
        (None, None)
    };
    let cp_pid = cp.pid();
    let with_redis = if redis.is_some() {
        ", Redis for limits and balances"
    } else {
        ""
    };
    let limited_key = redis.as_ref().map(|_| keys.limited.clone());
    let mut procs = vec![cp];
    procs.extend(redis.map(|(child, _)| child));
    procs.push(gw);
    let mut t = target(
        Kind::Gateway,
        format!(
            "gateway (this workspace, release), 1 relay thread, config and usage via the control plane{with_redis}"
        ),
        addr,
        mock,
        procs,
    );
    t.key = keys.plain;
    t.limited_key = limited_key;
    t.control_plane_pid = Some(cp_pid);
    t.cp_addr = Some(cp_addr);
    t.admin_addr = Some(admin);
    t.idle_rss_kib = idle;
    t.ready_after = ready_after;
    for w in [Workload::Chat, Workload::Stream, Workload::Slow, env.paced] {
        wait_ok(&t.request(w), Duration::from_secs(30))
            .with_context(|| format!("gateway never answered a {} request", w.label()))?;
    }
    Ok((t, seeded))
}

/// The converted scenario on a started gateway: the same processes (stopped with `gateway`),
/// asked for the Anthropic channel's model; checked to answer both chat workloads.
pub fn converted_view(gateway: &Target) -> anyhow::Result<Target> {
    view(
        gateway,
        Kind::GatewayConverted,
        &format!(
            "OpenAI chat requests for `{CONVERTED_MODEL}`, served by an Anthropic-type channel (14) on the mock"
        ),
        gateway.key.clone(),
        "converted gateway",
    )
}

/// Another view of a started gateway's processes (it owns none of them): `kind`, described by
/// `about`, asked with `key`; checked to answer both chat workloads.
fn view(
    gateway: &Target,
    kind: Kind,
    about: &str,
    key: String,
    name: &str,
) -> anyhow::Result<Target> {
    let t = Target {
        kind,
        version: format!("{}; {about}", gateway.version),
        addr: gateway.addr.clone(),
        pid: gateway.pid,
        control_plane_pid: gateway.control_plane_pid,
        mock_addr: gateway.mock_addr.clone(),
        key,
        limited_key: None,
        cp_addr: gateway.cp_addr.clone(),
        admin_addr: gateway.admin_addr.clone(),
        idle_rss_kib: None,
        ready_after: None,
        procs: vec![],
    };
    for w in [Workload::Chat, Workload::Stream] {
        wait_ok(&t.request(w), Duration::from_secs(30))
            .with_context(|| format!("the {name} never answered a {}", w.label()))?;
    }
    Ok(t)
}

/// The converted scenario without the same-dialect one: a gateway of its own.
pub fn start_converted(env: &Env, mock: &str) -> anyhow::Result<Target> {
    let mut gateway = start_gateway(env, mock)?;
    let mut t = converted_view(&gateway)?;
    t.procs = std::mem::take(&mut gateway.procs);
    Ok(t)
}

/// The rate-limited view of a started gateway: the same processes, the token whose limit is
/// counted in Redis; checked to answer both chat workloads.
pub fn limited_view(gateway: &Target) -> anyhow::Result<Target> {
    let Some(key) = gateway.limited_key.clone() else {
        bail!("redis-server is not installed: no Redis for the rate-limited gateway");
    };
    view(
        gateway,
        Kind::GatewayLimited,
        "a token with a rate limit (10⁹ a minute, never reached) counted in Redis",
        key,
        "rate-limited gateway",
    )
}

/// The rate-limited scenario without the plain one: a gateway of its own.
pub fn start_limited(env: &Env, mock: &str) -> anyhow::Result<Target> {
    let mut gateway = start_gateway(env, mock)?;
    let mut t = limited_view(&gateway)?;
    t.procs = std::mem::take(&mut gateway.procs);
    Ok(t)
}

/// A private `redis-server` (nothing kept on disk) on the load core, when installed; its URL.
fn start_redis(env: &Env, tag: &str) -> anyhow::Result<Option<(Child, String)>> {
    let Ok(program) = which("redis-server") else {
        return Ok(None);
    };
    let port = free_port()?;
    let addr = format!("127.0.0.1:{port}");
    let mut child = Child::start(Spec {
        name: "redis-server",
        program: &program,
        args: vec![
            "--port".into(),
            port.to_string(),
            "--bind".into(),
            "127.0.0.1".into(),
            "--save".into(),
            String::new(),
            "--appendonly".into(),
            "no".into(),
        ],
        env: vec![],
        cpu: Some(env.load_cpu),
        log: &env.work.join(format!("redis{tag}.log")),
        cwd: None,
    })?;
    wait_listening(&addr, Duration::from_secs(10), &mut child)?;
    Ok(Some((child, format!("redis://{addr}/"))))
}

/// The path of `program` on `PATH`.
fn which(program: &str) -> anyhow::Result<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .with_context(|| format!("{program} not found"))
}
