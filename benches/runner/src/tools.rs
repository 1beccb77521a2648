//! Locating (and, where the package manager allows, installing) what a run needs: wrk and
//! nginx (apt), oha (cargo install), LiteLLM (PyPI, in a virtual environment) and Portkey
//! (npm) outside the repository, and this workspace's release binaries.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// The first `name` on `PATH` (or in `~/.cargo/bin`).
pub fn which(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/sbin"].map(PathBuf::from));
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// The first line a program prints for `args` (stdout or stderr).
pub fn version_line(program: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = [out.stdout, out.stderr].concat();
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .is_some_and(|o| o.stdout.starts_with(b"0\n"))
}

/// `program` from PATH, or installs the Debian package `package` when running as root.
pub fn apt_tool(program: &str, package: &str) -> anyhow::Result<PathBuf> {
    if let Some(p) = which(program) {
        return Ok(p);
    }
    if !is_root() {
        bail!("{program} is missing: install it with `sudo apt-get install -y {package}`");
    }
    eprintln!("installing {package} (apt)");
    let _ = Command::new("apt-get").args(["update", "-qq"]).status();
    let status = Command::new("apt-get")
        .args(["install", "-y", "-qq", "--no-install-recommends", package])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdout(Stdio::null())
        .status()?;
    if !status.success() {
        bail!("apt-get install {package} failed");
    }
    which(program).with_context(|| format!("{program} still missing after installing {package}"))
}

/// oha from PATH, or `cargo install --locked oha` with a throw-away target folder.
pub fn oha(cache: &Path) -> anyhow::Result<PathBuf> {
    if let Some(p) = which("oha") {
        return Ok(p);
    }
    eprintln!("installing oha (cargo install --locked oha; a few minutes)");
    let target = cache.join("oha-target");
    let status = Command::new("cargo")
        .args(["install", "--locked", "oha"])
        .env("CARGO_TARGET_DIR", &target)
        .status()?;
    let _ = std::fs::remove_dir_all(&target);
    if !status.success() {
        bail!("cargo install oha failed");
    }
    which("oha").context("oha still missing after cargo install")
}

/// The LiteLLM virtual environment under `peers`, created with pip when missing.
pub fn litellm(peers: &Path) -> anyhow::Result<PathBuf> {
    let venv = peers.join("litellm");
    if venv.join("bin/litellm").is_file() {
        return Ok(venv);
    }
    let python = which("python3").context("python3 is missing")?;
    eprintln!("installing LiteLLM proxy into {} (pip)", venv.display());
    std::fs::create_dir_all(peers)?;
    let ok = Command::new(&python)
        .args(["-m", "venv"])
        .arg(&venv)
        .status()?
        .success()
        && Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "litellm[proxy]"])
            .status()?
            .success();
    if !ok || !venv.join("bin/litellm").is_file() {
        bail!("pip install 'litellm[proxy]' failed");
    }
    Ok(venv)
}

/// Portkey's gateway installed with npm under `peers`, when missing.
pub fn portkey(peers: &Path) -> anyhow::Result<PathBuf> {
    let dir = peers.join("portkey");
    let entry = dir.join("node_modules/@portkey-ai/gateway/build/start-server.js");
    if entry.is_file() {
        return Ok(dir);
    }
    let npm = which("npm").context("npm is missing")?;
    which("node").context("node is missing")?;
    eprintln!(
        "installing @portkey-ai/gateway into {} (npm)",
        dir.display()
    );
    std::fs::create_dir_all(&dir)?;
    if !dir.join("package.json").is_file() {
        std::fs::write(dir.join("package.json"), "{\"private\": true}\n")?;
    }
    let ok = Command::new(npm)
        .args(["install", "--no-audit", "--no-fund", "@portkey-ai/gateway"])
        .current_dir(&dir)
        .status()?
        .success();
    if !ok || !entry.is_file() {
        bail!("npm install @portkey-ai/gateway failed");
    }
    Ok(dir)
}

/// `pip show` version of a package in a virtual environment.
pub fn pip_version(venv: &Path, package: &str) -> Option<String> {
    let out = Command::new(venv.join("bin/pip"))
        .args(["show", package])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("Version:"))
        .map(|v| v.trim().to_owned())
}

/// `version` of an npm package folder.
pub fn package_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["version"].as_str().map(str::to_owned)
}

/// Builds the binaries under test (release) into `target_dir`; their folder.
pub fn build_workspace(root: &Path, target_dir: &Path) -> anyhow::Result<PathBuf> {
    eprintln!("building gateway, control-plane, mock-provider and pingora-floor (release)");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // The runner is started by `cargo run`, which describes the runner's own package in the
    // environment. Build scripts that watch those variables (ring's: `CARGO_PKG_NAME`,
    // `CARGO_MANIFEST_DIR`) would see them change against a plain `cargo build` and rebuild
    // ring and all that depends on it each time the two alternate.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(describes_a_run_package) {
            cargo.env_remove(name);
        }
    }
    let status = cargo
        .args(["build", "--release", "--locked"])
        .args([
            "-p",
            "gateway",
            "-p",
            "control-plane",
            "-p",
            "mock-provider",
        ])
        .args(["-p", "pingora-floor"])
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(root)
        .status()
        .context("running cargo")?;
    if !status.success() {
        bail!("cargo build failed");
    }
    Ok(target_dir.join("release"))
}

/// Whether `name` is one of the variables `cargo run` sets to describe the package it runs
/// (not cargo's own configuration, such as `CARGO_HOME` or `CARGO_TARGET_DIR`).
fn describes_a_run_package(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_MANIFEST_")
        || matches!(
            name,
            "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
        )
}

#[cfg(test)]
mod tests {
    use super::describes_a_run_package;

    #[test]
    fn only_the_run_packages_description_is_left_out_of_the_build() {
        for name in [
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_MANIFEST_DIR",
            "CARGO_MANIFEST_PATH",
            "CARGO_CRATE_NAME",
            "CARGO_BIN_NAME",
            "CARGO_PRIMARY_PACKAGE",
        ] {
            assert!(describes_a_run_package(name), "{name}");
        }
        for name in [
            "CARGO",
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_JOBS",
            "CARGO_NET_OFFLINE",
            "PATH",
        ] {
            assert!(!describes_a_run_package(name), "{name}");
        }
    }
}
