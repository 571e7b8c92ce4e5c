//! String sources: [`ParallelString`]'s `par_chars`, `par_char_indices`, `par_bytes`,
//! `par_lines`, `par_split_whitespace`, `par_split_ascii_whitespace` and `par_split`.
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
/// ```
pub trait ParallelString {
    /// The string.
    fn as_parallel_string(&self) -> &str;

    /// Its `char`s, in order.
    fn par_chars(&self) -> StrPieces<'_, Chars> {
        StrPieces::new(self.as_parallel_string(), Chars)
    }

    /// Its `char`s with their byte positions, in order.
    fn par_char_indices(&self) -> StrPieces<'_, CharIndices> {
        StrPieces::new(self.as_parallel_string(), CharIndices)
    }

    /// Its bytes, in order (an indexed iterator).
    fn par_bytes(&self) -> Copied<Iter<'_, u8>> {
        Iter::new(self.as_parallel_string().as_bytes()).copied()
    }

    /// Its lines (as `str::lines`: `\n` or `\r\n` ends a line), in order.
    fn par_lines(&self) -> StrPieces<'_, Lines> {
        StrPieces::new(self.as_parallel_string(), Lines)
    }

    /// Its words separated by Unicode whitespace (as `str::split_whitespace`), in order.
    fn par_split_whitespace(&self) -> StrPieces<'_, Words> {
        StrPieces::new(self.as_parallel_string(), Words(char::is_whitespace))
    }

    /// Its words separated by ASCII whitespace (as `str::split_ascii_whitespace`).
    fn par_split_ascii_whitespace(&self) -> StrPieces<'_, Words> {
        StrPieces::new(
            self.as_parallel_string(),
            Words(|c| c.is_ascii_whitespace()),
        )
    }

    /// Its fields separated by `sep` (as `str::split(sep)`: empty fields included).
    fn par_split(&self, sep: char) -> StrPieces<'_, Split> {
        StrPieces::new(self.as_parallel_string(), Split(sep))
    }
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
pub trait PieceKind: Copy + Sync + Send {
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

/// `par_split(sep)`: a field starts at 0 and after every `sep`; position `len + 1` stands
/// for "past the end", so that the last field (maybe empty) belongs to the last block.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Split(char);

impl PieceKind for Split {
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
        let from = char_cut(s, x - 1);
        match s[from..].find(self.0) {
            Some(i) => from + i + self.0.len_utf8(),
            None => s.len() + 1,
        }
    }
    fn pieces<'a>(&self, s: &'a str, a: usize, b: usize) -> impl Iterator<Item = &'a str> {
        // `b` is just after a separator (its field starts the next block) or past the end.
        let (a, end) = if b > s.len() {
            (a.min(s.len() + 1), s.len())
        } else {
            (a, b.saturating_sub(self.0.len_utf8()).max(a))
        };
        let field = (a <= s.len() && a < b).then(|| &s[a..end]);
        let sep = self.0;
        field.into_iter().flat_map(move |f| f.split(sep))
    }
}

/// The pieces of a string, in parallel (see [`ParallelString`]).
#[derive(Clone, Copy, Debug)]
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
