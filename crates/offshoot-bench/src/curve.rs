//! Curves: kernels declared as the points of one sweep (the `grain-G` kernels, one per
//! leaf grain `G`), and the table that reads them together — per point, each contender's
//! efficiency, the serial median ÷ its median, at every worker count — which the terminal
//! prints after the summary and the Markdown report in a section of its own.
//!
//! A kernel says it is a point with [`crate::kernels::Kernel::curve`]; the harness copies
//! the point into its [`KernelResult`]. Invariants: a curve's rows are its points in the
//! report's kernel order (the registry declares them by increasing `x`); its columns are the
//! pooled contenders that some point ran, at each worker count of the report; a point that
//! lacks a column shows `-`. Formatting only; nothing here measures anything.

use std::fmt::Write as _;

use serde::Serialize;

use crate::harness::{Contender, KernelResult};
use crate::report::Report;

/// Where a kernel lies on a curve: the curve's name, what its x axis is, and this kernel's x.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Point {
    /// The curve's name (`grain`).
    pub curve: &'static str,
    /// What x is (`g (leaf iterations)`).
    pub axis: &'static str,
    /// This kernel's x.
    pub x: u64,
}

impl Point {
    /// The point `x` of the curve `curve`, whose x axis is `axis`.
    ///
    /// ```
    /// use offshoot_bench::curve::Point;
    /// let p = Point::new("grain", "g (leaf iterations)", 64);
    /// assert_eq!((p.curve, p.x), ("grain", 64));
    /// ```
    pub const fn new(curve: &'static str, axis: &'static str, x: u64) -> Self {
        Point { curve, axis, x }
    }
}

/// One curve of a report: its name and axis, its columns, and per point the x, the input and
/// a cell per column.
struct Table {
    curve: &'static str,
    axis: &'static str,
    columns: Vec<(Contender, usize)>,
    rows: Vec<(u64, String, Vec<String>)>,
}

/// Efficiency in percent: serial median ÷ `median`.
fn efficiency(serial: f64, median: f64) -> String {
    let e = 100.0 * serial / median;
    if e.is_finite() {
        format!("{e:.0}%")
    } else {
        "-".to_string()
    }
}

/// The curves of `report`, in the order their first point appears.
fn tables(report: &Report) -> Vec<Table> {
    let mut names: Vec<&'static str> = Vec::new();
    for p in report.kernels.iter().filter_map(|k| k.curve) {
        if !names.contains(&p.curve) {
            names.push(p.curve);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let points: Vec<(&KernelResult, Point)> = report
                .kernels
                .iter()
                .filter_map(|k| Some((k, k.curve.filter(|p| p.curve == name)?)))
                .collect();
            let ran = |c: Contender, w: usize| points.iter().any(|(k, _)| k.series(c, w).is_some());
            let columns: Vec<(Contender, usize)> = report
                .workers
                .iter()
                .flat_map(|&w| {
                    Contender::PARALLEL
                        .into_iter()
                        .filter(|c| c.pooled())
                        .filter(move |&c| ran(c, w))
                        .map(move |c| (c, w))
                })
                .collect();
            let rows = points
                .iter()
                .map(|(k, p)| {
                    let cells = columns
                        .iter()
                        .map(|&(c, w)| {
                            k.series(c, w)
                                .map_or("-".to_string(), |s| efficiency(k.serial.median, s.median))
                        })
                        .collect();
                    (p.x, k.input.clone(), cells)
                })
                .collect();
            Table {
                curve: name,
                axis: points[0].1.axis,
                columns,
                rows,
            }
        })
        .collect()
}

/// The terminal form: a table per curve (nothing when the report has none, or only checked
/// answers).
pub fn terminal(report: &Report) -> String {
    let mut out = String::new();
    if report.check_only {
        return out;
    }
    for t in tables(report) {
        let _ = writeln!(
            out,
            "\ncurve `{}`: efficiency = serial median ÷ contender median (100% = no cost \
             over serial; with W workers, W × 100% is a perfect speed-up), per {}",
            t.curve, t.axis
        );
        let _ = write!(out, "  {:>8}", "x");
        for (c, w) in &t.columns {
            let _ = write!(out, " {:>14}", format!("{} ({w}w)", c.name()));
        }
        let _ = writeln!(out);
        for (x, _, cells) in &t.rows {
            let _ = write!(out, "  {x:>8}");
            for cell in cells {
                let _ = write!(out, " {cell:>14}");
            }
            let _ = writeln!(out);
        }
    }
    out
}

/// The Markdown form: a section `## Curves` with a table per curve (nothing when the report
/// has none, or only checked answers).
pub fn markdown(report: &Report) -> String {
    let mut md = String::new();
    let tables = tables(report);
    if report.check_only || tables.is_empty() {
        return md;
    }
    let _ = writeln!(md, "## Curves\n");
    let _ = writeln!(
        md,
        "Kernels that are the points of one sweep, read together. Each cell is an \
         efficiency: the serial median ÷ the contender's median (100%: the contender costs \
         nothing over the plain serial program; with W workers, W × 100% is a perfect \
         speed-up).\n"
    );
    for t in &tables {
        let _ = writeln!(md, "### `{}` by {}\n", t.curve, t.axis);
        let head: Vec<String> = t
            .columns
            .iter()
            .map(|(c, w)| format!("{} ({w}w)", c.name()))
            .collect();
        let _ = writeln!(
            md,
            "| x | input | {} |\n|---:|---|{}",
            head.join(" | "),
            "---:|".repeat(head.len())
        );
        for (x, input, cells) in &t.rows {
            let _ = writeln!(md, "| {x} | {input} | {} |", cells.join(" | "));
        }
        let _ = writeln!(md);
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{kernel, series, two_kernel_report};

    fn point(x: u64, offshoot: f64, rayon: Option<f64>) -> KernelResult {
        let mut parallel = vec![series("offshoot", Some(1), offshoot)];
        parallel.extend(rayon.map(|r| series("rayon", Some(1), r)));
        let mut k = kernel(&format!("sweep-{x}"), parallel);
        k.curve = Some(Point::new("sweep", "x things", x));
        k
    }

    #[test]
    fn a_curve_lists_its_points_with_the_efficiency_of_each_contender() {
        let mut report = two_kernel_report();
        report.workers = vec![1];
        report
            .kernels
            .extend([point(1, 4.0, Some(2.0)), point(16, 1.25, None)]);
        let text = terminal(&report);
        assert!(text.contains("curve `sweep`"), "{text}");
        assert!(
            text.contains("offshoot (1w)") && text.contains("rayon (1w)"),
            "{text}"
        );
        let row = |x: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(x))
                .unwrap_or_else(|| panic!("no row {x}: {text}"))
                .split_whitespace()
                .skip(1)
                .collect::<Vec<_>>()
        };
        // Serial takes 1 s in every test kernel.
        assert_eq!(row("1"), ["25%", "50%"]);
        assert_eq!(row("16"), ["80%", "-"]);
        let md = markdown(&report);
        assert!(md.contains("### `sweep` by x things"), "{md}");
        assert!(md.contains("| 16 | n = 1 | 80% | - |"), "{md}");
    }

    #[test]
    fn a_report_without_points_or_with_answers_only_has_no_curve() {
        let mut report = two_kernel_report();
        assert_eq!(terminal(&report), "");
        assert_eq!(markdown(&report), "");
        report.kernels.push(point(1, 2.0, None));
        report.check_only = true;
        assert_eq!(terminal(&report), "");
        assert_eq!(markdown(&report), "");
    }
}
