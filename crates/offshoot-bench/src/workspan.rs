//! The work/span part of `--profile-run`: the kernel run once on a pool that measures work
//! and span (`offshoot::metrics`, Cilkscale-style), its row written as Cilkscale's CSV, and a
//! plot of the speedup bounds against the worker count with the speedups measured on plain
//! pools as points.
//!
//! The bounds (Cilkscale's plot): no more than the worker count (work law), no more than
//! the parallelism work ÷ span (span law), and the burdened estimate
//! `work / (work / P + burdened span)`, which charges every steal on the critical path its
//! measured cost.

use std::fmt::Write as _;

use offshoot::metrics::Row;

use crate::profile::{nice_step as nice, trim, xml};

/// The measured speedups: (workers, serial time ÷ that run's time).
pub type Points = Vec<(usize, f64)>;

/// A self-contained SVG of the speedup bounds of `row` for 1 to `max_workers` workers, with
/// `points` drawn as measured speedups.
pub fn speedup_svg(row: &Row, points: &[(usize, f64)], max_workers: usize, title: &str) -> String {
    const W: f64 = 640.0;
    const H: f64 = 420.0;
    const LEFT: f64 = 60.0;
    const BOTTOM: f64 = 50.0;
    const TOP: f64 = 56.0;
    const RIGHT: f64 = 170.0;
    let px = max_workers.max(2) as f64;
    let ymax = points
        .iter()
        .map(|p| p.1)
        .fold(px.min(row.parallelism().max(1.0)), f64::max)
        .max(1.0)
        * 1.05;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let x = |p: f64| LEFT + (p - 1.0) / (px - 1.0) * pw;
    let y = |s: f64| TOP + ph - (s / ymax).min(1.0) * ph;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="{W}" height="{H}" fill="white"/>
<text x="{LEFT}" y="20" font-size="14">{}</text>
<text x="{LEFT}" y="38" fill="#555">work {:.3} ms, span {:.3} ms, parallelism {:.1}, burdened parallelism {:.1}</text>"##,
        xml(title),
        row.work.as_secs_f64() * 1e3,
        row.span.as_secs_f64() * 1e3,
        row.parallelism(),
        row.burdened_parallelism()
    );
    // Axes and ticks.
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{}" stroke="black"/>"##,
        TOP + ph,
        LEFT + pw,
        TOP + ph,
        TOP + ph
    );
    let xstep = ((px - 1.0) / 8.0).ceil().max(1.0) as usize;
    let mut p = 1;
    while p <= max_workers.max(2) {
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">{p}</text>"##,
            x(p as f64),
            TOP + ph + 16.0
        );
        p += xstep;
    }
    let ystep = nice(ymax / 6.0);
    let mut s = 0.0;
    while s <= ymax {
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#eee"/>"##,
            LEFT - 6.0,
            y(s) + 4.0,
            trim(s),
            y(s),
            LEFT + pw,
            y(s)
        );
        s += ystep;
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">workers</text><text x="16" y="{:.1}" transform="rotate(-90 16 {:.1})" text-anchor="middle">speedup over serial</text>"##,
        LEFT + pw / 2.0,
        H - 12.0,
        TOP + ph / 2.0,
        TOP + ph / 2.0
    );
    // The bounds, sampled at every worker count.
    let curve = |f: &dyn Fn(usize) -> f64| -> String {
        (1..=max_workers.max(2))
            .map(|p| format!("{:.1},{:.1}", x(p as f64), y(f(p))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#1f77b4" stroke-width="2"/>"##,
        curve(&|p| row.speedup_bounds(p).0)
    );
    let _ = writeln!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#ff7f0e" stroke-width="2" stroke-dasharray="6 4"/>"##,
        curve(&|p| row.speedup_bounds(p).1)
    );
    for &(p, s) in points {
        let _ = writeln!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="5" fill="#2ca02c"><title>{p} workers: {s:.2}x</title></circle>"##,
            x(p as f64),
            y(s)
        );
    }
    // Legend.
    let lx = LEFT + pw + 14.0;
    let _ = writeln!(
        svg,
        r##"<line x1="{lx}" y1="{t0}" x2="{l1}" y2="{t0}" stroke="#1f77b4" stroke-width="2"/><text x="{tx}" y="{t0b}">min(P, parallelism)</text>
<line x1="{lx}" y1="{t1}" x2="{l1}" y2="{t1}" stroke="#ff7f0e" stroke-width="2" stroke-dasharray="6 4"/><text x="{tx}" y="{t1b}">burdened estimate</text>
<circle cx="{c}" cy="{t2}" r="5" fill="#2ca02c"/><text x="{tx}" y="{t2b}">measured</text>"##,
        t0 = TOP + 10.0,
        t0b = TOP + 14.0,
        t1 = TOP + 30.0,
        t1b = TOP + 34.0,
        t2 = TOP + 50.0,
        t2b = TOP + 54.0,
        l1 = lx + 24.0,
        tx = lx + 30.0,
        c = lx + 12.0,
    );
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_plot_has_both_bounds_and_every_point() {
        let row = Row {
            tag: String::new(),
            work: Duration::from_millis(100),
            span: Duration::from_millis(25),
            burdened_span: Duration::from_millis(30),
            work_units: 0,
            span_units: 0,
        };
        let svg = speedup_svg(&row, &[(1, 0.9), (2, 1.7)], 8, "fib <32>");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 3); // two points and the legend's
        assert!(svg.contains("fib &lt;32&gt;"));
        assert!(svg.contains("parallelism 4.0"));
    }
}
