//! The conversions into parallel iterators: `into_par_iter`, `par_iter`, `par_iter_mut`.

use super::*;

/// Values that turn into a parallel iterator (ranges, `Vec`, slices and collections by
/// reference, `Option`, ...).
pub trait IntoParallelIterator {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Turns `self` into a parallel iterator.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<String> = vec!["a".to_string(), "b".to_string()];
    /// let upper: Vec<String> = v.into_par_iter().map(|s| s.to_uppercase()).collect();
    /// assert_eq!(upper, ["A", "B"]);
    /// ```
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;
    fn into_par_iter(self) -> I {
        self
    }
}

/// `par_iter()`: a parallel iterator over `&T` of anything whose reference is
/// [`IntoParallelIterator`].
pub trait IntoParallelRefIterator<'data> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send + 'data;
    /// A parallel iterator over references to the elements.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![1, 2, 3];
    /// assert_eq!(v.par_iter().sum::<i32>(), 6);
    /// ```
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;
    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over `&mut T` of anything whose mutable
/// reference is [`IntoParallelIterator`].
pub trait IntoParallelRefMutIterator<'data> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send + 'data;
    /// A parallel iterator over mutable references to the elements.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = vec![1, 2, 3];
    /// v.par_iter_mut().for_each(|x| *x *= 2);
    /// assert_eq!(v, [2, 4, 6]);
    /// ```
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}
