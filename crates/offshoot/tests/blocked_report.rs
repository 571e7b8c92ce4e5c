//! The blocked-worker report: a task that blocks its worker's thread in `std::sync` (a
//! std channel's `recv`, a std `Barrier`) while other work waits is reported on stderr —
//! which worker, its thread's name, and what to use instead — and a task that computes for
//! as long is not (Linux, where the thread's state tells them apart).
//!
//! The report goes to the process's stderr, so each scenario runs in a child process (this
//! test binary again, with only that test and `OFFSHOOT_BLOCKED_CHILD` set) whose stderr the
//! test reads. The child's pool reports after 200 ms; the test waits, bounded, for the
//! report to appear (no assertion on how long it took), then tells the child on its stdin
//! to release the blocked task, and waits, bounded, for the child to end well.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use offshoot::ThreadPool;

/// Set in a child process: the test runs its scenario instead of watching one.
const CHILD: &str = "OFFSHOOT_BLOCKED_CHILD";
/// How long any wait of these tests may take before it fails.
const LIMIT: Duration = Duration::from_secs(60);
/// The child pools' report delay.
const AFTER: Duration = Duration::from_millis(200);
/// What a blocked-worker report says.
const BLOCKED: &str = "has been blocked in the operating system for";
/// What every blocked-worker report starts with, in either form.
const ANY_REPORT: &str = "offshoot: worker ";

fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// A pool of `n` workers named `blocked-{i}`, reporting after [`AFTER`].
fn reporting_pool(n: usize) -> ThreadPool {
    ThreadPool::builder()
        .workers(n)
        .thread_name(|i| format!("blocked-{i}"))
        .blocked_report(Some(AFTER))
        .build()
        .expect("cannot build a pool")
}

/// In the child: waits until the parent writes a line to stdin.
fn parent_says_go() {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .expect("the parent's stdin");
}

/// A scenario running in a child process, with its stderr read line by line.
struct Scenario {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Scenario {
    /// Starts this test binary again with only test `name`, as a child.
    fn start(name: &str) -> Scenario {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start the child test process");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Scenario {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits, at most [`LIMIT`], for a stderr line that contains `want`, and returns it and
    /// the line after it.
    fn wait_for(&mut self, want: &str) -> (String, String) {
        let start = Instant::now();
        loop {
            let left = LIMIT.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.contains(want);
                    self.seen.push(line.clone());
                    if found {
                        let next = self.lines.recv_timeout(LIMIT).unwrap_or_default();
                        self.seen.push(next.clone());
                        return (line, next);
                    }
                }
                Err(e) => {
                    let _ = self.child.kill();
                    let why = match e {
                        RecvTimeoutError::Timeout => "nothing within 60 s",
                        RecvTimeoutError::Disconnected => "the child ended",
                    };
                    panic!(
                        "no stderr line with {want:?} ({why}); the child's stderr:\n{}",
                        self.seen.join("\n")
                    );
                }
            }
        }
    }

    /// Tells the child to go on (a line on its stdin).
    fn go(&mut self) {
        let mut stdin = self.stdin.take().expect("go once");
        writeln!(stdin).expect("the child's stdin");
    }

    /// Waits, at most [`LIMIT`], for the child to end, fails unless it ended well, and
    /// returns every stderr line it wrote.
    fn finish(mut self) -> Vec<String> {
        drop(self.stdin.take());
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("the child's status") {
                break s;
            }
            if start.elapsed() > LIMIT {
                let _ = self.child.kill();
                panic!(
                    "the child did not end within 60 s; its stderr:\n{}",
                    self.seen.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // The reader ends at the child's end of stderr.
        while let Ok(line) = self.lines.recv_timeout(LIMIT) {
            self.seen.push(line);
        }
        assert!(
            status.success(),
            "the child failed ({status}); its stderr:\n{}",
            self.seen.join("\n")
        );
        self.seen
    }
}

/// Checks a blocked-worker report's two lines: a worker of a pool of `n` with its thread's
/// name, and the advice.
fn check_report(head: &str, advice: &str, n: usize) {
    let named = (0..n).any(|i| {
        head.contains(&format!(
            "worker {i} (thread \"blocked-{i}\") of a pool of {n}"
        ))
    });
    assert!(named, "the report names no worker and thread: {head}");
    assert!(head.contains("one task"), "the report says where: {head}");
    for want in [
        "std::sync::mpsc::Receiver::recv",
        "std::sync::Barrier::wait",
        "offshoot::sync",
        "Barrier",
        "spawn_future",
        "Builder::blocked_report",
    ] {
        assert!(advice.contains(want), "the advice lacks {want:?}: {advice}");
    }
}

/// In the parent: runs test `name` as a child, waits for its report (a line with `want`),
/// checks it for a pool of `n`, releases the child and waits for it to end well. Returns
/// the report's first line.
fn expect_report(name: &str, want: &str, n: usize) -> String {
    let mut s = Scenario::start(name);
    let (head, advice) = s.wait_for(want);
    check_report(&head, &advice, n);
    s.go();
    s.finish();
    head
}

/// The first program, made deterministic: a detached task waits on a std channel
/// whose sender the test holds, so its worker is blocked in the OS while the pool's other
/// worker asks it for work.
#[test]
fn a_task_blocked_on_a_std_channel_is_reported() {
    const NAME: &str = "a_task_blocked_on_a_std_channel_is_reported";
    if in_child() {
        let pool = reporting_pool(2);
        let (tx, rx) = mpsc::channel::<u32>();
        let (done, finished) = mpsc::channel();
        pool.spawn(move || {
            let v = rx.recv().expect("the sender is held");
            done.send(v).expect("the test waits");
        });
        parent_says_go();
        tx.send(7).expect("the task waits");
        assert_eq!(
            finished.recv_timeout(LIMIT),
            Ok(7),
            "the released task ended"
        );
        return;
    }
    // Where the OS says nothing of a thread, the report says "without a poll point".
    let want = if cfg!(target_os = "linux") {
        BLOCKED
    } else {
        ANY_REPORT
    };
    expect_report(NAME, want, 2);
}

/// The second program, made deterministic: a task of a one-worker pool waits at a
/// std `Barrier` whose other party is the test's thread, so the pool's only worker is
/// blocked. (Linux: elsewhere only a worker that a thief's request waits at is reported.)
#[cfg(target_os = "linux")]
#[test]
fn a_task_blocked_at_a_std_barrier_is_reported() {
    const NAME: &str = "a_task_blocked_at_a_std_barrier_is_reported";
    if in_child() {
        let pool = reporting_pool(1);
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let b = barrier.clone();
        let waiter = std::thread::spawn(move || {
            pool.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        b.wait();
                    });
                })
            })
        });
        parent_says_go();
        barrier.wait();
        waiter.join().expect("the pool's run ended");
        return;
    }
    let head = expect_report(NAME, BLOCKED, 1);
    assert!(
        head.contains("the pool has no other worker"),
        "the report says why: {head}"
    );
}

/// A task that computes for ten times the report's delay, while the pool's other worker
/// asks it for work, is not reported: its thread is running, not blocked (the OS says so
/// on Linux only).
#[cfg(target_os = "linux")]
#[test]
fn a_task_that_computes_is_not_reported() {
    const NAME: &str = "a_task_that_computes_is_not_reported";
    if in_child() {
        let pool = reporting_pool(2);
        let spins = pool.run(|| {
            let start = Instant::now();
            let mut spins = 0u64;
            while start.elapsed() < AFTER * 10 {
                spins = std::hint::black_box(spins + 1);
            }
            spins
        });
        assert!(spins > 0);
        eprintln!("computed");
        return;
    }
    let mut s = Scenario::start(NAME);
    s.wait_for("computed");
    let lines = s.finish();
    let reports: Vec<_> = lines.iter().filter(|l| l.contains(ANY_REPORT)).collect();
    assert!(
        reports.is_empty(),
        "a computing task was reported: {reports:?}"
    );
}
