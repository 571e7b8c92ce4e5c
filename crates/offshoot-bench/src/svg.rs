//! The `--svg` chart: every parallel contender's median time ÷ its own serial program's
//! median time, as horizontal bars on a log scale that starts at 1.0 (the serial program):
//! a bar to the left of the dashed line is a speed-up, to the right a slow-down. A whisker
//! spans the contender's fastest to slowest run (each ÷ the same serial median), so the
//! spread reads beside the median.
//!
//! Two charts, one above the other, each with **one log scale for all its kernels** so
//! that bars compare across kernels: the kernels with a rayon or chili version (fork-join,
//! loops, searches, phasers; the peers in other languages among them are divided by their
//! own language's serial time), and the kernels whose tasks wait on each other (futures,
//! channels, actors; their ratios pass 10^4, which would squash the first chart). One
//! column per worker count; a row of bars per kernel, one bar per contender in the
//! report's order and colour (a contender the kernel has no run of at that worker count
//! leaves its slot empty). An unpooled contender (OS threads) has one series, drawn in
//! every column, as the tables compare it at every worker count.
//!
//! Drawn with plotters' SVG backend in pixel coordinates (no chart builder): text is
//! emitted as SVG `<text>` elements, so no font files, fontconfig or other system library
//! is needed.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::harness::{Contender, KernelResult};
use crate::report::{contenders_shown, Report};

/// Width of the kernel names' column.
const NAMES_W: i32 = 150;
/// Width of one worker count's column (its plot area and margins).
const COLUMN_W: i32 = 470;
/// Margin left and right of a column's plot area.
const PLOT_MARGIN: i32 = 34;
/// Height of one bar, and the gap below it.
const BAR_H: i32 = 9;
const BAR_GAP: i32 = 2;
/// Space above and below a kernel's bars.
const ROW_PAD: i32 = 5;
/// A chart's title, column headings and axis labels above its rows; axis labels below.
const CHART_TOP: i32 = 58;
const CHART_BOTTOM: i32 = 30;
/// The document's title lines; a legend line, and one legend entry's width.
const HEADER_H: i32 = 52;
const LEGEND_LINE_H: i32 = 20;
const LEGEND_ENTRY_W: i32 = 150;

fn color(c: Contender) -> RGBColor {
    match c {
        Contender::Offshoot => RGBColor(0xd9, 0x5f, 0x02),
        Contender::OffshootCt => RGBColor(0xf0, 0x9a, 0x50),
        Contender::OffshootAf => RGBColor(0xf5, 0xc3, 0x96),
        Contender::OffshootFj => RGBColor(0xa6, 0x3a, 0x00),
        Contender::OffshootActors => RGBColor(0xfd, 0xae, 0x6b),
        Contender::OffshootTasks => RGBColor(0x7f, 0x27, 0x04),
        Contender::Rayon => RGBColor(0x1b, 0x9e, 0x77),
        Contender::Chili => RGBColor(0x75, 0x70, 0xb3),
        Contender::Tokio => RGBColor(0xe7, 0x29, 0x8a),
        Contender::Kameo => RGBColor(0x66, 0xa6, 0x1e),
        Contender::Threads => RGBColor(0xa6, 0x76, 0x1d),
        Contender::COpenmp => RGBColor(0x1f, 0x78, 0xb4),
        Contender::Go => RGBColor(0x00, 0xad, 0xd8),
        Contender::Java => RGBColor(0xb2, 0x18, 0x2b),
        Contender::COpenmpClang => RGBColor(0xa6, 0xce, 0xe3),
        Contender::CppTbb => RGBColor(0x33, 0xa0, 0x2c),
        Contender::Serial => RGBColor(0x44, 0x44, 0x44),
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("drawing the chart: {e}")
}

/// One bar: a contender's median ratio and its fastest and slowest runs' ratios, all to
/// the contender's own serial median.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Bar {
    median: f64,
    min: f64,
    max: f64,
}

/// A kernel's row: its name and, per contender it has, one bar per worker count (`None`
/// where it has no run there).
struct Row<'a> {
    kernel: &'a KernelResult,
    bars: Vec<(Contender, Vec<Option<Bar>>)>,
}

/// A chart: its title, rows, and its log scale's bounds (powers of two, 1.0 between).
struct Chart<'a> {
    title: &'static str,
    rows: Vec<Row<'a>>,
    lo: f64,
    hi: f64,
}

/// Where the fork-join chart's scale ends: a contender more than 64 times slower than its
/// serial program (Go's goroutine per call on `fib`, OpenMP's task per call) would
/// otherwise squash every other bar into a few pixels. Its bar ends at the edge with an
/// arrow, its label gives the value.
const FORK_JOIN_CAP: f64 = 64.0;

impl Chart<'_> {
    fn height(&self) -> i32 {
        CHART_TOP + self.rows.iter().map(row_height).sum::<i32>() + CHART_BOTTOM
    }
}

fn row_height(row: &Row<'_>) -> i32 {
    2 * ROW_PAD + row.bars.len() as i32 * (BAR_H + BAR_GAP)
}

/// Whether the kernel goes into the first chart: it has a rayon or chili version.
fn fork_join(k: &KernelResult) -> bool {
    k.has(Contender::Rayon) || k.has(Contender::Chili)
}

/// The bars of `k`, per contender it ran, per worker count of `workers`.
fn row<'a>(k: &'a KernelResult, workers: &[usize]) -> Row<'a> {
    let bars = Contender::PARALLEL
        .into_iter()
        .filter(|&c| k.has(c))
        .map(|c| {
            let per_worker = workers
                .iter()
                .map(|&w| {
                    let s = k.series(c, w)?;
                    let own = k.own_serial(c)?;
                    let bar = Bar {
                        median: s.median / own,
                        min: s.min / own,
                        max: s.max / own,
                    };
                    [bar.median, bar.min, bar.max]
                        .iter()
                        .all(|r| r.is_finite() && *r > 0.0)
                        .then_some(bar)
                })
                .collect();
            (c, per_worker)
        })
        .collect();
    Row { kernel: k, bars }
}

/// The chart of `rows`: the scale covers every whisker and 1.0, out to whole powers of two,
/// and ends at `cap` if one is given.
fn chart<'a>(title: &'static str, rows: Vec<Row<'a>>, cap: Option<f64>) -> Chart<'a> {
    let all = || {
        rows.iter()
            .flat_map(|r| r.bars.iter())
            .flat_map(|(_, per)| per.iter().flatten())
    };
    let lo = all().map(|b| b.min).fold(1.0f64, f64::min);
    let hi = all().map(|b| b.max).fold(1.0f64, f64::max);
    Chart {
        title,
        rows,
        lo: 2f64.powi(lo.log2().floor() as i32 - i32::from(lo == 1.0)),
        hi: 2f64
            .powi(hi.log2().ceil() as i32 + i32::from(hi == 1.0))
            .min(cap.unwrap_or(f64::INFINITY)),
    }
}

/// The chart of `report`, as an SVG document (the caller writes it to the `--svg` path).
pub fn render_svg(report: &Report) -> Result<String, String> {
    let measured: Vec<&KernelResult> = report
        .kernels
        .iter()
        .filter(|k| !k.comparisons.is_empty())
        .collect();
    if measured.is_empty() {
        return Err("no timings to chart".to_string());
    }
    let rows = |pick: bool| -> Vec<Row<'_>> {
        measured
            .iter()
            .filter(|k| fork_join(k) == pick)
            .map(|k| row(k, &report.workers))
            .filter(|r| !r.bars.is_empty())
            .collect()
    };
    let charts: Vec<Chart<'_>> = [
        chart(
            "Kernels with a rayon or chili version: fork-join, loops, searches, phasers",
            rows(true),
            Some(FORK_JOIN_CAP),
        ),
        chart(
            "Kernels whose tasks wait on each other: futures, channels, actors",
            rows(false),
            None,
        ),
    ]
    .into_iter()
    .filter(|c| !c.rows.is_empty())
    .collect();

    let columns = report.workers.len().max(1) as i32;
    let width = NAMES_W + columns * COLUMN_W;
    let legend = contenders_shown(report);
    let per_line = ((width - 24) / LEGEND_ENTRY_W).max(1) as usize;
    let legend_h = LEGEND_LINE_H * legend.len().div_ceil(per_line).max(1) as i32;
    let height = HEADER_H + legend_h + charts.iter().map(Chart::height).sum::<i32>();
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        header(&root, report, &legend, per_line)?;
        let mut top = HEADER_H + legend_h;
        for c in &charts {
            draw_chart(&root, c, &report.workers, (top, width))?;
            top += c.height();
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn text_style(size: u32, (h, v): (HPos, VPos)) -> TextStyle<'static> {
    ("sans-serif", size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(h, v))
}

/// Text anchored at its left end, right end or centre, vertically centred.
const LEFT_MID: (HPos, VPos) = (HPos::Left, VPos::Center);
const RIGHT_MID: (HPos, VPos) = (HPos::Right, VPos::Center);
const CENTER_MID: (HPos, VPos) = (HPos::Center, VPos::Center);

/// The title, the run's description and the legend (a swatch and name per contender, and
/// the serial line).
fn header(
    area: &Area<'_>,
    report: &Report,
    legend: &[Contender],
    per_line: usize,
) -> Result<(), String> {
    area.draw(&Text::new(
        "offshoot-bench: median time ÷ own serial median (log scale from 1.0; whiskers: fastest to slowest run)",
        (12, 16),
        text_style(16, LEFT_MID),
    ))
    .map_err(err)?;
    let sub = format!(
        "{} mode, {} rounds · {} · {} cores · {} · {} · peers in other languages ÷ their own language's serial program",
        report.mode,
        report.runs,
        report.machine.cpu_model,
        report.machine.available_parallelism,
        report.machine.rustc,
        report.date
    );
    area.draw(&Text::new(
        sub,
        (12, 38),
        ("sans-serif", 11)
            .into_font()
            .color(&RGBColor(0x55, 0x55, 0x55))
            .pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(err)?;
    let entries = legend.iter().map(|&c| (Some(c), c.name()));
    let entries = entries.chain(std::iter::once((None, "serial (1.0)")));
    for (i, (c, name)) in entries.enumerate() {
        let x = 12 + (i % per_line) as i32 * LEGEND_ENTRY_W;
        let y = HEADER_H + (i / per_line) as i32 * LEGEND_LINE_H + LEGEND_LINE_H / 2;
        match c {
            Some(c) => area
                .draw(&Rectangle::new(
                    [(x, y - 5), (x + 16, y + 5)],
                    color(c).filled(),
                ))
                .map_err(err)?,
            None => area
                .draw(&DashedPathElement::new(
                    vec![(x, y), (x + 16, y)],
                    4,
                    3,
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?,
        }
        area.draw(&Text::new(name, (x + 22, y), text_style(12, LEFT_MID)))
            .map_err(err)?;
    }
    Ok(())
}

/// Maps ratios to pixels on one column's plot area.
struct Scale {
    x0: i32,
    x1: i32,
    lo: f64,
    hi: f64,
}

impl Scale {
    fn px(&self, r: f64) -> i32 {
        let r = r.clamp(self.lo, self.hi);
        let t = (r.log2() - self.lo.log2()) / (self.hi.log2() - self.lo.log2());
        self.x0 + (t * f64::from(self.x1 - self.x0)).round() as i32
    }

    /// The values labelled: every power of two, or, where the range spans more than 2^9
    /// (the waiting kernels pass 10^4 × serial), 1.0, the bounds and the powers of ten.
    fn ticks(&self) -> Vec<f64> {
        let (a, b) = (self.lo.log2().round() as i32, self.hi.log2().round() as i32);
        if b - a <= 9 {
            return (a..=b).map(|e| 2f64.powi(e)).collect();
        }
        let (a10, b10) = (
            self.lo.log10().ceil() as i32,
            self.hi.log10().floor() as i32,
        );
        let mut ticks: Vec<f64> = (a10.min(0)..=b10).map(|e| 10f64.powi(e)).collect();
        // A bound gets a label where it is not too close to a power of ten for both to fit.
        for bound in [self.lo, self.hi] {
            if ticks.iter().all(|t| (t.log2() - bound.log2()).abs() >= 1.5) {
                ticks.push(bound);
            }
        }
        ticks.sort_by(f64::total_cmp);
        ticks
    }
}

fn tick_label(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("1/{:.0}", 1.0 / v)
    }
}

/// A ratio with three significant digits (two decimals below 10): 0.54, 1.29, 66.2, 321,
/// 25257.
fn short_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.2}")
    } else if r < 100.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.0}")
    }
}

/// Draws `chart` from `top` down, across the document's `width`: its title, the kernels'
/// names and shaded rows, and per worker count a column with its heading, ticks, bars and
/// the serial line.
fn draw_chart(
    area: &Area<'_>,
    chart: &Chart<'_>,
    workers: &[usize],
    (top, width): (i32, i32),
) -> Result<(), String> {
    let grey = RGBColor(0xdd, 0xdd, 0xdd);
    let shade = RGBColor(0xf4, 0xf4, 0xf4);
    area.draw(&Text::new(
        chart.title,
        (12, top + 12),
        text_style(14, LEFT_MID),
    ))
    .map_err(err)?;
    let rows_top = top + CHART_TOP;
    let rows_bottom = rows_top + chart.rows.iter().map(row_height).sum::<i32>();

    // Every other kernel's row shaded, its name on the left.
    let mut y = rows_top;
    for (i, row) in chart.rows.iter().enumerate() {
        let h = row_height(row);
        if i % 2 == 1 {
            area.draw(&Rectangle::new([(0, y), (width, y + h)], shade.filled()))
                .map_err(err)?;
        }
        area.draw(&Text::new(
            row.kernel.name.as_str(),
            (NAMES_W - 8, y + h / 2),
            text_style(12, RIGHT_MID),
        ))
        .map_err(err)?;
        y += h;
    }

    for (col, &w) in workers.iter().enumerate() {
        let left = NAMES_W + col as i32 * COLUMN_W;
        let scale = Scale {
            x0: left + PLOT_MARGIN,
            x1: left + COLUMN_W - PLOT_MARGIN,
            lo: chart.lo,
            hi: chart.hi,
        };
        let heading = if w == 1 {
            "1 worker".to_string()
        } else {
            format!("{w} workers")
        };
        area.draw(&Text::new(
            heading,
            ((scale.x0 + scale.x1) / 2, top + 32),
            text_style(13, CENTER_MID),
        ))
        .map_err(err)?;
        // Grid lines and labels at the scale's ticks, above and below the rows.
        for v in scale.ticks() {
            let x = scale.px(v);
            area.draw(&PathElement::new(
                vec![(x, rows_top), (x, rows_bottom)],
                grey,
            ))
            .map_err(err)?;
            for y in [rows_top - 9, rows_bottom + 10] {
                area.draw(&Text::new(
                    tick_label(v),
                    (x, y),
                    text_style(10, CENTER_MID),
                ))
                .map_err(err)?;
            }
        }
        let mut y = rows_top;
        for row in &chart.rows {
            let mut bar_top = y + ROW_PAD;
            for (c, per) in &row.bars {
                if let Some(bar) = per[col] {
                    draw_bar(area, &scale, *c, bar, bar_top)?;
                }
                bar_top += BAR_H + BAR_GAP;
            }
            y += row_height(row);
        }
        let one = scale.px(1.0);
        area.draw(&DashedPathElement::new(
            vec![(one, rows_top - 2), (one, rows_bottom + 2)],
            4,
            3,
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// A bar from 1.0 to the median, a whisker from the fastest to the slowest run, and the
/// median's value beyond the whisker's far end.
fn draw_bar(
    area: &Area<'_>,
    scale: &Scale,
    c: Contender,
    bar: Bar,
    top: i32,
) -> Result<(), String> {
    let (one, at) = (scale.px(1.0), scale.px(bar.median));
    let (a, b) = (one.min(at), one.max(at).max(one.min(at) + 1));
    area.draw(&Rectangle::new(
        [(a, top), (b, top + BAR_H)],
        color(c).filled(),
    ))
    .map_err(err)?;
    let mid = top + BAR_H / 2;
    let (lo, hi) = (scale.px(bar.min), scale.px(bar.max));
    let ink = RGBColor(0x22, 0x22, 0x22);
    area.draw(&PathElement::new(vec![(lo, mid), (hi, mid)], ink))
        .map_err(err)?;
    for x in [lo, hi] {
        area.draw(&PathElement::new(
            vec![(x, top + 1), (x, top + BAR_H - 1)],
            ink,
        ))
        .map_err(err)?;
    }
    let clipped = bar.median > scale.hi;
    if clipped {
        // An arrowhead past the scale's end: the bar goes on.
        area.draw(&Polygon::new(
            vec![(b, top - 1), (b + 6, mid), (b, top + BAR_H + 1)],
            color(c).filled(),
        ))
        .map_err(err)?;
    }
    let label = short_ratio(bar.median);
    let (x, pos) = if clipped {
        (b + 9, LEFT_MID)
    } else if bar.median < 1.0 {
        (lo.min(at) - 3, RIGHT_MID)
    } else {
        (hi.max(at) + 3, LEFT_MID)
    };
    area.draw(&Text::new(label, (x, mid), text_style(9, pos)))
        .map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::two_kernel_report;

    #[test]
    fn renders_both_charts_with_a_row_per_measured_kernel() {
        let svg = render_svg(&two_kernel_report()).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{svg}"
        );
        // plotters writes a text element's content on a line of its own.
        let text = |t: &str| svg.contains(&format!("\n{t}\n"));
        assert!(text("forks") && text("waits"), "{svg}");
        assert!(
            svg.contains("rayon or chili") && svg.contains("wait on each other"),
            "{svg}"
        );
        assert!(svg.contains("1 worker"), "{svg}");
        // The medians' labels: offshoot 0.5 and rayon 2.0 (forks), threads 4.0 and
        // offshoot 1.0 (waits).
        for label in ["0.50", "2.00", "4.00", "1.00"] {
            assert!(text(label), "{label}: {svg}");
        }
    }

    #[test]
    fn the_scale_covers_every_whisker_and_one_in_whole_powers_of_two() {
        let report = two_kernel_report();
        let forks = chart("t", vec![row(&report.kernels[0], &report.workers)], None);
        assert_eq!((forks.lo, forks.hi), (0.5, 2.0));
        let waits = chart("t", vec![row(&report.kernels[1], &report.workers)], None);
        // Every ratio at or above 1.0: the scale still extends below 1.0.
        assert_eq!((waits.lo, waits.hi), (0.5, 4.0));
        let s = Scale {
            x0: 0,
            x1: 100,
            lo: 0.5,
            hi: 2.0,
        };
        assert_eq!(
            (s.px(0.5), s.px(1.0), s.px(2.0), s.px(100.0)),
            (0, 50, 100, 100)
        );
        assert_eq!(s.ticks(), [0.5, 1.0, 2.0]);
        let wide = Scale {
            x0: 0,
            x1: 100,
            lo: 0.25,
            hi: 16384.0,
        };
        assert_eq!(wide.ticks(), [0.25, 1.0, 10.0, 100.0, 1000.0, 10000.0]);
        let capped = chart(
            "t",
            vec![row(&report.kernels[1], &report.workers)],
            Some(2.0),
        );
        assert_eq!(capped.hi, 2.0);
        assert_eq!(
            [0.5, 3.25, 66.2, 321.4].map(short_ratio),
            ["0.50", "3.25", "66.2", "321"]
        );
    }

    #[test]
    fn a_peer_is_divided_by_its_own_serial_time_and_threads_show_in_every_column() {
        // Rust serial 1 s; C serial 0.25 s; c-openmp 0.2 s: its bar is at 0.8.
        let k = crate::report::tests::kernel_with_a_peer();
        let r = row(&k, &[1]);
        let peer = r
            .bars
            .iter()
            .find(|(c, _)| *c == Contender::COpenmp)
            .unwrap();
        assert_eq!(peer.1[0].map(|b| b.median), Some(0.8));

        let report = two_kernel_report();
        let r = row(&report.kernels[1], &[1, 2]);
        let threads = r
            .bars
            .iter()
            .find(|(c, _)| *c == Contender::Threads)
            .unwrap();
        assert!(threads.1.iter().all(Option::is_some), "{:?}", threads.1);
        let offshoot = r
            .bars
            .iter()
            .find(|(c, _)| *c == Contender::Offshoot)
            .unwrap();
        // offshoot ran at 1 worker only: the 2-worker slot is empty.
        assert_eq!(offshoot.1[1], None);
    }

    #[test]
    fn no_timings_no_chart() {
        let mut report = two_kernel_report();
        report
            .kernels
            .iter_mut()
            .for_each(|k| k.comparisons.clear());
        assert!(render_svg(&report).is_err());
    }
}
