//! Build script: records the compiler version and the versions of the runtimes
//! under test so that every report can say exactly what produced it.
//!
//! Sets `OFFSHOOT_BENCH_RUSTC` (output of `$RUSTC --version`),
//! `OFFSHOOT_BENCH_DEPS` (e.g. `rayon 1.12.0, chili 0.2.1`, read from the
//! workspace's Cargo.lock; empty when there is no lock file yet) and
//! `OFFSHOOT_BENCH_PROFILE` (the Cargo profile this build uses and the settings
//! the workspace manifest gives it, e.g. `release: debug = 1; otherwise Cargo's
//! defaults (no LTO, 16 codegen units), as a user's crate builds`).

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
        .map(|text| {
            lock_versions(
                &text,
                &["offshoot", "rayon", "chili", "tokio", "ractor", "kameo"],
            )
        })
        .unwrap_or_default();
    println!("cargo:rustc-env=OFFSHOOT_BENCH_DEPS={deps}");

    let manifest = Path::new(&manifest_dir).join("../../Cargo.toml");
    println!("cargo:rerun-if-changed={}", manifest.display());
    let text = std::fs::read_to_string(&manifest).unwrap_or_default();
    let profile = profile_name();
    println!(
        "cargo:rustc-env=OFFSHOOT_BENCH_PROFILE={}",
        describe_profile(&text, &profile)
    );
}

/// The profile being built, from `OUT_DIR` (`<target>/<profile dir>/build/<pkg>/out`;
/// the `dev` profile's directory is `debug`, `bench`'s is `release`).
fn profile_name() -> String {
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let dir = Path::new(&out)
        .ancestors()
        .nth(3)
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| std::env::var("PROFILE").unwrap_or_default());
    if dir == "debug" {
        "dev".to_string()
    } else {
        dir
    }
}

/// `name: settings` of a profile as the manifest writes them, following
/// `inherits`, and whether the code generation is Cargo's default (what a
/// user's crate gets) or tuned.
fn describe_profile(manifest: &str, name: &str) -> String {
    let mut settings = Vec::new();
    let mut current = name.to_string();
    let mut tuned = false;
    for _ in 0..8 {
        let mut inherits = None;
        for (key, value) in profile_section(manifest, &current) {
            if key == "inherits" {
                inherits = Some(value.trim_matches('"').to_string());
                continue;
            }
            if matches!(key.as_str(), "lto" | "codegen-units" | "opt-level") {
                tuned = true;
            }
            if !settings.iter().any(|(k, _): &(String, String)| *k == key) {
                settings.push((key, value));
            }
        }
        match inherits {
            Some(parent) => current = parent,
            None => break,
        }
    }
    let written = if settings.is_empty() {
        "no settings".to_string()
    } else {
        settings
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if tuned {
        format!("{name}: {written} (tuned code generation: not what a user's crate gets)")
    } else {
        format!(
            "{name}: {written}; otherwise Cargo's defaults (no LTO, 16 codegen units), as a user's crate builds"
        )
    }
}

/// The `key = value` lines of `[profile.<name>]` in a manifest.
fn profile_section(manifest: &str, name: &str) -> Vec<(String, String)> {
    let header = format!("[profile.{name}]");
    let mut inside = false;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == header;
        } else if inside && !line.starts_with('#') {
            if let Some((k, v)) = line.split_once('=') {
                found.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
    }
    found
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
