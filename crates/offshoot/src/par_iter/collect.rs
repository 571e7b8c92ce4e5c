//! Collecting: [`FromParallelIterator`] (what `collect` builds) and [`ParallelExtend`]
//! (what `par_extend`, `unzip` and `partition` fill), for the standard collections,
//! `String`, `Result<C, E>`, `Option<C>`, `()`, and pairs of them (from pairs, or from
//! `Either`s, as rayon's); and `collect_into_vec`, which writes an
//! indexed iterator's items straight into place.
//!
//! Invariants: every target keeps the items' order (pieces' `Vec`s are appended in index
//! order); `collect_into_vec` writes each slot once and sets the length only after all
//! `len` slots were written; until then the written slots are owned by the pieces'
//! [`Written`] ranges, so a panic drops them (none is leaked, none dropped twice).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use super::consumer::{drive, Consumer};
use super::written::Written;
use super::{Either, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// Builds a collection from a parallel iterator, keeping the items' order.
///
/// ```
/// use offshoot::prelude::*;
/// use std::collections::BTreeSet;
/// let s: BTreeSet<i32> = (0..5).into_par_iter().map(|x| x % 3).collect();
/// assert_eq!(s.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
/// let text: String = vec!["ab", "c"].into_par_iter().collect();
/// assert_eq!(text, "abc");
/// ```
pub trait FromParallelIterator<T: Send>: Sized {
    /// Collects `par_iter`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = Vec::from_par_iter((0..3).into_par_iter().map(|x| x * 2));
    /// assert_eq!(v, [0, 2, 4]);
    /// ```
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self;
}

/// Extends a collection with a parallel iterator's items, in order.
///
/// ```
/// use offshoot::prelude::*;
/// let mut v = vec![0];
/// v.par_extend((1..4).into_par_iter());
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Extends `self` with the items of `par_iter`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = vec![0];
    /// v.par_extend((1..4).into_par_iter());
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I);
}

/// Gathers the items into one `Vec` per piece and appends them in order.
struct ToVec;

impl<T: Send> Consumer<T> for ToVec {
    type Acc = Vec<T>;
    #[inline]
    fn identity(&self) -> Vec<T> {
        Vec::new()
    }
    #[inline]
    fn consume(&self, mut acc: Vec<T>, it: impl Iterator<Item = T>, _: usize, _: usize) -> Vec<T> {
        acc.extend(it);
        acc
    }
    #[inline]
    fn combine(&self, a: Vec<T>, b: Vec<T>) -> Vec<T> {
        append(a, b)
    }
}

/// `a` followed by `b`, moving the shorter one.
fn append<T>(mut a: Vec<T>, mut b: Vec<T>) -> Vec<T> {
    if a.len() >= b.len() || b.capacity() - b.len() < a.len() {
        a.append(&mut b);
        a
    } else {
        b.splice(0..0, a);
        b
    }
}

/// The items of `iter`, in order.
#[inline]
pub(super) fn collect_vec<I: ParallelIterator>(iter: I) -> Vec<I::Item> {
    drive(iter, &ToVec)
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let iter = par_iter.into_par_iter();
        if iter.opt_len().is_some() {
            // One item per index: each block writes its items straight into place.
            let mut v = Vec::new();
            collect_exact(iter, &mut v);
            v
        } else {
            collect_vec(iter)
        }
    }
}

/// Collections built from the ordered `Vec` of the items.
macro_rules! via_vec {
    ($([$($g:tt)*] $ty:ty, $item:ty;)*) => {$(
        impl<$($g)*> FromParallelIterator<$item> for $ty {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                collect_vec(par_iter.into_par_iter()).into_iter().collect()
            }
        }
        impl<$($g)*> ParallelExtend<$item> for $ty {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                self.extend(collect_vec(par_iter.into_par_iter()))
            }
        }
    )*};
}

via_vec! {
    [T: Send] VecDeque<T>, T;
    [T: Send] LinkedList<T>, T;
    [T: Send + Ord] BinaryHeap<T>, T;
    [T: Send + Ord] BTreeSet<T>, T;
    [K: Send + Ord, V: Send] BTreeMap<K, V>, (K, V);
    [T: Send + Eq + Hash, S: BuildHasher + Default + Send] HashSet<T, S>, T;
    [K: Send + Eq + Hash, V: Send, S: BuildHasher + Default + Send] HashMap<K, V, S>, (K, V);
    [] String, char;
    ['a] String, &'a char;
    ['a] String, &'a str;
    [] String, String;
    [] String, Box<str>;
    ['a] String, Cow<'a, str>;
}

impl<'a, T: Send + Sync + Copy + 'a> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.extend(collect_vec(par_iter.into_par_iter()))
    }
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let mut v = collect_vec(par_iter.into_par_iter());
        self.append(&mut v);
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter.into_par_iter()).into_boxed_slice()
    }
}

/// A `Cow` collects its owned form (rayon's impl): `Cow<[T]>` a `Vec<T>`, `Cow<str>` a
/// `String`.
///
/// ```
/// use offshoot::prelude::*;
/// use std::borrow::Cow;
/// let c: Cow<'_, [u32]> = (0..3u32).into_par_iter().collect();
/// assert_eq!(&*c, &[0, 1, 2]);
/// ```
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter.into_par_iter().for_each(|()| ())
    }
}

impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, par_iter: I) {
        par_iter.into_par_iter().for_each(|()| ())
    }
}

/// Collects the `Ok` items into `C`, or returns an error: the other workers stop soon
/// after the first error is seen.
///
/// ```
/// use offshoot::prelude::*;
/// let r: Result<Vec<i32>, String> = (0..10).into_par_iter()
///     .map(|x| if x == 7 { Err(format!("bad {x}")) } else { Ok(x) })
///     .collect();
/// assert_eq!(r, Err("bad 7".to_string()));
/// ```
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        let err: Mutex<Option<E>> = Mutex::new(None);
        let c = C::from_par_iter(
            par_iter
                .into_par_iter()
                .map(|r| match r {
                    Ok(t) => Some(t),
                    Err(e) => {
                        let mut slot = err.lock().unwrap_or_else(|p| p.into_inner());
                        slot.get_or_insert(e);
                        None
                    }
                })
                .while_some(),
        );
        match err.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }
}

/// Collects the `Some` items into `C`, or returns `None` if any item is `None`.
///
/// ```
/// use offshoot::prelude::*;
/// let all: Option<Vec<i32>> = (0..4).into_par_iter().map(Some).collect();
/// assert_eq!(all, Some(vec![0, 1, 2, 3]));
/// let gap: Option<Vec<i32>> = (0..4).into_par_iter().map(|x| (x != 2).then_some(x)).collect();
/// assert_eq!(gap, None);
/// ```
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let missing = std::sync::atomic::AtomicBool::new(false);
        let c = C::from_par_iter(
            par_iter
                .into_par_iter()
                .map(|x| {
                    if x.is_none() {
                        missing.store(true, Ordering::Relaxed);
                    }
                    x
                })
                .while_some(),
        );
        (!missing.into_inner()).then_some(c)
    }
}

/// Writes each item into its slot of a buffer of `len` items; each piece's accumulator is
/// the range of slots it wrote ([`Written`]), which drops its items if a panic unwinds
/// through it.
struct IntoSlots<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: each slot is written by the one block that holds its index (iterators with a
// known length yield exactly the items of their block's indices, and every write is
// bounds-checked); `T: Send` lets items move there.
unsafe impl<T: Send> Sync for IntoSlots<T> {}

impl<T: Send> Consumer<T> for IntoSlots<T> {
    type Acc = Written<T>;
    #[inline]
    fn identity(&self) -> Written<T> {
        Written::empty(self.ptr)
    }
    #[inline]
    fn consume(
        &self,
        mut acc: Written<T>,
        it: impl Iterator<Item = T>,
        lo: usize,
        hi: usize,
    ) -> Written<T> {
        assert!(lo <= hi && hi <= self.len, "offshoot: block out of range");
        // A piece's blocks are adjacent: this one starts where the last one's items ended
        // (or the iterator yielded fewer items than its length: a panic).
        acc.continue_at(self.ptr.wrapping_add(lo));
        // SAFETY: `acc` now ends at `lo`, and slots `lo..hi` are within the reserved
        // capacity, belong to this block alone (blocks are disjoint) and are not written
        // yet.
        unsafe { acc.extend(it, hi - lo) };
        acc
    }
    #[inline]
    fn combine(&self, a: Written<T>, b: Written<T>) -> Written<T> {
        a.join(b)
    }
}

pub(super) fn collect_into_vec<I: IndexedParallelIterator>(iter: I, target: &mut Vec<I::Item>) {
    collect_exact(iter, target)
}

/// Collects an iterator whose [`ParallelIterator::opt_len`] is known (one item per index,
/// so block `lo..hi` yields the items `lo..hi`) into `target`, each block writing its items
/// into their final slots.
///
/// # Panics
///
/// If the iterator yields a different number of items than its length (an incorrect
/// `opt_len`), or with the panic of the pipeline; either way the items written are dropped
/// and `target` is left empty.
fn collect_exact<I: ParallelIterator>(iter: I, target: &mut Vec<I::Item>) {
    target.clear();
    let len = iter.base_len();
    debug_assert_eq!(iter.opt_len(), Some(len));
    target.reserve(len);
    let slots = IntoSlots {
        ptr: target.as_mut_ptr(),
        len,
    };
    let written = drive(iter, &slots);
    // Blocks are joined only when adjacent, so a range of `len` items is slots `0..len`.
    assert_eq!(
        written.len(),
        len,
        "offshoot: an indexed iterator yielded the wrong number of items"
    );
    let n = written.release();
    // SAFETY: slots `0..len` are initialised (above), within the capacity, and were just
    // released to `target`.
    unsafe { target.set_len(n) };
}

/// Two `Vec`s filled side by side.
struct Pairs<P>(P);

impl<T, A: Send, B: Send, P: Fn(T) -> Result<A, B> + Sync> Consumer<T> for Pairs<P> {
    type Acc = (Vec<A>, Vec<B>);
    #[inline]
    fn identity(&self) -> (Vec<A>, Vec<B>) {
        (Vec::new(), Vec::new())
    }
    #[inline]
    fn consume(
        &self,
        acc: Self::Acc,
        it: impl Iterator<Item = T>,
        _: usize,
        _: usize,
    ) -> Self::Acc {
        let (mut a, mut b) = acc;
        for x in it {
            match (self.0)(x) {
                Ok(x) => a.push(x),
                Err(y) => b.push(y),
            }
        }
        (a, b)
    }
    #[inline]
    fn combine(&self, l: Self::Acc, r: Self::Acc) -> Self::Acc {
        (append(l.0, r.0), append(l.1, r.1))
    }
}

pub(super) fn partition<I, A, B, P>(iter: I, p: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    let (yes, no) = drive(iter, &Pairs(|x| if p(&x) { Ok(x) } else { Err(x) }));
    let (mut a, mut b) = (A::default(), B::default());
    a.par_extend(yes);
    b.par_extend(no);
    (a, b)
}

/// The two halves of pairs, in two `Vec`s.
struct Unzip;

impl<A: Send, B: Send> Consumer<(A, B)> for Unzip {
    type Acc = (Vec<A>, Vec<B>);
    #[inline]
    fn identity(&self) -> (Vec<A>, Vec<B>) {
        (Vec::new(), Vec::new())
    }
    #[inline]
    fn consume(
        &self,
        acc: Self::Acc,
        it: impl Iterator<Item = (A, B)>,
        _: usize,
        _: usize,
    ) -> Self::Acc {
        let (mut a, mut b) = acc;
        for (x, y) in it {
            a.push(x);
            b.push(y);
        }
        (a, b)
    }
    #[inline]
    fn combine(&self, l: Self::Acc, r: Self::Acc) -> Self::Acc {
        (append(l.0, r.0), append(l.1, r.1))
    }
}

pub(super) fn unzip<I, A, B, FromA, FromB>(iter: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    let (left, right) = drive(iter, &Unzip);
    let (mut a, mut b) = (FromA::default(), FromB::default());
    a.par_extend(left);
    b.par_extend(right);
    (a, b)
}

pub(super) fn partition_map<I, A, B, P, L, R>(iter: I, op: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
    P: Fn(I::Item) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    let (left, right) = sides(iter.map(op));
    let (mut a, mut b) = (A::default(), B::default());
    a.par_extend(left);
    b.par_extend(right);
    (a, b)
}

/// One `Vec` per piece, in a list in index order.
struct ToList;

impl<T: Send> Consumer<T> for ToList {
    type Acc = LinkedList<Vec<T>>;
    #[inline]
    fn identity(&self) -> LinkedList<Vec<T>> {
        LinkedList::new()
    }
    #[inline]
    fn consume(
        &self,
        mut acc: LinkedList<Vec<T>>,
        it: impl Iterator<Item = T>,
        _: usize,
        _: usize,
    ) -> LinkedList<Vec<T>> {
        match acc.back_mut() {
            Some(v) => v.extend(it),
            None => acc.push_back(it.collect()),
        }
        acc
    }
    #[inline]
    fn combine(&self, mut a: LinkedList<Vec<T>>, mut b: LinkedList<Vec<T>>) -> Self::Acc {
        a.append(&mut b);
        a
    }
}

pub(super) fn collect_vec_list<I: ParallelIterator>(iter: I) -> LinkedList<Vec<I::Item>> {
    drive(iter, &ToList)
}

/// Collects pairs into two collections, in order, each side as it collects alone
/// (rayon's bounds: `FromParallelIterator` for each side, so `Box<[T]>`, `Result<C, E>`
/// and nested pairs work too).
///
/// ```
/// use offshoot::prelude::*;
/// let (a, b): (Vec<i32>, String) = (0..3).into_par_iter().map(|x| (x, 'z')).collect();
/// assert_eq!((a, b), (vec![0, 1, 2], "zzz".to_string()));
/// let (c, d): (Box<[i32]>, Vec<i32>) = (0..3).into_par_iter().map(|x| (x, -x)).collect();
/// assert_eq!((&*c, d), (&[0, 1, 2][..], vec![0, -1, -2]));
/// ```
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + FromParallelIterator<A>,
    FromB: Send + FromParallelIterator<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        let (left, right) = drive(par_iter.into_par_iter(), &Unzip);
        (FromA::from_par_iter(left), FromB::from_par_iter(right))
    }
}

/// Extends two collections with the sides of pairs, in order.
///
/// ```
/// use offshoot::prelude::*;
/// let mut pair = (vec![9], String::new());
/// pair.par_extend((0..3).into_par_iter().map(|x| (x, 'z')));
/// assert_eq!(pair, (vec![9, 0, 1, 2], "zzz".to_string()));
/// ```
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        let (left, right) = drive(par_iter.into_par_iter(), &Unzip);
        self.0.par_extend(left);
        self.1.par_extend(right);
    }
}

/// The left and right items of `Either`s, in order (a [`Pairs`] that only routes).
fn sides<I, L, R>(iter: I) -> (Vec<L>, Vec<R>)
where
    I: ParallelIterator<Item = Either<L, R>>,
    L: Send,
    R: Send,
{
    drive(
        iter,
        &Pairs(|x| match x {
            Either::Left(l) => Ok(l),
            Either::Right(r) => Err(r),
        }),
    )
}

/// Collects `Either`s into two collections, the left items into the first and the right
/// into the second, in order (as [`ParallelIterator::partition_map`], with rayon's bounds).
///
/// ```
/// use offshoot::prelude::*;
/// use offshoot::iter::Either;
/// let (even, odd): (Vec<i32>, Vec<i32>) = (0..6)
///     .into_par_iter()
///     .map(|x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x) })
///     .collect();
/// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
/// ```
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + FromParallelIterator<L>,
    B: Send + FromParallelIterator<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Either<L, R>>>(par_iter: I) -> Self {
        let (left, right) = sides(par_iter.into_par_iter());
        (A::from_par_iter(left), B::from_par_iter(right))
    }
}

/// Extends two collections with `Either`s: the left items the first, the right the second.
///
/// ```
/// use offshoot::prelude::*;
/// use offshoot::iter::Either;
/// let mut pair = (vec![-1], vec![]);
/// pair.par_extend((0..4).into_par_iter().map(|x| if x < 2 { Either::Left(x) } else { Either::Right(x) }));
/// assert_eq!(pair, (vec![-1, 0, 1], vec![2, 3]));
/// ```
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I: IntoParallelIterator<Item = Either<L, R>>>(&mut self, par_iter: I) {
        let (left, right) = sides(par_iter.into_par_iter());
        self.0.par_extend(left);
        self.1.par_extend(right);
    }
}
