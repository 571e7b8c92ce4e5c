use std::sync::atomic::{AtomicUsize, Ordering};
#[test]
fn scratch() {
    for n in [1usize, 2, 3] {
        let mut lost = 0;
        for _ in 0..200 {
            let p = offshoot::ThreadPool::builder().workers(n).build().unwrap();
            let nested = AtomicUsize::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    std::thread::scope(|ts| {
                        ts.spawn(|| {
                            s.spawn(|s| {
                                s.spawn(|_| {
                                    nested.fetch_add(1, Ordering::SeqCst);
                                })
                            })
                        });
                    });
                });
            });
            if nested.load(Ordering::SeqCst) != 1 {
                lost += 1;
            }
        }
        eprintln!("n={n} lost {lost}/200");
    }
}
