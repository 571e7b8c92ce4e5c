//! `--profile-run KERNEL`: one kernel's offshoot version run once on a pool that records a
//! timeline trace (`offshoot::trace`), with its answer checked, written next to each other:
//! the Chrome/Perfetto trace JSON, a self-contained SVG timeline (no browser service: one
//! row per worker, tasks, sleeps, parks and the hand-outs of work between workers), and a
//! per-worker table (terminal and CSV) of where each worker's time went.
//!
//! The run is timed on the traced pool (once, so that the trace shows that run alone) and
//! on a pool of the same size without the trace (the best of three runs; the serial program
//! too), so the table also says what recording cost.
//!
//! It also runs once on a pool that measures work and span (`offshoot::metrics`, see
//! `workspan.rs`): the work, span, parallelism and burdened span go to the table and to a
//! CSV with Cilkscale's columns, and a plot of the speedup bounds has the speedups measured
//! on plain pools of 1, 2, 4, ... workers (up to the profiled count) as points.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use offshoot::trace::{Slice, SliceKind, Trace};

use crate::harness::Contender;
use crate::kernels::{KernelInfo, Size};

/// What a profile run wrote and measured.
#[derive(Debug)]
pub struct Profile {
    /// The kernel's input, e.g. `fib(32)`.
    pub input: String,
    /// The contender profiled (`offshoot`, `offshoot-tasks`, ...).
    pub contender: String,
    /// Worker count.
    pub workers: usize,
    /// The run's wall time on the traced pool and on the same pool size without a trace.
    pub traced: Duration,
    /// See `traced`.
    pub untraced: Duration,
    /// The plain serial program's time (one run after the reference run).
    pub serial: Duration,
    /// The per-worker rows.
    pub rows: Vec<WorkerRow>,
    /// Events recorded, and dropped because a log was full.
    pub events: usize,
    /// See `events`.
    pub dropped: u64,
    /// The work/span row of the run on a measuring pool.
    pub workspan: offshoot::metrics::Row,
    /// That run's wall time (what measuring cost, next to `untraced`).
    pub measured: Duration,
    /// Speedups over the serial time on plain pools: (workers, speedup).
    pub speedups: crate::workspan::Points,
    /// The files written: trace JSON, timeline SVG, table CSV, work/span CSV, speedup SVG.
    pub files: Vec<PathBuf>,
}

/// Where one worker's time went during the traced run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerRow {
    /// The worker's index.
    pub worker: usize,
    /// Time inside tasks (outermost task slices).
    pub busy: Duration,
    /// Time asleep for lack of work.
    pub asleep: Duration,
    /// The rest: looking for work, spinning, yielding.
    pub looking: Duration,
    /// Distinct tasks it ran.
    pub tasks: usize,
    /// Times one of its tasks parked.
    pub parks: usize,
    /// Jobs it handed to thieves.
    pub handed_out: usize,
    /// Jobs it took from other workers.
    pub stolen: usize,
}

/// Runs `kernel`'s version `contender` (one of offshoot's) at `size` on `workers` workers
/// with the trace on, checks the answer, and writes `<dir>/<kernel>-<workers>w.trace.json`
/// (`<kernel>-<contender>-<workers>w` for a contender other than `offshoot`),
/// `.timeline.svg` and `.workers.csv`.
pub fn profile_run(
    kernel: &KernelInfo,
    contender: &str,
    size: Size,
    workers: usize,
    dir: &Path,
) -> Result<Profile, String> {
    let Some(chosen) = Contender::PARALLEL
        .into_iter()
        .find(|c| c.is_offshoot() && c.name() == contender)
    else {
        return Err(format!(
            "cannot profile `{contender}`: only offshoot's versions run on a traced pool \
             (offshoot, offshoot-ct, offshoot-af, offshoot-fj, offshoot-actors, offshoot-tasks)"
        ));
    };
    let run = |i: &mut dyn crate::kernels::Instance| i.call(chosen);
    if !kernel.contenders().contains(&chosen) {
        return Err(format!(
            "{} has no {contender} version to profile",
            kernel.name
        ));
    }
    let mut inst = kernel.prepare(size);
    // As in the harness: an instance holds its input only after a reset (a kernel that
    // works in place, such as heat's grid, starts from an empty one).
    inst.reset();
    inst.call(Contender::Serial);
    inst.accept_reference()
        .map_err(|e| format!("{}: the serial answer is wrong: {e}", kernel.name))?;
    // The best of three (this machine is shared: the least disturbed run).
    let serial = (0..3)
        .map(|_| {
            inst.reset();
            let t = Instant::now();
            inst.call(Contender::Serial);
            t.elapsed()
        })
        .min()
        .unwrap_or_default();

    let mut timed = |pool: &offshoot::ThreadPool, runs: usize| -> Result<Duration, String> {
        // The best of `runs` runs (the first warms the pool up); all checked.
        let mut best = Duration::MAX;
        for _ in 0..runs {
            inst.reset();
            let t = Instant::now();
            pool.run(|| run(&mut *inst));
            best = best.min(t.elapsed());
            inst.check()
                .map_err(|e| format!("{}: wrong answer on offshoot: {e}", kernel.name))?;
        }
        Ok(best)
    };
    let untraced = timed(&pool(workers, 0)?, 3)?;
    // Speedups at 1, 2, 4, ... workers (and the profiled count), on plain pools.
    let mut speedups = Vec::new();
    let mut n = 1;
    while n <= workers {
        let t = if n == workers {
            untraced
        } else {
            timed(&pool(n, 0)?, 3)?
        };
        speedups.push((n, serial.as_secs_f64() / t.as_secs_f64().max(1e-12)));
        n = if n * 2 > workers && n < workers {
            workers
        } else {
            n * 2
        };
    }
    let metered_pool = offshoot::ThreadPool::builder()
        .workers(workers)
        .metrics(offshoot::metrics::Mode::Measured)
        .build()
        .map_err(|e| format!("cannot build a pool of {workers} workers: {e}"))?;
    let measured = timed(&metered_pool, 3)?;
    let report = metered_pool.metrics().expect("a measuring pool");
    let workspan = report
        .rows()
        .iter()
        .rev()
        .find(|r| r.tag.is_empty())
        .cloned()
        .expect("a row for the run");
    // Only the last run's row (each run recorded one).
    let mut last_run = offshoot::metrics::CSV_HEADER.to_string() + "\n";
    last_run.push_str(report.to_csv().lines().last().unwrap_or(""));
    last_run.push('\n');
    // The traced pool runs it once (the input is warm from the runs above), so the trace
    // shows that run alone.
    let traced_pool = pool(workers, offshoot::trace::DEFAULT_EVENTS_PER_WORKER)?;
    let traced = timed(&traced_pool, 1)?;
    let trace = traced_pool.trace().expect("a traced pool");
    let rows = worker_rows(&trace);

    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = if contender == "offshoot" {
        format!("{}-{workers}w", kernel.name)
    } else {
        format!("{}-{contender}-{workers}w", kernel.name)
    };
    let json = dir.join(format!("{stem}.trace.json"));
    let svg = dir.join(format!("{stem}.timeline.svg"));
    let csv = dir.join(format!("{stem}.workers.csv"));
    let input = inst.input();
    let title = format!(
        "{contender}: {} {input}, {workers} worker{}, traced run {:.3} ms",
        kernel.name,
        if workers == 1 { "" } else { "s" },
        traced.as_secs_f64() * 1e3
    );
    write(&json, &trace.to_chrome_json())?;
    write(&svg, &timeline_svg(&trace, &title))?;
    write(&csv, &rows_csv(&rows))?;
    let ws_csv = dir.join(format!("{stem}.workspan.csv"));
    let ws_svg = dir.join(format!("{stem}.speedup.svg"));
    write(&ws_csv, &last_run)?;
    write(
        &ws_svg,
        &crate::workspan::speedup_svg(
            &workspan,
            &speedups,
            workers.max(16),
            &format!("{contender}: {} {input}: speedup bounds", kernel.name),
        ),
    )?;
    Ok(Profile {
        input,
        contender: contender.to_string(),
        workers,
        traced,
        untraced,
        serial,
        rows,
        events: trace.events(),
        dropped: trace.dropped(),
        workspan,
        measured,
        speedups,
        files: vec![json, svg, csv, ws_csv, ws_svg],
    })
}

fn pool(workers: usize, events: usize) -> Result<offshoot::ThreadPool, String> {
    offshoot::ThreadPool::builder()
        .workers(workers)
        .trace(events)
        .build()
        .map_err(|e| format!("cannot build a pool of {workers} workers: {e}"))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// When the first of `slices` begins (the pool is built before the run starts).
fn first_start(slices: &[Slice]) -> Duration {
    slices.iter().map(|s| s.start).min().unwrap_or_default()
}

/// Where each worker's time went, from the trace's slices and steals, over the time from
/// the first slice to the last event.
pub fn worker_rows(trace: &Trace) -> Vec<WorkerRow> {
    let slices = trace.slices();
    let total = trace.duration().saturating_sub(first_start(&slices));
    let mut rows: Vec<WorkerRow> = (0..trace.workers())
        .map(|worker| WorkerRow {
            worker,
            ..WorkerRow::default()
        })
        .collect();
    let mut tasks: Vec<Vec<u64>> = vec![Vec::new(); trace.workers()];
    for s in slices {
        let r = &mut rows[s.worker];
        match s.kind {
            SliceKind::Task => {
                if s.depth == 0 {
                    r.busy += s.end.saturating_sub(s.start);
                }
                if s.parked_on.is_some() {
                    r.parks += 1;
                }
                tasks[s.worker].push(s.task);
            }
            SliceKind::Sleep => r.asleep += s.end.saturating_sub(s.start),
            SliceKind::Region => {}
        }
    }
    for st in trace.steals() {
        rows[st.victim].handed_out += 1;
        rows[st.thief].stolen += 1;
    }
    for (r, mut t) in rows.iter_mut().zip(tasks) {
        t.sort_unstable();
        t.dedup();
        r.tasks = t.len();
        r.looking = total.saturating_sub(r.busy + r.asleep);
    }
    rows
}

/// The rows as CSV, times in seconds.
pub fn rows_csv(rows: &[WorkerRow]) -> String {
    let mut s = String::from(
        "worker,busy (seconds),asleep (seconds),looking for work (seconds),tasks,parks,handed out,stolen\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{:.6},{:.6},{:.6},{},{},{},{}",
            r.worker,
            r.busy.as_secs_f64(),
            r.asleep.as_secs_f64(),
            r.looking.as_secs_f64(),
            r.tasks,
            r.parks,
            r.handed_out,
            r.stolen
        );
    }
    s
}

/// The terminal table of a profile run.
pub fn render(p: &Profile) -> String {
    let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} on {} worker{}: serial {} ms, {} {} ms, traced {} ms ({:.2}x untraced); {} events{}",
        p.input,
        p.workers,
        if p.workers == 1 { "" } else { "s" },
        ms(p.serial),
        p.contender,
        ms(p.untraced),
        ms(p.traced),
        p.traced.as_secs_f64() / p.untraced.as_secs_f64().max(1e-9),
        p.events,
        if p.dropped > 0 {
            format!(", {} dropped (a log was full)", p.dropped)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        s,
        "{:>6} {:>10} {:>10} {:>10} {:>7} {:>6} {:>10} {:>7}",
        "worker", "busy ms", "asleep ms", "looking ms", "tasks", "parks", "handed out", "stolen"
    );
    for r in &p.rows {
        let _ = writeln!(
            s,
            "{:>6} {:>10} {:>10} {:>10} {:>7} {:>6} {:>10} {:>7}",
            r.worker,
            ms(r.busy),
            ms(r.asleep),
            ms(r.looking),
            r.tasks,
            r.parks,
            r.handed_out,
            r.stolen
        );
    }
    let w = &p.workspan;
    let _ = writeln!(
        s,
        "work {} ms, span {} ms, parallelism {:.1}, burdened span {} ms ({:.1}); measured run {} ms ({:.2}x untraced)",
        ms(w.work),
        ms(w.span),
        w.parallelism(),
        ms(w.burdened_span),
        w.burdened_parallelism(),
        ms(p.measured),
        p.measured.as_secs_f64() / p.untraced.as_secs_f64().max(1e-9),
    );
    let _ = writeln!(
        s,
        "speedup over serial: {}",
        p.speedups
            .iter()
            .map(|(n, x)| {
                let (upper, burdened) = w.speedup_bounds(*n);
                format!("{n}w {x:.2}x (bounds {upper:.2}, burdened {burdened:.2})")
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    for f in &p.files {
        let _ = writeln!(s, "wrote {}", f.display());
    }
    s
}

/// How many hand-out arrows and park marks the timeline draws at most (the first ones in
/// time); the legend says when there were more.
const MAX_MARKS: usize = 2000;

/// A self-contained SVG timeline of `trace`: one row per worker over the trace's duration,
/// with the time each pixel column spent in tasks (blue, darker when nested tasks run
/// inside a waiting one), asleep (grey) or looking for work (white); red ticks where a
/// task parked; arrows from the worker that handed work out to the one that ran it; the
/// user's regions as a band above the row.
pub fn timeline_svg(trace: &Trace, title: &str) -> String {
    const W: f64 = 1200.0;
    const LEFT: f64 = 90.0;
    const ROW: f64 = 34.0;
    const TOP: f64 = 46.0;
    let plot_w = W - LEFT - 20.0;
    let cols = plot_w as usize;
    let n = trace.workers().max(1);
    let h = TOP + ROW * n as f64 + 90.0;
    let slices = trace.slices();
    let t0 = first_start(&slices).as_nanos() as f64;
    let total = (trace.duration().as_nanos() as f64 - t0).max(1.0);
    let x_of = |d: Duration| LEFT + plot_w * ((d.as_nanos() as f64 - t0) / total);
    // Per worker and pixel column: nanoseconds in tasks (by nesting depth 0 / deeper),
    // asleep, and in regions.
    let mut busy = vec![vec![0f64; cols]; n];
    let mut nested = vec![vec![0f64; cols]; n];
    let mut asleep = vec![vec![0f64; cols]; n];
    let mut region = vec![vec![0f64; cols]; n];
    let col_ns = total / cols as f64;
    let mut parks = Vec::new();
    for s in slices {
        let grid = match (s.kind, s.depth) {
            (SliceKind::Task, 0) => &mut busy,
            (SliceKind::Task, _) => &mut nested,
            (SliceKind::Sleep, _) => &mut asleep,
            (SliceKind::Region, _) => &mut region,
        };
        let (a, b) = (s.start.as_nanos() as f64 - t0, s.end.as_nanos() as f64 - t0);
        let (c0, c1) = (
            ((a / col_ns) as usize).min(cols - 1),
            ((b / col_ns) as usize).min(cols - 1),
        );
        for (c, cell) in grid[s.worker].iter_mut().enumerate().take(c1 + 1).skip(c0) {
            let lo = a.max(c as f64 * col_ns);
            let hi = b.min((c + 1) as f64 * col_ns);
            *cell += (hi - lo).max(0.0);
        }
        if s.kind == SliceKind::Task && s.parked_on.is_some() {
            parks.push((s.worker, s.end, s.parked_on.unwrap_or("")));
        }
    }
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="20" font-size="14" font-weight="bold">{}</text>
"##,
        xml(title)
    );
    for w in 0..n {
        let y = TOP + ROW * w as f64;
        let _ = writeln!(
            svg,
            r##"<text x="{}" y="{}" text-anchor="end">worker {w}</text><rect x="{LEFT}" y="{}" width="{plot_w}" height="{}" fill="none" stroke="#bbb"/>"##,
            LEFT - 8.0,
            y + ROW / 2.0 + 4.0,
            y + 6.0,
            ROW - 10.0
        );
        // Runs of columns with the same shade, as one rect each.
        let shade = |c: usize| -> Option<&'static str> {
            let (b, d, s) = (busy[w][c], nested[w][c], asleep[w][c]);
            let idle = col_ns - b - s;
            if d > col_ns / 2.0 {
                Some("#08519c")
            } else if b >= idle.max(s) && b > 0.0 {
                Some("#4292c6")
            } else if s >= idle && s > 0.0 {
                Some("#bdbdbd")
            } else {
                None
            }
        };
        let mut c = 0;
        while c < cols {
            let fill = shade(c);
            let start = c;
            while c < cols && shade(c) == fill {
                c += 1;
            }
            if let Some(fill) = fill {
                let _ = writeln!(
                    svg,
                    r##"<rect x="{:.1}" y="{}" width="{}" height="{}" fill="{fill}"/>"##,
                    LEFT + start as f64,
                    y + 6.0,
                    c - start,
                    ROW - 10.0
                );
            }
        }
        // Regions: a band above the row.
        let mut c = 0;
        while c < cols {
            if region[w][c] > 0.0 {
                let start = c;
                while c < cols && region[w][c] > 0.0 {
                    c += 1;
                }
                let _ = writeln!(
                    svg,
                    r##"<rect x="{:.1}" y="{}" width="{}" height="3" fill="#31a354"/>"##,
                    LEFT + start as f64,
                    y + 2.0,
                    c - start
                );
            } else {
                c += 1;
            }
        }
    }
    parks.sort_by_key(|&(_, at, _)| at);
    let steals = trace.steals();
    for st in steals.iter().take(MAX_MARKS) {
        let (x1, x2) = (x_of(st.at), x_of(st.started));
        let y1 = TOP + ROW * st.victim as f64 + ROW / 2.0;
        let y2 = TOP + ROW * st.thief as f64 + ROW / 2.0;
        let _ = writeln!(
            svg,
            r##"<line x1="{x1:.1}" y1="{y1}" x2="{x2:.1}" y2="{y2}" stroke="#e6550d" stroke-width="0.8" opacity="0.7"/>"##
        );
    }
    for &(w, at, _) in parks.iter().take(MAX_MARKS) {
        let x = x_of(at);
        let y = TOP + ROW * w as f64;
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#de2d26" stroke-width="1"/>"##,
            y + 6.0,
            y + ROW - 4.0
        );
    }
    // Time axis.
    let axis_y = TOP + ROW * n as f64 + 12.0;
    let total_ms = total / 1e6;
    let step = nice_step(total_ms / 8.0);
    let mut t = 0.0;
    while t <= total_ms + 1e-12 {
        let x = LEFT + plot_w * (t / total_ms);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#555"/><text x="{x:.1}" y="{}" text-anchor="middle">{} ms</text>"##,
            axis_y - 4.0,
            axis_y + 2.0,
            axis_y + 16.0,
            trim(t)
        );
        t += step;
    }
    let more = |k: usize| {
        if k > MAX_MARKS {
            format!(" (first {MAX_MARKS} of {k})")
        } else {
            String::new()
        }
    };
    let legend_y = axis_y + 40.0;
    // Legend items left to right, each as wide as its text (about 6.5 px a character).
    let items: [(&str, String); 7] = [
        ("box:#4292c6", "in a task".to_string()),
        ("box:#08519c", "a task run while another waits".to_string()),
        ("box:#bdbdbd", "asleep".to_string()),
        ("none", "white: looking for work".to_string()),
        ("tick:#de2d26", format!("a task parks{}", more(parks.len()))),
        (
            "line:#e6550d",
            format!("work handed out{}", more(steals.len())),
        ),
        ("band:#31a354", "user regions".to_string()),
    ];
    let (mut x, mut y) = (LEFT, legend_y);
    for (mark, text) in items {
        let width = 16.0 + 6.5 * text.chars().count() as f64 + 18.0;
        if x + width > W - 10.0 {
            x = LEFT;
            y += 18.0;
        }
        let (kind, color) = mark.split_once(':').unwrap_or((mark, ""));
        let _ = match kind {
            "box" => writeln!(
                svg,
                r##"<rect x="{x}" y="{}" width="12" height="10" fill="{color}"/>"##,
                y - 9.0
            ),
            "tick" => writeln!(
                svg,
                r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{color}"/>"##,
                x + 6.0,
                y - 10.0,
                x + 6.0,
                y
            ),
            "line" => writeln!(
                svg,
                r##"<line x1="{x}" y1="{}" x2="{}" y2="{}" stroke="{color}"/>"##,
                y - 4.0,
                x + 12.0,
                y - 4.0
            ),
            "band" => writeln!(
                svg,
                r##"<rect x="{x}" y="{}" width="12" height="3" fill="{color}"/>"##,
                y - 6.0
            ),
            _ => Ok(()),
        };
        let tx = if kind == "none" { x } else { x + 16.0 };
        let _ = writeln!(svg, r##"<text x="{tx}" y="{y}">{}</text>"##, xml(&text));
        x += width;
    }
    svg.push_str("</svg>\n");
    svg
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
pub(crate) fn nice_step(raw: f64) -> f64 {
    let raw = raw.max(1e-6);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * p)
}

pub(crate) fn trim(t: f64) -> String {
    let s = format!("{t:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

pub(crate) fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traced_fib() -> Trace {
        fn pfib(n: u64) -> u64 {
            if n < 2 {
                return n;
            }
            let (a, b) = offshoot::join(|| pfib(n - 1), || pfib(n - 2));
            a + b
        }
        let pool = pool(2, 1 << 16).unwrap();
        assert_eq!(pool.run(|| pfib(22)), 17711);
        pool.trace().unwrap()
    }

    #[test]
    fn the_rows_account_for_every_worker_and_every_steal() {
        let trace = traced_fib();
        let rows = worker_rows(&trace);
        assert_eq!(rows.len(), 2);
        let steals = trace.steals().len();
        assert_eq!(rows.iter().map(|r| r.stolen).sum::<usize>(), steals);
        assert_eq!(rows.iter().map(|r| r.handed_out).sum::<usize>(), steals);
        let window = trace
            .duration()
            .saturating_sub(first_start(&trace.slices()));
        for r in &rows {
            assert!(
                r.busy + r.asleep + r.looking >= window.saturating_sub(Duration::from_nanos(1))
            );
        }
        assert!(
            rows.iter().any(|r| r.tasks > 0),
            "the root job ran somewhere"
        );
        let csv = rows_csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.starts_with("worker,busy (seconds)"));
    }

    #[test]
    fn the_timeline_is_well_formed_svg_with_a_row_per_worker() {
        let trace = traced_fib();
        let svg = timeline_svg(&trace, "fib <22> & more");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("fib &lt;22&gt; &amp; more"));
        assert_eq!(svg.matches(">worker ").count(), 2);
        // Balanced tags: every element is self-closed or closed.
        let opened = svg.matches("<text").count();
        assert_eq!(opened, svg.matches("</text>").count());
    }

    /// `--profile-run` takes every kernel: each one's first offshoot version runs at the
    /// test size and its answer is checked (a kernel that works in place on its input once
    /// failed here, its serial run starting from an instance that was never reset).
    #[test]
    fn every_kernel_can_be_profiled() {
        let dir = std::env::temp_dir().join(format!("offshoot-profile-{}", std::process::id()));
        for kernel in crate::kernels::all() {
            let contender = kernel
                .contenders()
                .iter()
                .map(|c| c.name())
                .find(|n| n.starts_with("offshoot"))
                .unwrap_or_else(|| panic!("{} has no offshoot version", kernel.name));
            let profile = profile_run(&kernel, contender, Size::Test, 2, &dir)
                .unwrap_or_else(|e| panic!("profiling {} ({contender}): {e}", kernel.name));
            assert_eq!(profile.rows.len(), 2, "{}: a row per worker", kernel.name);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_time_axis_steps_are_round() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.3), 2.0);
        assert_eq!(nice_step(31.0), 50.0);
        assert_eq!(trim(2.500), "2.5");
        assert_eq!(trim(10.0), "10");
    }
}
