//! `pentomino-copy`: the `pentomino` kernel with offshoot running the copying version (a
//! copy of the board for every child, forked with `offshoot::join`), as Cilk1 in Yasugi et al.'s LBTC
//! Table 4. Its offshoot time divided by `pentomino`'s offshoot time is the gain of
//! undo-redo over copying (Yasugi et al.'s LBTC: about 1.87×). Serial, rayon and chili are as in `pentomino`.
//!
//! Inputs, cutoff, source and check: as `pentomino`.

use super::pentomino::{Pentomino, Variant};
use super::{About, KernelInfo};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "pentomino-copy",
    about: "pentomino with a board copy per child on offshoot too (for the undo-redo vs \
            copying ratio)",
    cutoff: "none",
    source: "Yasugi et al. Fig. 9, Table 4 (Cilk1)",
};

/// The registry entry.
pub fn info() -> KernelInfo {
    super::pentomino::declare(ABOUT, |size| Pentomino::new(size, Variant::Copying))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
