//! The `--svg` chart: one panel per kernel, a bar per parallel contender and
//! worker count showing its median time ÷ the serial median time (log scale,
//! lower is better), with a dashed line at 1.0 (serial). An unpooled
//! contender (OS threads) has one bar, in a group of its own before the
//! worker counts.
//!
//! Drawn with plotters' SVG backend only: text is emitted as SVG `<text>`
//! elements and sized by plotters' built-in estimate, so no font files,
//! fontconfig or other system library is needed.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::harness::{Contender, KernelResult, Series};
use crate::report::{contenders_shown, fmt_ratio, Report};

const PANEL_W: u32 = 440;
const PANEL_H: u32 = 300;
const HEADER_H: u32 = 78;

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

/// The chart of `report`, as an SVG document (the caller writes it to the `--svg` path).
pub fn render_svg(report: &Report) -> Result<String, String> {
    let kernels: Vec<&KernelResult> = report
        .kernels
        .iter()
        .filter(|k| !k.comparisons.is_empty())
        .collect();
    if kernels.is_empty() {
        return Err("no timings to chart".to_string());
    }
    let cols = kernels.len().min(3);
    let rows = kernels.len().div_ceil(cols);
    let size = (PANEL_W * cols as u32, HEADER_H + PANEL_H * rows as u32);
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
    draw(root, report, &kernels, (rows, cols))?;
    Ok(svg)
}

/// Draws the header and a panel per kernel of `kernels` (those of `report` with timings),
/// `rows` × `cols` of them, on `root`.
fn draw(
    root: DrawingArea<SVGBackend<'_>, Shift>,
    report: &Report,
    kernels: &[&KernelResult],
    (rows, cols): (usize, usize),
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let (header, body) = root.split_vertically(HEADER_H);

    header
        .draw(&Text::new(
            "offshoot-bench: median time ÷ serial median time (log scale, lower is better)",
            (12, 10),
            ("sans-serif", 18).into_font().color(&BLACK),
        ))
        .map_err(err)?;
    let sub = format!(
        "{} mode, {} rounds · {} · {} cores · {} · {}",
        report.mode,
        report.runs,
        report.machine.cpu_model,
        report.machine.available_parallelism,
        report.machine.rustc,
        report.date
    );
    header
        .draw(&Text::new(
            sub,
            (12, 34),
            ("sans-serif", 12)
                .into_font()
                .color(&RGBColor(0x55, 0x55, 0x55)),
        ))
        .map_err(err)?;
    let mut x = 12;
    for c in contenders_shown(report) {
        header
            .draw(&Rectangle::new([(x, 56), (x + 14, 68)], color(c).filled()))
            .map_err(err)?;
        header
            .draw(&Text::new(
                c.name(),
                (x + 20, 55),
                ("sans-serif", 13).into_font().color(&BLACK),
            ))
            .map_err(err)?;
        x += 110;
    }
    header
        .draw(&DashedPathElement::new(
            vec![(x, 62), (x + 24, 62)],
            4,
            3,
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
    header
        .draw(&Text::new(
            "serial (1.0)",
            (x + 30, 55),
            ("sans-serif", 13).into_font().color(&BLACK),
        ))
        .map_err(err)?;

    let panels = body.split_evenly((rows, cols));
    for (k, area) in kernels.iter().zip(panels.iter()) {
        panel(area, k, &report.workers)?;
    }
    root.present().map_err(err)
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    k: &KernelResult,
    workers: &[usize],
) -> Result<(), String> {
    // The groups: the unpooled series (if any), then one per worker count;
    // (x slot, contender, ratio) for every bar; a one-slot gap between groups.
    let mut groups: Vec<(String, Vec<&Series>)> = Vec::new();
    let unpooled: Vec<&Series> = k.parallel.iter().filter(|s| s.workers.is_none()).collect();
    if !unpooled.is_empty() {
        groups.push(("own threads".to_string(), unpooled));
    }
    for &w in workers {
        let label = if w == 1 {
            "1 worker".to_string()
        } else {
            format!("{w} workers")
        };
        groups.push((
            label,
            k.parallel.iter().filter(|s| s.workers == Some(w)).collect(),
        ));
    }
    let per_group = groups.iter().map(|g| g.1.len()).max().unwrap_or(0) + 1;
    let mut bars = Vec::new();
    for (g, (_, series)) in groups.iter().enumerate() {
        for (i, s) in series.iter().enumerate() {
            let Some(c) = Contender::PARALLEL
                .into_iter()
                .find(|c| c.name() == s.contender)
            else {
                continue;
            };
            let x = (g * per_group) as f64 + 0.5 + i as f64;
            // A peer's bar is its ratio to its own language's serial program.
            let own = k.own_serial(c).unwrap_or(f64::NAN);
            bars.push((x, c, s.median / own));
        }
    }
    let finite = bars
        .iter()
        .map(|b| b.2)
        .filter(|r| r.is_finite() && *r > 0.0);
    let lo = finite.clone().fold(1.0f64, f64::min) / 1.8;
    let hi = finite.fold(1.0f64, f64::max) * 1.8;
    let width = (groups.len() * per_group) as f64;

    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{} · {}", k.name, k.input),
            ("sans-serif", 13).into_font(),
        )
        .margin(10)
        .x_label_area_size(22)
        .y_label_area_size(46)
        .build_cartesian_2d(0.0..width, (lo..hi).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .y_label_formatter(&|_| String::new())
        .y_desc("÷ serial")
        .axis_desc_style(("sans-serif", 11).into_font())
        .draw()
        .map_err(err)?;

    // Grid lines and labels at powers of two (plotters' own log-scale labels
    // are too sparse for ranges like 0.3..3); every second, fourth, ...
    // power where the range spans more than 2^10 (the waiting kernels reach
    // 10^4 × serial).
    let base = area.get_base_pixel();
    let (e_lo, e_hi) = (lo.log2().ceil() as i32, hi.log2().floor() as i32);
    let step = ((e_hi - e_lo) / 10 + 1) as usize;
    let grid: Vec<f64> = (e_lo..=e_hi)
        .step_by(step)
        .map(|e| 2f64.powi(e))
        .filter(|v| *v > lo && *v < hi)
        .collect();
    chart
        .draw_series(
            grid.iter()
                .map(|&v| PathElement::new(vec![(0.0, v), (width, v)], RGBColor(0xdd, 0xdd, 0xdd))),
        )
        .map_err(err)?;
    for &v in &grid {
        let (px, py) = chart.backend_coord(&(0.0, v));
        let label = if v >= 1.0 {
            format!("{v:.0}")
        } else {
            format!("1/{:.0}", 1.0 / v)
        };
        area.draw(&Text::new(
            label,
            (px - base.0 - 5, py - base.1),
            ("sans-serif", 11)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(err)?;
    }

    chart
        .draw_series(bars.iter().map(|&(x, c, r)| {
            Rectangle::new([(x + 0.08, lo), (x + 0.92, r.max(lo))], color(c).filled())
        }))
        .map_err(err)?;
    chart
        .draw_series(bars.iter().map(|&(x, _, r)| {
            Text::new(
                fmt_ratio(r),
                (x + 0.5, r.max(lo) * 1.04),
                ("sans-serif", 10)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
            )
        }))
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(DashedPathElement::new(
            vec![(0.0, 1.0), (width, 1.0)],
            4,
            3,
            BLACK.stroke_width(1),
        )))
        .map_err(err)?;

    // Group labels under the axis, in the panel's own pixel coordinates.
    for (g, (label, series)) in groups.iter().enumerate() {
        let center = (g * per_group) as f64 + 0.5 + series.len() as f64 / 2.0;
        let (px, py) = chart.backend_coord(&(center, lo));
        area.draw(&Text::new(
            label.as_str(),
            (px - base.0, py - base.1 + 5),
            ("sans-serif", 11)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::two_kernel_report;

    #[test]
    fn renders_a_panel_per_measured_kernel() {
        let svg = render_svg(&two_kernel_report()).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{svg}"
        );
        assert!(
            svg.contains("forks · n = 1") && svg.contains("waits · n = 1"),
            "{svg}"
        );
        assert!(svg.contains("own threads"), "{svg}");
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
