//! The process's own memory figures from `/proc/self/status` (Linux), for the examples that
//! report resident memory (`parking`, `actors_cost`; included with `#[path]`).

/// The value of `field` (e.g. `"VmRSS:"`) in KiB; `None` where the file or the field is
/// missing (not Linux) or unreadable.
pub fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
