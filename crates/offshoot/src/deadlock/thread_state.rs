//! What the operating system says about a worker's thread: whether it sleeps in the kernel
//! and how often it has given up its CPU, for the blocked-worker report (`blocked.rs`).
//!
//! Invariants:
//! * Linux only, read from `/proc/self/task/<tid>/status`; everywhere else (and under Miri,
//!   or when the file cannot be read) the answer is `None`, "unknown", and the report falls
//!   back to what the pool itself sees.
//! * A thread seen sleeping (`S`, or `D` in uninterruptible I/O) twice with the same count
//!   of context switches has not run at all in between: any run ends in a switch (it went
//!   back to sleep) or leaves it running (`R`).

/// The calling thread's identity in the kernel (`gettid`), 0 where unknown.
pub(crate) fn current_os_thread() -> u32 {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: `gettid` takes no argument and cannot fail.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) };
        u32::try_from(tid).unwrap_or(0)
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        0
    }
}

/// One look at a thread from outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OsView {
    /// It sleeps in the kernel (state `S` or `D`), as a thread blocked on a lock, a
    /// condition variable, a channel, a sleep or I/O does.
    pub(super) sleeping: bool,
    /// Voluntary and involuntary context switches so far.
    pub(super) switches: u64,
}

/// How the operating system sees thread `tid` of this process now (see the module docs).
pub(super) fn os_view(tid: u32) -> Option<OsView> {
    if tid == 0 || cfg!(miri) || !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")).ok()?;
    parse_status(&text)
}

/// Reads the state and the context switches out of a `/proc/…/status` text.
fn parse_status(text: &str) -> Option<OsView> {
    let mut state = None;
    let mut switches = 0u64;
    let mut seen = 0;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key {
            "State" => state = value.chars().next(),
            "voluntary_ctxt_switches" | "nonvoluntary_ctxt_switches" => {
                switches = switches.wrapping_add(value.parse().ok()?);
                seen += 1;
            }
            _ => {}
        }
    }
    (seen == 2).then_some(OsView {
        sleeping: matches!(state?, 'S' | 'D'),
        switches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_text_is_read() {
        let text = "Name:\tx\nState:\tS (sleeping)\nTgid:\t1\nvoluntary_ctxt_switches:\t7\n\
                    nonvoluntary_ctxt_switches:\t2\n";
        assert_eq!(
            parse_status(text),
            Some(OsView {
                sleeping: true,
                switches: 9
            })
        );
        let running = text.replace("S (sleeping)", "R (running)");
        assert!(!parse_status(&running).unwrap().sleeping);
        assert_eq!(parse_status("State:\tS (sleeping)\n"), None);
    }

    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn this_thread_is_seen_running() {
        let view = os_view(current_os_thread()).expect("/proc is readable");
        assert!(!view.sleeping, "the thread that reads is running");
    }
}
