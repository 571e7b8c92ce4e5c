//! N-Queens with bitmasks: the candidate columns of a row are split in halves by joins; in
//! the upper rows the second half is a task another rank may run.

/// Rows above this fork with `offshoot_mpi::join` (their halves can travel).
const DIST_ROWS: u32 = 3;
/// Rows from `n - SERIAL_ROWS` on run serially.
const SERIAL_ROWS: u32 = 5;

#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Half {
    pub n: u32,
    pub row: u32,
    pub cols: u32,
    pub d1: u32,
    pub d2: u32,
    pub bits: u32,
}

impl offshoot_mpi::Task for Half {
    const NAME: &'static str = "queens-half";
    type Output = u64;
    fn run(self) -> u64 {
        some(self)
    }
}

pub fn solve(n: u32) -> u64 {
    let mask = (1u32 << n) - 1;
    some(Half {
        n,
        row: 0,
        cols: 0,
        d1: 0,
        d2: 0,
        bits: mask,
    })
}

/// Solutions that place this row's queen on one of `h.bits`.
fn some(h: Half) -> u64 {
    if h.bits.count_ones() == 1 {
        let b = h.bits;
        return rows(h.n, h.row + 1, h.cols | b, (h.d1 | b) << 1, (h.d2 | b) >> 1);
    }
    // Split the candidates in halves by count.
    let mut low = 0;
    let mut rest = h.bits;
    for _ in 0..h.bits.count_ones() / 2 {
        let b = rest & rest.wrapping_neg();
        low |= b;
        rest &= !b;
    }
    let a = Half { bits: low, ..h };
    let b = Half { bits: rest, ..h };
    let (x, y) = if h.row < DIST_ROWS {
        offshoot_mpi::join(|| some(a), b)
    } else {
        offshoot::join(|| some(a), || some(b))
    };
    x + y
}

fn rows(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    let mask = (1u32 << n) - 1;
    if row == n {
        return 1;
    }
    let avail = !(cols | d1 | d2) & mask;
    if avail == 0 {
        return 0;
    }
    if row + SERIAL_ROWS >= n {
        return serial(n, row, cols, d1 & mask, d2);
    }
    some(Half {
        n,
        row,
        cols,
        d1: d1 & mask,
        d2,
        bits: avail,
    })
}

pub fn serial(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    let mask = (1u32 << n) - 1;
    if row == n {
        return 1;
    }
    let mut avail = !(cols | d1 | d2) & mask;
    let mut c = 0;
    while avail != 0 {
        let b = avail & avail.wrapping_neg();
        avail &= !b;
        c += serial(n, row + 1, cols | b, ((d1 | b) << 1) & mask, (d2 | b) >> 1);
    }
    c
}
