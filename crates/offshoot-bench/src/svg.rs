//! The `--svg` chart: one panel per kernel, a bar per parallel contender and
//! worker count showing its median time ÷ the serial median time (log scale,
//! lower is better), with a dashed line at 1.0 (serial).
//!
//! Drawn with plotters' SVG backend only: text is emitted as SVG `<text>`
//! elements and sized by plotters' built-in estimate, so no font files,
//! fontconfig or other system library is needed.

use std::path::Path;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::harness::{Contender, KernelResult};
use crate::report::{fmt_ratio, Report};

const PANEL_W: u32 = 440;
const PANEL_H: u32 = 300;
const HEADER_H: u32 = 78;

fn color(c: Contender) -> RGBColor {
    match c {
        Contender::Offshoot => RGBColor(0xd9, 0x5f, 0x02),
        Contender::Rayon => RGBColor(0x1b, 0x9e, 0x77),
        Contender::Chili => RGBColor(0x75, 0x70, 0xb3),
        Contender::Serial => RGBColor(0x44, 0x44, 0x44),
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("drawing the chart: {e}")
}

/// Writes the chart of `report` to `path`.
pub fn write_svg(path: &Path, report: &Report) -> Result<(), String> {
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
    let root = SVGBackend::new(path, size).into_drawing_area();
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
    for c in Contender::PARALLEL {
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
    // (x slot, contender, ratio) for every bar; a one-slot gap between groups.
    let per_group = Contender::PARALLEL.len() + 1;
    let mut bars = Vec::new();
    for (g, &w) in workers.iter().enumerate() {
        for (i, c) in Contender::PARALLEL.into_iter().enumerate() {
            if let Some(s) = k.series(c, w) {
                let x = (g * per_group) as f64 + 0.5 + i as f64;
                bars.push((x, c, s.median / k.serial.median));
            }
        }
    }
    let finite = bars
        .iter()
        .map(|b| b.2)
        .filter(|r| r.is_finite() && *r > 0.0);
    let lo = finite.clone().fold(1.0f64, f64::min) / 1.8;
    let hi = finite.fold(1.0f64, f64::max) * 1.8;
    let width = (workers.len() * per_group) as f64;

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
    // are too sparse for ranges like 0.3..3).
    let base = area.get_base_pixel();
    let grid: Vec<f64> = (-8..=8)
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
    for (g, &w) in workers.iter().enumerate() {
        let center = (g * per_group) as f64 + 0.5 + Contender::PARALLEL.len() as f64 / 2.0;
        let (px, py) = chart.backend_coord(&(center, lo));
        let label = if w == 1 {
            "1 worker".to_string()
        } else {
            format!("{w} workers")
        };
        area.draw(&Text::new(
            label,
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
