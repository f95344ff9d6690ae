//! A pair of values, one for each side: what per-player data (seats, clocks, stores, ratings)
//! is kept in, indexed by [`Side`] rather than by `0` and `1`.

use core::ops::{Index, IndexMut};

use crate::Side;

/// One `T` for South and one for North, indexed by [`Side`].
///
/// It converts to and from `[south, north]`, and with the `serde` feature it is written and
/// read as that two-element array, so it can replace one on the wire unchanged.
///
/// ```
/// use anywoli_core::{BySide, Side};
///
/// let mut left = BySide::new(300, 280);
/// left[Side::North] -= 30;
/// assert_eq!(left[Side::North], 250);
/// assert_eq!(left.map(|ms| ms / 10), BySide::new(30, 25));
/// assert_eq!(left.iter().sum::<i32>(), 550);
/// assert_eq!(<[i32; 2]>::from(left), [300, 250]);
/// assert_eq!(BySide::both(false), BySide::new(false, false));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct BySide<T> {
    /// South's value.
    pub south: T,
    /// North's value.
    pub north: T,
}

impl<T> BySide<T> {
    /// South's value and North's.
    pub const fn new(south: T, north: T) -> BySide<T> {
        BySide { south, north }
    }

    /// The same value for both sides.
    pub fn both(value: T) -> BySide<T>
    where
        T: Clone,
    {
        BySide::new(value.clone(), value)
    }

    /// Each side's value through `f`, South's first.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySide<U> {
        let south = f(self.south);
        BySide::new(south, f(self.north))
    }

    /// South's value for North and North's for South: the seats once the players change
    /// sides.
    pub fn swapped(self) -> BySide<T> {
        BySide::new(self.north, self.south)
    }

    /// Both values borrowed.
    pub const fn as_ref(&self) -> BySide<&T> {
        BySide::new(&self.south, &self.north)
    }

    /// South's value, then North's.
    pub fn iter(&self) -> core::array::IntoIter<&T, 2> {
        [&self.south, &self.north].into_iter()
    }

    /// Each side with its value, South first.
    pub fn with_sides(&self) -> core::array::IntoIter<(Side, &T), 2> {
        [(Side::South, &self.south), (Side::North, &self.north)].into_iter()
    }
}

impl<T> Index<Side> for BySide<T> {
    type Output = T;

    #[inline]
    fn index(&self, side: Side) -> &T {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }
}

impl<T> IndexMut<Side> for BySide<T> {
    #[inline]
    fn index_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::South => &mut self.south,
            Side::North => &mut self.north,
        }
    }
}

impl<T> From<[T; 2]> for BySide<T> {
    fn from([south, north]: [T; 2]) -> BySide<T> {
        BySide::new(south, north)
    }
}

impl<T> From<BySide<T>> for [T; 2] {
    fn from(b: BySide<T>) -> [T; 2] {
        [b.south, b.north]
    }
}

impl<T> IntoIterator for BySide<T> {
    type Item = T;
    type IntoIter = core::array::IntoIter<T, 2>;

    fn into_iter(self) -> Self::IntoIter {
        <[T; 2]>::from(self).into_iter()
    }
}

impl<'a, T> IntoIterator for &'a BySide<T> {
    type Item = &'a T;
    type IntoIter = core::array::IntoIter<&'a T, 2>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for BySide<T> {
    /// As `[south, north]`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [&self.south, &self.north].serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for BySide<T> {
    /// From `[south, north]`.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<BySide<T>, D::Error> {
        <[T; 2]>::deserialize(deserializer).map(BySide::from)
    }
}
