//! The rows a measuring pool records, and how they print: a table, or a CSV with
//! Cilkscale's columns.
//!
//! Invariants: a row's parallelism is work ÷ span, `inf` never appears (a span of zero
//! gives a parallelism of 0.0, meaning "nothing measured").

use std::fmt;
use std::time::Duration;

use super::clock::Clock;
use super::Mode;

/// The work and span of one run or [`measure`](crate::metrics::measure) call (see
/// [`metrics`](crate::metrics)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// `""` for a whole [`ThreadPool::run`](crate::ThreadPool::run), else the
    /// [`measure`](crate::metrics::measure) call's tag.
    pub tag: String,
    /// Total time in the program's code, on all workers.
    pub work: Duration,
    /// The longest path of dependent steps.
    pub span: Duration,
    /// The span with each steal's measured cost added to its path.
    pub burdened_span: Duration,
    /// Total units charged with [`do_work`](crate::metrics::do_work).
    pub work_units: u64,
    /// The longest path, in units.
    pub span_units: u64,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

impl Row {
    pub(crate) fn from_clock(tag: &str, c: &Clock) -> Row {
        // One rate for every quantity of the row, so that the order of equal or ordered
        // tick counts (burdened span >= span, work >= span) survives the conversion.
        let rate = super::strand::ns_per_tick();
        let ns = |t: u64| Duration::from_nanos((t as f64 * rate) as u64);
        Row {
            tag: tag.to_string(),
            work: ns(c.work_t),
            span: ns(c.span_t),
            burdened_span: ns(c.burdened_t),
            work_units: c.work_units,
            span_units: c.span_units,
        }
    }

    /// Work ÷ span (time): the most any number of workers could speed this part up.
    ///
    /// ```
    /// use std::time::Duration;
    /// let row = offshoot::metrics::Row {
    ///     tag: String::new(),
    ///     work: Duration::from_millis(80),
    ///     span: Duration::from_millis(10),
    ///     burdened_span: Duration::from_millis(20),
    ///     work_units: 0,
    ///     span_units: 0,
    /// };
    /// assert_eq!(row.parallelism(), 8.0);
    /// assert_eq!(row.burdened_parallelism(), 4.0);
    /// ```
    pub fn parallelism(&self) -> f64 {
        ratio(self.work.as_secs_f64(), self.span.as_secs_f64())
    }

    /// Work ÷ burdened span.
    pub fn burdened_parallelism(&self) -> f64 {
        ratio(self.work.as_secs_f64(), self.burdened_span.as_secs_f64())
    }

    /// Work ÷ span in units (HJlib's WORK / CPL).
    ///
    /// ```
    /// let row = offshoot::metrics::Row {
    ///     tag: String::new(),
    ///     work: Default::default(),
    ///     span: Default::default(),
    ///     burdened_span: Default::default(),
    ///     work_units: 6,
    ///     span_units: 5,
    /// };
    /// assert_eq!(row.unit_parallelism(), 1.2);
    /// ```
    pub fn unit_parallelism(&self) -> f64 {
        ratio(self.work_units as f64, self.span_units as f64)
    }

    /// Bounds on the speedup with `workers` workers (Cilkscale's plot): the upper bound
    /// `min(workers, parallelism)` (the work and span laws), and the burdened estimate
    /// `work / (work / workers + burdened span)`, which a good scheduler should reach.
    ///
    /// ```
    /// use std::time::Duration;
    /// let row = offshoot::metrics::Row {
    ///     tag: String::new(),
    ///     work: Duration::from_millis(80),
    ///     span: Duration::from_millis(10),
    ///     burdened_span: Duration::from_millis(10),
    ///     work_units: 0,
    ///     span_units: 0,
    /// };
    /// let (upper, burdened) = row.speedup_bounds(2);
    /// assert_eq!(upper, 2.0);
    /// assert!((burdened - 80.0 / 50.0).abs() < 1e-9);
    /// assert_eq!(row.speedup_bounds(16).0, 8.0);
    /// ```
    pub fn speedup_bounds(&self, workers: usize) -> (f64, f64) {
        let p = workers.max(1) as f64;
        let work = self.work.as_secs_f64();
        let upper = p.min(self.parallelism());
        let burdened = ratio(work, work / p + self.burdened_span.as_secs_f64());
        (upper, burdened)
    }
}

/// The rows of a measuring pool, in the order they ended ([`ThreadPool::metrics`](crate::ThreadPool::metrics)).
#[derive(Clone, Debug)]
pub struct Report {
    mode: Mode,
    rows: Vec<Row>,
}

/// The CSV header: Cilkscale's columns, then the units.
pub const CSV_HEADER: &str = "tag,work (seconds),span (seconds),parallelism,burdened_span (seconds),burdened_parallelism,work (units),span (units)";

impl Report {
    pub(crate) fn new(mode: Mode, rows: Vec<Row>) -> Report {
        Report { mode, rows }
    }

    /// How the pool measured.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The rows: one per `run` (tag `""`) and per `measure` call, in the order they ended.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The rows as CSV with Cilkscale's columns (`tag,work (seconds),span (seconds),
    /// parallelism,burdened_span (seconds),burdened_parallelism`) and two more for units.
    /// Tags are quoted when they hold a comma, a quote or a line break.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder()
    ///     .workers(1)
    ///     .metrics(offshoot::metrics::Mode::Measured)
    ///     .build()
    ///     .unwrap();
    /// pool.run(|| offshoot::metrics::measure("a, b", || offshoot::join(|| 1, || 2)));
    /// let csv = pool.metrics().unwrap().to_csv();
    /// let mut lines = csv.lines();
    /// assert!(lines.next().unwrap().starts_with("tag,work (seconds),span (seconds),parallelism"));
    /// assert!(lines.next().unwrap().starts_with("\"a, b\","));
    /// assert!(lines.next().unwrap().starts_with(",")); // the whole run
    /// ```
    pub fn to_csv(&self) -> String {
        let mut s = String::from(CSV_HEADER);
        s.push('\n');
        for r in &self.rows {
            s.push_str(&csv_field(&r.tag));
            s.push_str(&format!(
                ",{:.9},{:.9},{:.3},{:.9},{:.3},{},{}\n",
                r.work.as_secs_f64(),
                r.span.as_secs_f64(),
                r.parallelism(),
                r.burdened_span.as_secs_f64(),
                r.burdened_parallelism(),
                r.work_units,
                r.span_units
            ));
        }
        s
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The table: one line per row; times in milliseconds (measured mode) or units.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |t: &str| {
            if t.is_empty() {
                "(run)".to_string()
            } else {
                t.to_string()
            }
        };
        let w = self
            .rows
            .iter()
            .map(|r| name(&r.tag).chars().count())
            .max()
            .unwrap_or(0)
            .max(6);
        match self.mode {
            Mode::Measured => {
                writeln!(
                    f,
                    "{:<w$}  {:>12}  {:>12}  {:>11}  {:>12}  {:>11}  {:>10}  {:>10}",
                    "tag",
                    "work (ms)",
                    "span (ms)",
                    "parallelism",
                    "burdened (ms)",
                    "burdened par",
                    "work (u)",
                    "span (u)"
                )?;
                for r in &self.rows {
                    writeln!(
                        f,
                        "{:<w$}  {:>12.3}  {:>12.3}  {:>11.2}  {:>13.3}  {:>12.2}  {:>10}  {:>10}",
                        name(&r.tag),
                        r.work.as_secs_f64() * 1e3,
                        r.span.as_secs_f64() * 1e3,
                        r.parallelism(),
                        r.burdened_span.as_secs_f64() * 1e3,
                        r.burdened_parallelism(),
                        r.work_units,
                        r.span_units
                    )?;
                }
            }
            Mode::Abstract => {
                writeln!(
                    f,
                    "{:<w$}  {:>12}  {:>12}  {:>9}",
                    "tag", "WORK", "CPL", "WORK/CPL"
                )?;
                for r in &self.rows {
                    writeln!(
                        f,
                        "{:<w$}  {:>12}  {:>12}  {:>9.2}",
                        name(&r.tag),
                        r.work_units,
                        r.span_units,
                        r.unit_parallelism()
                    )?;
                }
            }
        }
        Ok(())
    }
}
