//! Build script: records the compiler version and the versions of the runtimes
//! under test so that every report can say exactly what produced it.
//!
//! Sets `OFFSHOOT_BENCH_RUSTC` (output of `$RUSTC --version`) and
//! `OFFSHOOT_BENCH_DEPS` (e.g. `rayon 1.12.0, chili 0.2.1`, read from the
//! workspace's Cargo.lock; empty when there is no lock file yet).

use std::path::Path;
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown rustc".to_string());
    println!("cargo:rustc-env=OFFSHOOT_BENCH_RUSTC={version}");

    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock = Path::new(&manifest_dir).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=build.rs");
    let deps = std::fs::read_to_string(&lock)
        .map(|text| lock_versions(&text, &["offshoot", "rayon", "chili", "tokio"]))
        .unwrap_or_default();
    println!("cargo:rustc-env=OFFSHOOT_BENCH_DEPS={deps}");
}

/// Picks `name version` pairs for the wanted packages out of a Cargo.lock.
fn lock_versions(text: &str, wanted: &[&str]) -> String {
    let mut found = Vec::new();
    let mut name: Option<&str> = None;
    for line in text.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let Some(v) = line.strip_prefix("version = ") {
            if let Some(n) = name.filter(|n| wanted.contains(n)) {
                found.push(format!("{n} {}", v.trim_matches('"')));
            }
        }
    }
    found.join(", ")
}
