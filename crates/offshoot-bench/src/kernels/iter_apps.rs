//! Whole `par_iter` programs of the kinds rayon users port (word counts, flattening, early exit), each as
//! a plain serial program (the baseline), an offshoot pipeline and the same rayon pipeline,
//! character for character apart from the import:
//!
//! - `word-freq`: a word-frequency count, `text.par_lines().fold(HashMap::new, count the
//!   line's words).reduce(HashMap::new, merge)`, keys borrowed from the text;
//! - `flat-map`: a reduction over nested vectors,
//!   `vv.par_iter().flat_map(|v| v.par_iter()).map(|&x| x as u64).sum::<u64>()`;
//! - `flat-map-collect`: flatten nested vectors in order,
//!   `vv.par_iter().flat_map(|v| v.par_iter().copied()).collect::<Vec<u32>>()` (its time is
//!   mostly memory: the 40 MB result grows by doubling, and whether those pages are
//!   already mapped depends on what ran before, so read its ratios with that in mind);
//! - `find-first`: a batch of `find_first` queries over a large slice whose hits lie near
//!   the front, so a version that does not stop early visits far more items than the
//!   serial `Iterator::find`. The input line reports the items visited per query on the
//!   global pools, measured once when the kernel is prepared (a counting predicate; the
//!   timed runs use the plain one).
//!
//! Inputs (seeded): word-freq, lines of 1–16 words drawn with a skewed distribution from a
//! vocabulary of 20,000 words, 2·10^4 words (test), 10^6 (quick), 10^7 (full); flat-map,
//! 10^3 / 10^5 / 10^6 inner vectors of 0–100 `u32`s; find-first, 10^4 / 4·10^6 / 10^7
//! items and 8 / 64 / 256 queries, each hit in the first 1% of the slice.
//!
//! Answers (computed inside each version, at a cost that is small next to the work: one
//! pass over the distinct words, or over the flattened vector) are checked against oracles
//! written differently: word-freq counts `split_whitespace` of the whole text into a
//! `BTreeMap` (no lines, no `HashMap`), flat-map sums with `Iterator::flatten`, find-first
//! scans with `position` from the known planted index.

// Every version has the signature `fn(&D) -> T` of its kernel's input type `D`.
#![allow(clippy::ptr_arg)]

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::iter::{declare, state, IterKernel};
use super::{About, KernelInfo, Size};
use crate::rng::SplitMix64;

/// What `word-freq` is.
pub const ABOUT_WORD_FREQ: About = About {
    name: "word-freq",
    about: "word-frequency count: par_lines, fold into HashMaps, reduce by merging",
    cutoff: "none",
    source: "rayon programs as users write them",
};

/// What `flat-map` is.
pub const ABOUT_FLAT_MAP: About = About {
    name: "flat-map",
    about: "sum over nested Vec<u32>s: flat_map(par_iter), map, sum",
    cutoff: "none",
    source: "rayon programs as users write them",
};

/// What `flat-map-collect` is.
pub const ABOUT_FLAT_MAP_COLLECT: About = About {
    name: "flat-map-collect",
    about: "flatten nested Vec<u32>s in order: flat_map(par_iter), collect",
    cutoff: "none",
    source: "rayon programs as users write them",
};

/// What `find-first` is.
pub const ABOUT_FIND_FIRST: About = About {
    name: "find-first",
    about: "find_first queries whose hits lie in the first 1% of a large slice",
    cutoff: "none",
    source:
        "rayon programs as users write them; early exit: find_first must stop the other workers",
};

// ---- word-freq ----

/// FNV-1a of a word: the answer's checksum is a sum over words, so any order of merging
/// gives the same answer.
fn word_hash(w: &str) -> u64 {
    w.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The answer of `word-freq`: distinct words, total words, and a checksum of every
/// (word, count) pair.
type FreqDigest = (usize, u64, u64);

fn freq_digest<'a>(counts: impl Iterator<Item = (&'a str, u64)>) -> FreqDigest {
    let (mut distinct, mut total, mut sum) = (0usize, 0u64, 0u64);
    for (w, c) in counts {
        distinct += 1;
        total += c;
        sum = sum.wrapping_add(word_hash(w).wrapping_mul(c | 1 << 32));
    }
    (distinct, total, sum)
}

/// Adds the words of `line` to `counts` (the fold step of both pipelines, and the loop
/// body of the plain program).
fn count_words<'a>(mut counts: HashMap<&'a str, u64>, line: &'a str) -> HashMap<&'a str, u64> {
    for w in line.split_whitespace() {
        *counts.entry(w).or_insert(0) += 1;
    }
    counts
}

/// Merges two pieces' counts, moving the smaller map into the larger (the reduce step).
fn merge_counts<'a>(a: HashMap<&'a str, u64>, b: HashMap<&'a str, u64>) -> HashMap<&'a str, u64> {
    let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    for (w, c) in small {
        *big.entry(w).or_insert(0) += c;
    }
    big
}

/// The plain program.
pub fn word_freq_serial(text: &String) -> FreqDigest {
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for line in text.lines() {
        counts = count_words(counts, line);
    }
    freq_digest(counts.into_iter())
}

/// offshoot's pipeline.
pub fn word_freq_offshoot(text: &String) -> FreqDigest {
    use offshoot::prelude::*;
    let counts = text
        .par_lines()
        .fold(HashMap::new, count_words)
        .reduce(HashMap::new, merge_counts);
    freq_digest(counts.into_iter())
}

/// rayon's pipeline.
pub fn word_freq_rayon(text: &String) -> FreqDigest {
    use rayon::prelude::*;
    let counts = text
        .par_lines()
        .fold(HashMap::new, count_words)
        .reduce(HashMap::new, merge_counts);
    freq_digest(counts.into_iter())
}

fn word_freq_oracle(text: &String) -> FreqDigest {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for w in text.split_whitespace() {
        *counts.entry(w).or_default() += 1;
    }
    freq_digest(counts.into_iter())
}

/// The `i`-th word of the vocabulary: `w` and `i` in base 26 (distinct for distinct `i`).
fn vocabulary_word(mut i: u64, out: &mut String) {
    out.push('w');
    loop {
        out.push((b'a' + (i % 26) as u8) as char);
        i /= 26;
        if i == 0 {
            break;
        }
    }
}

fn make_text(words: usize, seed: u64) -> String {
    const VOCABULARY: u64 = 20_000;
    let mut rng = SplitMix64::new(seed);
    let mut text = String::with_capacity(words * 7);
    let mut left_in_line = 0;
    for _ in 0..words {
        if left_in_line == 0 {
            if !text.is_empty() {
                text.push('\n');
            }
            left_in_line = 1 + rng.next_u64() % 16;
        } else {
            text.push(' ');
        }
        left_in_line -= 1;
        // u^3 for u uniform in [0, 1): frequent words are frequent, as in prose.
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        vocabulary_word((u * u * u * VOCABULARY as f64) as u64, &mut text);
    }
    text
}

fn prepare_word_freq(size: Size) -> IterKernel<String, FreqDigest> {
    let words = match size {
        Size::Test => 20_000,
        Size::Quick => 500_000,
        Size::Full => 10_000_000,
    };
    let text = make_text(words, 21);
    let label = format!("{words} words, {} lines", text.lines().count());
    state(text, label, word_freq_oracle)
}

// ---- flat-map ----

/// The answer of `flat-map`: the length and a position-weighted checksum (so that any
/// reordering changes it).
fn flat_digest(v: &[u32]) -> (usize, u64) {
    let mut h = 0u64;
    for (i, &x) in v.iter().enumerate() {
        h = h.wrapping_add((x as u64).wrapping_mul(i as u64 | 1));
    }
    (v.len(), h)
}

/// The plain program.
pub fn flat_map_serial(vv: &Vec<Vec<u32>>) -> (usize, u64) {
    let mut out = Vec::new();
    for v in vv {
        for &x in v {
            out.push(x);
        }
    }
    flat_digest(&out)
}

/// offshoot's pipeline.
pub fn flat_map_offshoot(vv: &Vec<Vec<u32>>) -> (usize, u64) {
    use offshoot::prelude::*;
    let out: Vec<u32> = vv.par_iter().flat_map(|v| v.par_iter().copied()).collect();
    flat_digest(&out)
}

/// rayon's pipeline.
pub fn flat_map_rayon(vv: &Vec<Vec<u32>>) -> (usize, u64) {
    use rayon::prelude::*;
    let out: Vec<u32> = vv.par_iter().flat_map(|v| v.par_iter().copied()).collect();
    flat_digest(&out)
}

fn flat_map_oracle(vv: &Vec<Vec<u32>>) -> (usize, u64) {
    let mut h = 0u64;
    let mut n = 0usize;
    for x in vv.iter().flatten() {
        h = h.wrapping_add((*x as u64).wrapping_mul(n as u64 | 1));
        n += 1;
    }
    (n, h)
}

/// The plain program.
pub fn flat_sum_serial(vv: &Vec<Vec<u32>>) -> u64 {
    let mut s = 0u64;
    for v in vv {
        for &x in v {
            s += x as u64;
        }
    }
    s
}

/// offshoot's pipeline.
pub fn flat_sum_offshoot(vv: &Vec<Vec<u32>>) -> u64 {
    use offshoot::prelude::*;
    vv.par_iter()
        .flat_map(|v| v.par_iter())
        .map(|&x| x as u64)
        .sum::<u64>()
}

/// rayon's pipeline.
pub fn flat_sum_rayon(vv: &Vec<Vec<u32>>) -> u64 {
    use rayon::prelude::*;
    vv.par_iter()
        .flat_map(|v| v.par_iter())
        .map(|&x| x as u64)
        .sum::<u64>()
}

fn flat_sum_oracle(vv: &Vec<Vec<u32>>) -> u64 {
    vv.iter().rev().flatten().map(|&x| x as u64).sum()
}

fn nested(size: Size) -> (Vec<Vec<u32>>, String) {
    let outer = match size {
        Size::Test => 1_000,
        Size::Quick => 50_000,
        Size::Full => 1_000_000,
    };
    let mut rng = SplitMix64::new(22);
    let vv: Vec<Vec<u32>> = (0..outer)
        .map(|_| {
            let len = rng.next_u64() % 101;
            (0..len).map(|_| rng.next_u64() as u32).collect()
        })
        .collect();
    let items: usize = vv.iter().map(Vec::len).sum();
    (vv, format!("{outer} vectors, {items} items"))
}

fn prepare_flat_map_sum(size: Size) -> IterKernel<Vec<Vec<u32>>, u64> {
    let (vv, label) = nested(size);
    state(vv, label, flat_sum_oracle)
}

fn prepare_flat_map(size: Size) -> IterKernel<Vec<Vec<u32>>, (usize, u64)> {
    let (vv, label) = nested(size);
    state(vv, label, flat_map_oracle)
}

// ---- find-first ----

/// The slice and the queries: `keys[planted[q]] == targets[q]`, and no earlier item has
/// that key.
pub struct Haystack {
    keys: Vec<u64>,
    targets: Vec<u64>,
    planted: Vec<usize>,
}

/// The answer of `find-first`: how many queries hit, and the sum of their indices.
type FoundDigest = (usize, usize);

/// The plain program.
pub fn find_first_serial(h: &Haystack) -> FoundDigest {
    let mut found = (0, 0);
    for &t in &h.targets {
        if let Some(i) = h.keys.iter().position(|&k| k == t) {
            found = (found.0 + 1, found.1 + i);
        }
    }
    found
}

/// offshoot's pipeline.
pub fn find_first_offshoot(h: &Haystack) -> FoundDigest {
    use offshoot::prelude::*;
    let mut found = (0, 0);
    for &t in &h.targets {
        if let Some(i) = h.keys.par_iter().position_first(|&k| k == t) {
            found = (found.0 + 1, found.1 + i);
        }
    }
    found
}

/// rayon's pipeline.
pub fn find_first_rayon(h: &Haystack) -> FoundDigest {
    use rayon::prelude::*;
    let mut found = (0, 0);
    for &t in &h.targets {
        if let Some(i) = h.keys.par_iter().position_first(|&k| k == t) {
            found = (found.0 + 1, found.1 + i);
        }
    }
    found
}

fn find_first_oracle(h: &Haystack) -> FoundDigest {
    (h.planted.len(), h.planted.iter().sum())
}

/// Items visited per query (mean), with a counting predicate: `serial`, offshoot's and
/// rayon's `position_first` on their global pools.
fn visited(h: &Haystack) -> [usize; 3] {
    let count = |run: &dyn Fn(&AtomicUsize, u64)| {
        let n = AtomicUsize::new(0);
        for &t in &h.targets {
            run(&n, t);
        }
        n.into_inner() / h.targets.len().max(1)
    };
    let hit = |n: &AtomicUsize, k: u64, t: u64| {
        n.fetch_add(1, Ordering::Relaxed);
        k == t
    };
    [
        count(&|n, t| {
            h.keys.iter().position(|&k| hit(n, k, t));
        }),
        count(&|n, t| {
            use offshoot::prelude::*;
            h.keys.par_iter().position_first(|&k| hit(n, k, t));
        }),
        count(&|n, t| {
            use rayon::prelude::*;
            h.keys.par_iter().position_first(|&k| hit(n, k, t));
        }),
    ]
}

fn prepare_find_first(size: Size) -> IterKernel<Haystack, FoundDigest> {
    let (n, queries) = match size {
        Size::Test => (10_000, 8),
        Size::Quick => (4_000_000, 64),
        Size::Full => (10_000_000, 256),
    };
    let mut rng = SplitMix64::new(23);
    // Keys are even; a target is odd, planted once in the first 1% (a later plant never
    // lands before an earlier one's index with the same target: targets are distinct).
    let mut keys: Vec<u64> = (0..n).map(|_| rng.next_u64() << 1).collect();
    let mut targets = Vec::with_capacity(queries);
    let mut planted = Vec::with_capacity(queries);
    for q in 0..queries {
        let at = (rng.next_u64() % (n as u64 / 100).max(1)) as usize;
        if planted.contains(&at) {
            continue;
        }
        let t = (q as u64) << 1 | 1;
        keys[at] = t;
        targets.push(t);
        planted.push(at);
    }
    let h = Haystack {
        keys,
        targets,
        planted,
    };
    let [serial, offshoot, rayon] = visited(&h);
    let label = format!(
        "{n} items, {} queries; items visited per query: serial {serial}, \
         offshoot {offshoot}, rayon {rayon} (global pools)",
        h.targets.len()
    );
    state(h, label, find_first_oracle)
}

/// The registry entry of `word-freq`.
pub fn info_word_freq() -> KernelInfo {
    declare(
        ABOUT_WORD_FREQ,
        prepare_word_freq,
        [word_freq_serial, word_freq_offshoot, word_freq_rayon],
    )
}

/// The registry entry of `flat-map`.
pub fn info_flat_map() -> KernelInfo {
    declare(
        ABOUT_FLAT_MAP,
        prepare_flat_map_sum,
        [flat_sum_serial, flat_sum_offshoot, flat_sum_rayon],
    )
}

/// The registry entry of `flat-map-collect`.
pub fn info_flat_map_collect() -> KernelInfo {
    declare(
        ABOUT_FLAT_MAP_COLLECT,
        prepare_flat_map,
        [flat_map_serial, flat_map_offshoot, flat_map_rayon],
    )
}

/// The registry entry of `find-first`.
pub fn info_find_first() -> KernelInfo {
    declare(
        ABOUT_FIND_FIRST,
        prepare_find_first,
        [find_first_serial, find_first_offshoot, find_first_rayon],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracles_agree_with_serial_on_small_inputs() {
        for words in [0, 1, 2, 17, 300] {
            let text = make_text(words, 5);
            assert_eq!(word_freq_serial(&text), word_freq_oracle(&text), "{text:?}");
            assert_eq!(word_freq_serial(&text).1, words as u64);
        }
        let vv = vec![vec![], vec![1, 2], vec![], vec![3]];
        assert_eq!(flat_map_serial(&vv), flat_map_oracle(&vv));
        // Items 1, 2, 3 at positions 0, 1, 2 weigh 1, 1, 3.
        assert_eq!(flat_map_serial(&vv), (3, 1 + 2 + 3 * 3));
    }

    #[test]
    fn contenders_agree_with_serial() {
        for info in [
            info_word_freq(),
            info_flat_map(),
            info_flat_map_collect(),
            info_find_first(),
        ] {
            super::super::verify(&info);
        }
    }
}
