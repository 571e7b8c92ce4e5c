//! A panic in a pipeline drops every item the pipeline already produced, once: none is
//! leaked, none dropped twice (rayon's `collect_drop_on_unwind`). Each test records the
//! items made and the items dropped, panics part way (or not), and compares the two, on
//! 1–4 workers and many rounds (where the panic strikes relative to the pieces varies).

mod common;

use std::collections::LinkedList;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use common::{boom, bounded, install_panic_hook, pool, POOL_SIZES};
use offshoot::prelude::*;

/// An item that records its drop.
struct Recorded<'a>(i64, &'a Mutex<Vec<i64>>);

impl Drop for Recorded<'_> {
    fn drop(&mut self) {
        self.1.lock().unwrap().push(self.0);
    }
}

/// What a test's body gets: makes the recorded item `x` (and panics past `PANIC_AT` in a
/// run that panics).
type Make<'a> = dyn Fn(i64) -> Recorded<'a> + Sync + 'a;

const LEN: i64 = 1024;
const PANIC_AT: i64 = 740;
const ROUNDS: usize = 25;

/// The items made and dropped by one run of `body`, which gets the recorders.
fn made_and_dropped(
    panics: bool,
    body: impl for<'a> FnOnce(&Make<'a>, bool),
) -> (Vec<i64>, Vec<i64>) {
    let made = Mutex::new(Vec::new());
    let dropped = Mutex::new(Vec::new());
    {
        let make = |x: i64| {
            if panics && x > PANIC_AT {
                boom("a pipeline's map");
            }
            made.lock().unwrap().push(x);
            Recorded(x, &dropped)
        };
        let r = catch_unwind(AssertUnwindSafe(|| body(&make, panics)));
        assert_eq!(
            r.is_err(),
            panics,
            "the panic should surface exactly when raised"
        );
    }
    let (mut m, mut d) = (made.into_inner().unwrap(), dropped.into_inner().unwrap());
    m.sort_unstable();
    d.sort_unstable();
    (m, d)
}

/// Every pool size, every round, with and without the panic; without it, `body` makes
/// `items` items.
fn for_each_run(items: usize, body: for<'a> fn(&Make<'a>, bool)) {
    install_panic_hook();
    bounded(move || {
        for workers in POOL_SIZES {
            let p = pool(workers);
            for round in 0..ROUNDS {
                for panics in [true, false] {
                    let (made, dropped) = p.run(|| made_and_dropped(panics, body));
                    assert_eq!(
                        made.len(),
                        dropped.len(),
                        "{workers} workers, round {round}, panics {panics}: {} items made, {} dropped",
                        made.len(),
                        dropped.len()
                    );
                    assert_eq!(made, dropped, "the items dropped are not the items made");
                    if !panics {
                        assert_eq!(made.len(), items);
                    }
                }
            }
        }
    });
}

#[test]
fn collect_into_vec_drops_what_it_wrote_when_the_pipeline_panics() {
    for_each_run(LEN as usize, |make, panics| {
        let mut out = Vec::new();
        (0..LEN)
            .into_par_iter()
            .map(make)
            .collect_into_vec(&mut out);
        assert!(!panics);
        assert_eq!(out.len(), LEN as usize);
    });
}

#[test]
fn collect_into_a_vec_drops_what_it_wrote_when_the_pipeline_panics() {
    for_each_run(LEN as usize, |make, _| {
        let v: Vec<_> = (0..LEN).into_par_iter().map(make).collect();
        assert_eq!(v.len(), LEN as usize);
    });
}

#[test]
fn a_zipped_collect_drops_what_it_wrote_when_the_pipeline_panics() {
    // rayon's own test: `par_iter_mut().zip(..)` collected into a vector.
    for_each_run(LEN as usize, |make, _| {
        let mut a: Vec<i64> = (0..LEN).collect();
        let b: Vec<i64> = (0..LEN).collect();
        let mut out = Vec::new();
        a.par_iter_mut()
            .zip(&b)
            .map(|(x, _)| make(*x))
            .collect_into_vec(&mut out);
        assert_eq!(out.len(), LEN as usize);
    });
}

#[test]
fn other_collections_drop_what_they_hold_when_the_pipeline_panics() {
    for_each_run(LEN as usize, |make, _| {
        let l: LinkedList<_> = (0..LEN).into_par_iter().map(make).collect();
        assert_eq!(l.len(), LEN as usize);
    });
    for_each_run(LEN as usize, |make, _| {
        let (l, r): (Vec<_>, Vec<i32>) = (0..LEN).into_par_iter().map(|x| (make(x), 0)).unzip();
        assert_eq!(l.len() + r.len(), 2 * LEN as usize);
    });
    for_each_run(LEN as usize, |make, _| {
        let mut v = Vec::new();
        v.par_extend((0..LEN).into_par_iter().map(make));
        assert_eq!(v.len(), LEN as usize);
    });
}

/// A key that records its drop, ordered by its number.
struct Key<'a>(Recorded<'a>);

impl PartialEq for Key<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.0 .0 == o.0 .0
    }
}
impl Eq for Key<'_> {}
impl PartialOrd for Key<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key<'_> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0 .0.cmp(&o.0 .0)
    }
}

/// The sort's key number of element `x`: one element's is past `PANIC_AT`.
fn key_of(x: i64) -> i64 {
    if x == 3000 {
        PANIC_AT + 1
    } else {
        x % PANIC_AT
    }
}

#[test]
fn sort_by_cached_key_drops_the_keys_it_made_when_a_key_panics() {
    // Reversed, so that sorting moves every element; four leaves of keys long.
    for_each_run(4 * LEN as usize, |make, panics| {
        let mut v: Vec<i64> = (0..LEN * 4).rev().collect();
        let before = v.clone();
        let r = catch_unwind(AssertUnwindSafe(|| {
            // One element's key panics (the key past `PANIC_AT`); the others' keys, made
            // before or beside it in other leaves, must be dropped.
            v.par_sort_by_cached_key(|x| {
                Key(make(if *x == 3000 {
                    PANIC_AT + 1
                } else {
                    x % PANIC_AT
                }))
            });
        }));
        if panics {
            // The key function panicked: the slice is as it was.
            assert_eq!(v, before);
            std::panic::resume_unwind(r.unwrap_err());
        }
        assert!(r.is_ok());
        assert!(v.windows(2).all(|w| key_of(w[0]) <= key_of(w[1])));
    });
}

/// An owning source whose pipeline panics early: every element is dropped once — the ones
/// the pipeline took, the rest of the block that panicked, and the ones no block reached
/// (the unclaimed rest of each stopped piece, or a stolen piece stopped before it began).
#[test]
fn an_owning_source_drops_the_elements_no_block_reached() {
    install_panic_hook();
    bounded(|| {
        for workers in POOL_SIZES {
            let p = pool(workers);
            for round in 0..ROUNDS {
                for shape in 0..4 {
                    let dropped = Mutex::new(Vec::new());
                    let mut v: Vec<Recorded> =
                        (0..4 * LEN).map(|x| Recorded(x, &dropped)).collect();
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        p.run(|| {
                            let visit = |d: Recorded| {
                                if d.0 == 100 {
                                    boom("an owning source's pipeline");
                                }
                                drop(d)
                            };
                            match shape {
                                0 => v.into_par_iter().for_each(visit),
                                1 => v.into_par_iter().with_max_len(7).for_each(visit),
                                2 => v.par_drain(10..).for_each(visit),
                                _ => {
                                    let _: Vec<()> = v.into_par_iter().map(visit).collect();
                                }
                            }
                        })
                    }));
                    assert!(r.is_err(), "the pipeline's panic surfaces");
                    let mut d = dropped.into_inner().unwrap();
                    d.sort_unstable();
                    let all: Vec<i64> = (0..4 * LEN).collect();
                    assert_eq!(
                        d.len(),
                        all.len(),
                        "{workers} workers, round {round}, shape {shape}: {} of {} elements dropped",
                        d.len(),
                        all.len()
                    );
                    assert_eq!(d, all, "some element was dropped twice");
                }
            }
        }
    });
}
