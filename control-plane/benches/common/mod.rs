//! What the control plane's benches share: their command-line options.

/// The number after `name` on the command line, or `default`.
pub fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether `name` is on the command line. (Each bench builds this module on its own, and not
/// every one has flags.)
#[allow(dead_code)]
pub fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}
