//! Rebuilds the control plane when a migration is added or changed: `sqlx::migrate!` embeds the
//! migrations folders at compile time, and cargo does not otherwise know that it reads them.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
