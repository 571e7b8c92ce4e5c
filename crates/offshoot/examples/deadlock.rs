//! A deadlock, reported: two tasks lock two mutexes in opposite orders (a barrier makes
//! sure each holds its first lock before it asks for the second). Every worker goes idle
//! with both tasks waiting; the pool's deadlock watch ends both waits with a panic whose
//! message lists the tasks, the mutexes they wait on and who holds each. The panic comes
//! out of `ThreadPool::run` like any panic of a task.
//!
//! Then a value set by a thread outside the pool: the thread holds an `ExternalWaker`
//! while the pool waits for it, so no deadlock is declared.
//!
//! `cargo run --example deadlock`

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use offshoot::sync::{task_id, Barrier, ExternalWaker, Mutex, Promise};

fn main() {
    let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    let (accounts, audit) = (Mutex::new(100u64), Mutex::new(0u64));
    let both_hold_one = Barrier::new(2);
    println!("accounts at {:p}, audit at {:p}", &accounts, &audit);

    // The panic hook prints the report (once) as the first wait panics; keep it for the
    // summary below instead.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = catch_unwind(AssertUnwindSafe(|| {
        pool.run(|| {
            offshoot::join(
                || {
                    let a = accounts.lock();
                    println!("task {} holds accounts", task_id().as_u64());
                    both_hold_one.wait();
                    *audit.lock() += *a;
                },
                || {
                    let b = audit.lock();
                    println!("task {} holds audit", task_id().as_u64());
                    both_hold_one.wait();
                    *accounts.lock() += *b;
                },
            )
        })
    }));
    std::panic::set_hook(hook);
    match r {
        Ok(_) => println!("no deadlock?"),
        Err(p) => match p.downcast::<String>() {
            Ok(report) => println!("\nThe run panicked:\n{report}"),
            Err(_) => println!("the run panicked with something else"),
        },
    }
    // The tasks unwound and released both locks.
    assert!(accounts.try_lock().is_some() && audit.try_lock().is_some());

    // A thread outside the pool puts a value the pool waits for; it announces itself.
    let answer = Promise::new();
    let setter = {
        let (answer, guard) = (answer.clone(), ExternalWaker::new());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50)); // the pool is idle meanwhile
            answer.put(42).unwrap();
            drop(guard);
        })
    };
    println!(
        "\nA value from outside the pool (announced): {}",
        pool.run(|| *answer.get())
    );
    setter.join().unwrap();
}
