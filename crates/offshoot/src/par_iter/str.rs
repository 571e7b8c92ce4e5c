//! String sources: [`ParallelString`]'s `par_chars`, `par_char_indices`, `par_bytes`,
//! `par_encode_utf16`, `par_lines`, `par_split_whitespace`, `par_split_ascii_whitespace`,
//! and the methods that take a [`Pattern`] (a `char`, a set of `char`s, or a `char`
//! predicate, as in rayon): `par_split`, `par_split_inclusive`, `par_split_terminator`,
//! `par_matches`, `par_match_indices`.
//!
//! A string splits by byte position, like a slice, but a piece (a char, a line, a word, a
//! field) must not be cut: each kind has a *cut* function `cut(x)`, the first position at
//! or after byte `x` where no piece is cut (a char boundary, the start of a line, ...).
//! Block `lo..hi` yields the pieces that start in `cut(lo)..cut(hi)`, found with the
//! sequential `str` iterator on that substring.
//!
//! Invariants: `cut(0) = 0`, `cut(base_len) = ` the end, and `cut` is monotone, so the
//! blocks of a loop cover the string exactly once and in order; every piece lies wholly
//! inside the one block it starts in.

use either::Either;

use super::{Copied, Iter, ParallelIterator};

/// Parallel iterators over the pieces of a string (rayon's `rayon::str::ParallelString`).
///
/// ```
/// use offshoot::prelude::*;
/// let text = "one two\nthree  four\n";
/// assert_eq!(text.par_lines().count(), 2);
/// assert_eq!(text.par_split_whitespace().map(str::len).sum::<usize>(), 15);
/// assert_eq!(text.par_chars().filter(|c| *c == 'o').count(), 3);
/// let fields: Vec<&str> = "a,b,,c".par_split(',').collect();
/// assert_eq!(fields, ["a", "b", "", "c"]);
/// let fields: Vec<&str> = "a;b,c".par_split(&[',', ';'][..]).collect();
/// assert_eq!(fields, ["a", "b", "c"]);
/// let digits: String = "a1b22c".par_matches(|c: char| c.is_ascii_digit()).collect();
/// assert_eq!(digits, "122");
/// ```
pub trait ParallelString {
    /// The string.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!(String::from("ab").as_parallel_string(), "ab");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// Its `char`s, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s: String = "héllo".par_chars().map(|c| c.to_ascii_uppercase()).collect();
    /// assert_eq!(s, "HéLLO");
    /// ```
    fn par_chars(&self) -> StrPieces<'_, Chars> {
        StrPieces::new(self.as_parallel_string(), Chars)
    }

    /// Its `char`s with their byte positions, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<(usize, char)> = "aé b".par_char_indices().filter(|(_, c)| *c != ' ').collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'é'), (4, 'b')]);
    /// ```
    fn par_char_indices(&self) -> StrPieces<'_, CharIndices> {
        StrPieces::new(self.as_parallel_string(), CharIndices)
    }

    /// Its bytes, in order (an indexed iterator).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 97 + 98 + 99);
    /// assert_eq!("abc".par_bytes().rev().collect::<Vec<u8>>(), b"cba");
    /// ```
    fn par_bytes(&self) -> Copied<Iter<'_, u8>> {
        Iter::new(self.as_parallel_string().as_bytes()).copied()
    }

    /// Its lines (as `str::lines`: `\n` or `\r\n` ends a line), in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<&str> = "one\r\ntwo\n\nthree\n".par_lines().collect();
    /// assert_eq!(v, ["one", "two", "", "three"]);
    /// ```
    fn par_lines(&self) -> StrPieces<'_, Lines> {
        StrPieces::new(self.as_parallel_string(), Lines)
    }

    /// Its words separated by Unicode whitespace (as `str::split_whitespace`), in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<&str> = " a\u{3000}b \t c ".par_split_whitespace().collect();
    /// assert_eq!(v, ["a", "b", "c"]);
    /// ```
    fn par_split_whitespace(&self) -> StrPieces<'_, Words> {
        StrPieces::new(self.as_parallel_string(), Words(char::is_whitespace))
    }

    /// Its words separated by ASCII whitespace (as `str::split_ascii_whitespace`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// // U+3000 is Unicode whitespace but not ASCII: it stays inside the word.
    /// let v: Vec<&str> = " a\u{3000}b \t c ".par_split_ascii_whitespace().collect();
    /// assert_eq!(v, ["a\u{3000}b", "c"]);
    /// ```
    fn par_split_ascii_whitespace(&self) -> StrPieces<'_, Words> {
        StrPieces::new(
            self.as_parallel_string(),
            Words(|c| c.is_ascii_whitespace()),
        )
    }

    /// Its UTF-16 code units, in order (as `str::encode_utf16`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s = "a\u{1F600}b";
    /// let units: Vec<u16> = s.par_encode_utf16().collect();
    /// assert_eq!(units, s.encode_utf16().collect::<Vec<_>>());
    /// assert_eq!(units.len(), 4); // the emoji is a surrogate pair
    /// ```
    fn par_encode_utf16(&self) -> StrPieces<'_, EncodeUtf16> {
        StrPieces::new(self.as_parallel_string(), EncodeUtf16)
    }

    /// Its fields separated by matches of `sep` (as `str::split`: empty fields included).
    /// `sep` is a [`Pattern`]: a `char`, a slice or array of `char`s, or a `char` predicate.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<&str> = "a,b,,c,".par_split(',').collect();
    /// assert_eq!(v, ["a", "b", "", "c", ""]);
    /// let v: Vec<&str> = "x1y22z".par_split(char::is_numeric).collect();
    /// assert_eq!(v, ["x", "y", "", "z"]);
    /// ```
    fn par_split<P: Pattern>(&self, sep: P) -> StrPieces<'_, Split<P>> {
        StrPieces::new(self.as_parallel_string(), Split(sep))
    }

    /// Its fields, each with the separator that ends it (as `str::split_inclusive`: no
    /// empty field at the end).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<&str> = "one\ntwo\n\nthree".par_split_inclusive('\n').collect();
    /// assert_eq!(v, ["one\n", "two\n", "\n", "three"]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, sep: P) -> StrPieces<'_, SplitInclusive<P>> {
        StrPieces::new(self.as_parallel_string(), SplitInclusive(sep))
    }

    /// Its fields ended by matches of `sep` (as `str::split_terminator`: like `par_split`,
    /// but an empty field at the end is left out).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<&str> = "a;b;;c;".par_split_terminator(';').collect();
    /// assert_eq!(v, ["a", "b", "", "c"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, sep: P) -> StrPieces<'_, SplitTerminator<P>> {
        StrPieces::new(self.as_parallel_string(), SplitTerminator(Split(sep)))
    }

    /// The matches of `pat`, in order (as `str::matches`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let vowels = "parallel strings".par_matches(&['a', 'e', 'i'][..]).count();
    /// assert_eq!(vowels, 4);
    /// ```
    fn par_matches<P: Pattern>(&self, pat: P) -> StrPieces<'_, Matches<P>> {
        StrPieces::new(self.as_parallel_string(), Matches(pat))
    }

    /// The matches of `pat` with their byte positions, in order (as `str::match_indices`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<(usize, &str)> = "a-b-c".par_match_indices('-').collect();
    /// assert_eq!(v, [(1, "-"), (3, "-")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pat: P) -> StrPieces<'_, MatchIndices<P>> {
        StrPieces::new(self.as_parallel_string(), MatchIndices(pat))
    }
}

mod sealed {
    pub trait Sealed {}
}

/// What the pattern methods of [`ParallelString`] take, as rayon's `rayon::str::Pattern`:
/// a `char`, a slice or array of `char`s (any of them matches), or a predicate
/// `Fn(char) -> bool`. Every pattern matches one `char` at a time. Sealed.
///
/// ```
/// use offshoot::prelude::*;
/// let s = "a b\tc";
/// assert_eq!(s.par_split(' ').count(), 2);
/// assert_eq!(s.par_split([' ', '\t']).count(), 3);
/// assert_eq!(s.par_split(&[' ', '\t']).count(), 3);
/// assert_eq!(s.par_split(char::is_whitespace).count(), 3);
/// ```
pub trait Pattern: sealed::Sealed + Sync + Send {
    /// Whether `c` matches.
    #[doc(hidden)]
    fn is_match(&self, c: char) -> bool;
}

impl sealed::Sealed for char {}
impl Pattern for char {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        *self == c
    }
}

impl sealed::Sealed for &[char] {}
impl Pattern for &[char] {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> sealed::Sealed for [char; N] {}
impl<const N: usize> Pattern for [char; N] {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> sealed::Sealed for &[char; N] {}
impl<const N: usize> Pattern for &[char; N] {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Sync + Send> sealed::Sealed for F {}
impl<F: Fn(char) -> bool + Sync + Send> Pattern for F {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self(c)
    }
}

/// The position just after the first match of `p` at or after the char boundary `from`,
/// with the match's length, or `None`.
fn after_match(s: &str, from: usize, p: &impl Pattern) -> Option<(usize, usize)> {
    s[from..]
        .char_indices()
        .find(|&(_, c)| p.is_match(c))
        .map(|(i, c)| (from + i + c.len_utf8(), c.len_utf8()))
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

impl ParallelString for String {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// A kind of piece of a string.
#[doc(hidden)]
pub trait PieceKind: Sync + Send {
    /// The pieces.
    type Piece<'a>: Send;
    /// The length of the position range the loop walks (the string's, or one more).
    fn positions(&self, s: &str) -> usize;
    /// The first position at or after `x` that cuts no piece.
    fn cut(&self, s: &str, x: usize) -> usize;
    /// The pieces that start in `a..b` (two cuts), in order.
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = Self::Piece<'a>>;
}

/// The next char boundary at or after `x`.
fn char_cut(s: &str, mut x: usize) -> usize {
    while !s.is_char_boundary(x) {
        x += 1;
    }
    x
}

/// The position just after the first `sep` byte at or after `from` (the string's end if
/// there is none).
fn after_byte(s: &str, from: usize, sep: u8) -> usize {
    s.as_bytes()[from..]
        .iter()
        .position(|&b| b == sep)
        .map_or(s.len(), |i| from + i + 1)
}

/// `par_chars`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Chars;

impl PieceKind for Chars {
    type Piece<'a> = char;
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        char_cut(s, x)
    }
    fn pieces(&self, s: &str, a: usize, b: usize) -> impl Iterator<Item = char> {
        s[a..b].chars()
    }
}

/// `par_char_indices`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct CharIndices;

impl PieceKind for CharIndices {
    type Piece<'a> = (usize, char);
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        char_cut(s, x)
    }
    fn pieces(&self, s: &str, a: usize, b: usize) -> impl Iterator<Item = (usize, char)> {
        s[a..b].char_indices().map(move |(i, c)| (a + i, c))
    }
}

/// `par_lines`: a line starts at 0 and after every `\n`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Lines;

impl PieceKind for Lines {
    type Piece<'a> = &'a str;
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        if x == 0 {
            0
        } else {
            after_byte(s, x - 1, b'\n')
        }
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        s[a..b].lines()
    }
}

/// `par_split_whitespace` and `par_split_ascii_whitespace`: a cut is never inside a word.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Words(fn(char) -> bool);

impl PieceKind for Words {
    type Piece<'a> = &'a str;
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        let mut x = char_cut(s, x);
        if x == 0 {
            return 0;
        }
        let before = |x: usize| s[..x].chars().next_back();
        // Inside a word (a non-space before and at `x`): move to its end.
        while before(x).is_some_and(|c| !(self.0)(c)) {
            match s[x..].chars().next() {
                Some(c) if !(self.0)(c) => x += c.len_utf8(),
                _ => break,
            }
        }
        x
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        let ws = self.0;
        s[a..b].split(ws).filter(|w| !w.is_empty())
    }
}

/// `par_split(sep)`: a field starts at 0 and after every match; position `len + 1` stands
/// for "past the end", so that the last field (maybe empty) belongs to the last block.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Split<P>(P);

impl<P: Pattern> Split<P> {
    /// The field text of the block `a..b` (two cuts) with its separators, without the one
    /// that ends it, or `None` for a block that holds no field.
    fn span<'a>(&self, s: &'a str, a: usize, b: usize) -> Option<&'a str> {
        if a >= b || a > s.len() {
            return None;
        }
        if b > s.len() {
            return Some(&s[a..]);
        }
        // `b` is just after a separator: the one char before it.
        let sep_len = s[..b].chars().next_back().map_or(0, char::len_utf8);
        Some(&s[a..(b - sep_len).max(a)])
    }
}

impl<P: Pattern> PieceKind for Split<P> {
    type Piece<'a> = &'a str;
    fn positions(&self, s: &str) -> usize {
        s.len() + 1
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        if x == 0 {
            return 0;
        }
        if x > s.len() {
            return s.len() + 1;
        }
        after_match(s, char_cut(s, x - 1), &self.0).map_or(s.len() + 1, |(end, _)| end)
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        let p = &self.0;
        self.span(s, a, b)
            .into_iter()
            .flat_map(move |f| f.split(move |c| p.is_match(c)))
    }
}

/// `par_split_terminator(sep)`: `par_split`'s fields without an empty one at the end.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct SplitTerminator<P>(Split<P>);

impl<P: Pattern> PieceKind for SplitTerminator<P> {
    type Piece<'a> = &'a str;
    fn positions(&self, s: &str) -> usize {
        self.0.positions(s)
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        self.0.cut(s, x)
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        let p = &self.0 .0;
        // Only the last block (`b` past the end) can hold the empty field at the end;
        // `split_terminator` of its text leaves that out, and is `split` everywhere else.
        let last = b > s.len();
        self.0.span(s, a, b).into_iter().flat_map(move |f| {
            let m = move |c| p.is_match(c);
            if last {
                Either::Left(f.split_terminator(m))
            } else {
                Either::Right(f.split(m))
            }
        })
    }
}

/// `par_split_inclusive(sep)`: a field starts at 0 and after every match and keeps its
/// separator; there is no empty field at the end, so positions stop at the string's end.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct SplitInclusive<P>(P);

impl<P: Pattern> PieceKind for SplitInclusive<P> {
    type Piece<'a> = &'a str;
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        if x == 0 || x >= s.len() {
            return x.min(s.len());
        }
        after_match(s, char_cut(s, x - 1), &self.0).map_or(s.len(), |(end, _)| end)
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        let p = &self.0;
        s[a..b].split_inclusive(move |c| p.is_match(c))
    }
}

/// `par_matches(pat)`: every match is one char, so chars are the pieces to keep whole.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Matches<P>(P);

impl<P: Pattern> PieceKind for Matches<P> {
    type Piece<'a> = &'a str;
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        char_cut(s, x)
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        let p = &self.0;
        s[a..b].matches(move |c| p.is_match(c))
    }
}

/// `par_match_indices(pat)`: as `par_matches`, with each match's byte position.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct MatchIndices<P>(P);

impl<P: Pattern> PieceKind for MatchIndices<P> {
    type Piece<'a> = (usize, &'a str);
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        char_cut(s, x)
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = (usize, &'a str)> {
        let p = &self.0;
        s[a..b]
            .match_indices(move |c| p.is_match(c))
            .map(move |(i, m)| (a + i, m))
    }
}

/// `par_encode_utf16`: a char's code units are never cut apart.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct EncodeUtf16;

impl PieceKind for EncodeUtf16 {
    type Piece<'a> = u16;
    fn positions(&self, s: &str) -> usize {
        s.len()
    }
    fn cut(&self, s: &str, x: usize) -> usize {
        char_cut(s, x)
    }
    fn pieces(&self, s: &str, a: usize, b: usize) -> impl Iterator<Item = u16> {
        s[a..b].encode_utf16()
    }
}

/// The pieces of a string, in parallel (see [`ParallelString`]).
#[derive(Clone, Copy, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct StrPieces<'a, K> {
    s: &'a str,
    kind: K,
}

impl<'a, K: PieceKind> StrPieces<'a, K> {
    fn new(s: &'a str, kind: K) -> Self {
        StrPieces { s, kind }
    }
}

impl<'a, K: PieceKind> ParallelIterator for StrPieces<'a, K>
where
    K::Piece<'a>: Send,
{
    type Item = K::Piece<'a>;
    type State = ();
    fn base_len(&self) -> usize {
        self.kind.positions(self.s)
    }
    fn state(&self) {}
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    unsafe fn block<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = K::Piece<'a>> {
        let (a, b) = (self.kind.cut(self.s, lo), self.kind.cut(self.s, hi));
        self.kind.pieces(self.s, a, b)
    }
}
