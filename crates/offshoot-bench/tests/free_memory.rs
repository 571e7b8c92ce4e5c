//! `machine::release_free_memory` gives freed heap pages back to the system: the harness
//! relies on it so that no contender reuses pages another run touched (harness/mod.rs).
//! A test binary of its own without libtest's harness (`harness = false`), so that it runs
//! on the main thread, whose heap is where the harness found the stale holes, and no other
//! test allocates meanwhile.

use std::hint::black_box;

/// Resident pages of this process (/proc/self/statm), or `None` where there is no /proc.
fn resident_pages() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    statm.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        freed_heap_pages_are_given_back();
        println!("free_memory: freed heap pages are given back: ok");
    }
}

fn freed_heap_pages_are_given_back() {
    const BLOCK: usize = 32 << 10; // below glibc's mmap threshold: from the heap
    const BLOCKS: usize = 4096; // 128 MiB

    // SAFETY: `sysconf` reads a system constant.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .expect("the page size is positive");
    // Freeing a large block that glibc mapped on its own raises its threshold for mapping
    // and trimming (up to 32 MiB and 64 MiB), as the suite's inputs do: then it keeps a
    // freed hole in the heap mapped.
    drop(black_box(vec![1u8; 20 << 20]));
    // `black_box`: unread, the blocks' allocations could be optimised away.
    let mut blocks: Vec<Vec<u8>> = (0..BLOCKS).map(|_| black_box(vec![1u8; BLOCK])).collect();
    // One block allocated last stays live, so the freed ones are a hole below it.
    let pin = black_box(vec![2u8; BLOCK]);
    blocks.truncate(0);
    let Some(before) = resident_pages() else {
        return;
    };
    offshoot_bench::machine::release_free_memory();
    let after = resident_pages().expect("/proc/self/statm was readable a moment ago");
    let given_back = before.saturating_sub(after) * page;
    assert!(
        given_back >= 96 << 20,
        "release_free_memory gave back {given_back} bytes of a 128 MiB hole \
         (resident pages {before} -> {after})"
    );
    assert_eq!(pin[BLOCK - 1], 2);
}
