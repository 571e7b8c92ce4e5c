//! `moldyn`: molecular dynamics of `n` particles in a periodic cube under a Lennard-Jones
//! potential with a cutoff, velocity Verlet time steps, after the Java Grande Forum MolDyn
//! benchmark (Imam's thesis ch. 3, the phaser kernels). The particles are split
//! into 64 bands (32 tasks per worker on 2 workers), a task per band.
//!
//! Each time step has three phases, with a phase boundary after the first and the second:
//! 1. move: every task moves its own particles (half a kick from the old forces, then a
//!    drift by a whole step, wrapped into the box);
//! 2. forces: every task computes the forces on its own particles from all positions, in
//!    pull form (the force on `i` is the sum over `j ≠ i` within the cutoff, `j` in index
//!    order, so each force is computed by one task in one fixed order), with its band's
//!    potential energy, virial and interaction count;
//! 3. kick: every task updates its particles' velocities from their new forces (the
//!    second half kick) and sums its band's kinetic energy.
//!
//! Phase 3 only touches a task's own particles, like the next step's phase 1, so no
//! boundary separates them: the one after phase 2 (nobody moves a particle before every
//! task has read all positions) and the one after phase 1 (nobody reads a position before
//! every task has moved its particles) are all the step needs.
//!
//! The step's sums (potential and kinetic energy, virial, interactions) add up the bands'
//! partial sums in band order, each band's in particle order, in every contender, so they
//! agree bit for bit. `PhaseAccumulator` adds its members' partials in the order they
//! signal (its operator must be associative and commutative), which an `f64` sum is not,
//! so the offshoot contender takes only the interaction count (a `u64`, exact in any order)
//! from an accumulator, and keeps the energies in per-band slots like the others.
//!
//! Contenders, each computing the same values in the same order:
//! * serial: the three phases as loops over the particles (over the bands for the sums);
//! * offshoot: one task per band for the whole run (`Scope::spawn`), each with a phaser
//!   registration, `next()` after phases 1 and 2 (a waiting task parks); the interaction
//!   count through a `PhaseAccumulator`;
//! * offshoot-fj: the rayon program on offshoot (`offshoot::prelude`), a fork-join per
//!   phase;
//! * rayon: `par_chunks_mut` over the bands in each phase (a fork-join per phase), the
//!   bands' sums collected in band order;
//! * tokio: one task per band with a `tokio::sync::Barrier` awaited after phases 1 and 2;
//! * threads: one OS thread per band with a `std::sync::Barrier` (the blocking baseline).
//!
//! Inputs (reduced units: σ = ε = m = 1): a face-centred cubic lattice at density 0.8442,
//! each particle jittered by up to ±1% of the lattice constant, velocities drawn uniformly,
//! less their mean (no total momentum), scaled to temperature 0.722 (JGF's `tref`); cutoff
//! 2.5 with the potential shifted to 0 there; time step 0.005; the forces at time 0 are
//! part of the input. Sizes (4·k³ particles, a multiple of 64): test 256 × 2 steps, quick
//! 2,048 (JGF's size A) × 2, full 2,048 × 16 (of JGF's 50).
//!
//! Check: the final positions, velocities and forces and every step's sums equal the serial
//! ones exactly. The serial run is validated against an independent program: pairwise
//! forces (each pair once, Newton's third law) that add in another order, and the minimum
//! image taken by rounding rather than by comparison; so the two agree within a tolerance:
//! 1e-9 on positions and velocities (of order 1 to 10; rounding differences of ~1e-15 grow
//! far less than that in a few steps), relative 1e-9 on the energies and virial (sums of
//! thousands of terms of order 1), exactly on the interaction count (measured: ~1e-15 and
//! ~1e-14). The physics is checked too: total momentum stays below 1e-9 (it starts at
//! ~1e-16 and the pull form cancels only to rounding: ~1e-14 measured), and the total
//! energy of every step is within 1e-3 (relative) of the energy at time 0 (measured: 1e-4
//! over 20 steps of 256 particles, 6e-5 over the full run; a force that did not match the
//! potential would move it by the kinetic energy's swings, ~10%).

use std::cell::UnsafeCell;
use std::sync::{Arc, Mutex};

use offshoot::phaser::{Mode, PhaseAccumulator, Phaser};

use super::{About, Kernel, KernelInfo, Size, Work};
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "moldyn",
    about: "Lennard-Jones molecular dynamics, 64 bands of particles meeting twice a time step: phasers vs a fork-join per phase, tokio and OS-thread barriers",
    cutoff: "64 bands of particles",
    source: "Imam's thesis ch. 3 (phasers; JGF MolDyn)",
};

/// Tasks (bands of particles); the particle count is a multiple of it.
const TASKS: usize = 64;

/// Particles per unit volume.
const DENSITY: f64 = 0.8442;
/// The temperature the velocities start at.
const TEMPERATURE: f64 = 0.722;
/// The time step.
const DT: f64 = 0.005;
/// The cutoff radius, squared.
const CUTOFF2: f64 = 2.5 * 2.5;
/// `(1 / cutoff)^6` = `(2 / 5)^6`.
const CUTOFF_INV6: f64 = 64.0 / 15625.0;
/// The unshifted potential at the cutoff, subtracted from every pair's.
const V_CUTOFF: f64 = 4.0 * CUTOFF_INV6 * (CUTOFF_INV6 - 1.0);

type Vec3 = [f64; 3];

/// The sums of a band, or of a step (the bands' sums added in band order).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sums {
    /// Potential energy (each pair's shared by its two particles).
    epot: f64,
    /// Virial, Σ over pairs of r·F(r).
    virial: f64,
    /// Kinetic energy after the step.
    ekin: f64,
    /// Interactions: ordered pairs (i, j) within the cutoff (each pair counted twice).
    pairs: u64,
}

impl Sums {
    /// The bands' sums added in band order.
    fn total(bands: &[Sums]) -> Sums {
        let mut t = Sums::default();
        for b in bands {
            t.epot += b.epot;
            t.virial += b.virial;
            t.ekin += b.ekin;
            t.pairs += b.pairs;
        }
        t
    }
}

/// The state of the particles.
#[derive(Clone, Debug, PartialEq)]
struct Particles {
    /// The edge of the periodic cube.
    side: f64,
    pos: Vec<Vec3>,
    vel: Vec<Vec3>,
    force: Vec<Vec3>,
}

/// What a run computes: the final state (its forces are those of the last step) and every
/// step's sums.
#[derive(Clone, Debug, PartialEq)]
struct Outcome {
    end: Particles,
    steps: Vec<Sums>,
}

/// The pair potential and force at squared distance `r2` (inside the cutoff): the
/// shifted potential `4(r⁻¹² − r⁻⁶) − V(cutoff)` and `F(r) / r`, where
/// `F(r) = 24(2r⁻¹³ − r⁻⁷)` is the repulsion (so the force on `i` from `j` is
/// `F(r)/r · (x_i − x_j)`).
#[inline]
fn lennard_jones(r2: f64) -> (f64, f64) {
    let inv2 = 1.0 / r2;
    let inv6 = inv2 * inv2 * inv2;
    (
        4.0 * inv6 * (inv6 - 1.0) - V_CUTOFF,
        24.0 * inv6 * (2.0 * inv6 - 1.0) * inv2,
    )
}

/// The periodic image of a coordinate difference nearest to 0 (`|d| < side`).
#[inline]
fn nearest_image(d: f64, side: f64) -> f64 {
    if d > 0.5 * side {
        d - side
    } else if d < -0.5 * side {
        d + side
    } else {
        d
    }
}

/// A coordinate moved back into `[0, side)` (after a move shorter than `side`).
#[inline]
fn wrap(x: f64, side: f64) -> f64 {
    if x < 0.0 {
        x + side
    } else if x >= side {
        x - side
    } else {
        x
    }
}

/// Phase 1 on some particles: half a kick from the old forces, then a whole drift.
fn drift(pos: &mut [Vec3], vel: &mut [Vec3], force: &[Vec3], side: f64) {
    for ((p, v), f) in pos.iter_mut().zip(vel.iter_mut()).zip(force) {
        for k in 0..3 {
            v[k] += 0.5 * DT * f[k];
            p[k] = wrap(p[k] + DT * v[k], side);
        }
    }
}

/// Phase 2 on the particles `first..first + out.len()`: their forces from all of `pos`
/// (pull form, `j` in index order) into `out`, and their sums (potential energy, virial,
/// interactions; no kinetic energy).
fn forces(pos: &[Vec3], first: usize, out: &mut [Vec3], side: f64) -> Sums {
    let mut sums = Sums::default();
    for (i, f) in (first..).zip(out.iter_mut()) {
        let pi = pos[i];
        let mut acc = [0.0; 3];
        let (mut epot, mut virial, mut pairs) = (0.0, 0.0, 0);
        for (j, pj) in pos.iter().enumerate() {
            if j == i {
                continue;
            }
            let d = [
                nearest_image(pi[0] - pj[0], side),
                nearest_image(pi[1] - pj[1], side),
                nearest_image(pi[2] - pj[2], side),
            ];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if r2 < CUTOFF2 {
                let (v, f_r) = lennard_jones(r2);
                for k in 0..3 {
                    acc[k] += f_r * d[k];
                }
                epot += v;
                virial += f_r * r2;
                pairs += 1;
            }
        }
        *f = acc;
        // Each pair is seen from both ends: half of it is this particle's.
        sums.epot += 0.5 * epot;
        sums.virial += 0.5 * virial;
        sums.pairs += pairs;
    }
    sums
}

/// Phase 3 on some particles: the second half kick; returns their kinetic energy.
fn kick(vel: &mut [Vec3], force: &[Vec3]) -> f64 {
    let mut ekin = 0.0;
    for (v, f) in vel.iter_mut().zip(force) {
        for k in 0..3 {
            v[k] += 0.5 * DT * f[k];
        }
        ekin += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    ekin
}

/// The particles of band `b` (`n` is a multiple of [`TASKS`]).
fn band(n: usize, b: usize) -> (usize, usize) {
    (b * n / TASKS, (b + 1) * n / TASKS)
}

/// The input: `4·cells³` particles on a jittered face-centred cubic lattice, moving at
/// random (no total momentum, at [`TEMPERATURE`]), with their forces.
fn lattice(cells: usize, jitter: f64) -> Particles {
    let n = 4 * cells * cells * cells;
    let side = (n as f64 / DENSITY).cbrt();
    let a = side / cells as f64;
    let mut rng = SplitMix64::new(0x4D44);
    let mut pos = Vec::with_capacity(n);
    for x in 0..cells {
        for y in 0..cells {
            for z in 0..cells {
                for basis in [
                    [0.0, 0.0, 0.0],
                    [0.5, 0.5, 0.0],
                    [0.5, 0.0, 0.5],
                    [0.0, 0.5, 0.5],
                ] {
                    let cell = [x, y, z];
                    pos.push(std::array::from_fn(|k| {
                        let shake = jitter * a * (2.0 * rng.next_f64() - 1.0);
                        wrap((cell[k] as f64 + basis[k]) * a + shake, side)
                    }));
                }
            }
        }
    }
    let mut vel: Vec<Vec3> = (0..n)
        .map(|_| std::array::from_fn(|_| 2.0 * rng.next_f64() - 1.0))
        .collect();
    let mean: Vec3 = std::array::from_fn(|k| vel.iter().map(|v| v[k]).sum::<f64>() / n as f64);
    for v in &mut vel {
        for k in 0..3 {
            v[k] -= mean[k];
        }
    }
    // Kinetic energy 3/2 (n − 1) T: n − 1 degrees of freedom per axis (momentum is fixed).
    let sq: f64 = vel.iter().flatten().map(|x| x * x).sum();
    let scale = (3.0 * (n - 1) as f64 * TEMPERATURE / sq).sqrt();
    for x in vel.iter_mut().flatten() {
        *x *= scale;
    }
    let mut force = vec![[0.0; 3]; n];
    forces(&pos, 0, &mut force, side);
    Particles {
        side,
        pos,
        vel,
        force,
    }
}

fn serial(start: &Particles, steps: usize) -> Outcome {
    let mut p = start.clone();
    let per = p.pos.len() / TASKS;
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        drift(&mut p.pos, &mut p.vel, &p.force, p.side);
        let mut bands: Vec<Sums> = p
            .force
            .chunks_mut(per)
            .enumerate()
            .map(|(b, f)| forces(&p.pos, b * per, f, p.side))
            .collect();
        for ((s, v), f) in bands
            .iter_mut()
            .zip(p.vel.chunks_mut(per))
            .zip(p.force.chunks(per))
        {
            s.ekin = kick(v, f);
        }
        out.push(Sums::total(&bands));
    }
    Outcome { end: p, steps: out }
}

/// The rayon program, a fork-join per phase (over the bands, collecting their sums in band
/// order), written once for the parallel iterators of `$prelude` (rayon's, or offshoot's
/// as rayon's users would write it).
macro_rules! fork_join_per_phase {
    ($name:ident, $($prelude:ident)::+) => {
        fn $name(start: &Particles, steps: usize) -> Outcome {
            use $($prelude)::+::*;
            let mut p = start.clone();
            let per = p.pos.len() / TASKS;
            let mut out = Vec::with_capacity(steps);
            for _ in 0..steps {
                let side = p.side;
                (p.pos.par_chunks_mut(per).zip(p.vel.par_chunks_mut(per)))
                    .zip(p.force.par_chunks(per))
                    .for_each(|((x, v), f)| drift(x, v, f, side));
                let pos = &p.pos;
                let mut bands: Vec<Sums> = (p.force.par_chunks_mut(per).enumerate())
                    .map(|(b, f)| forces(pos, b * per, f, side))
                    .collect();
                (bands.par_iter_mut().zip(p.vel.par_chunks_mut(per)))
                    .zip(p.force.par_chunks(per))
                    .for_each(|((s, v), f)| s.ekin = kick(v, f));
                out.push(Sums::total(&bands));
            }
            Outcome { end: p, steps: out }
        }
    };
}

fork_join_per_phase!(offshoot_per_phase, offshoot::prelude);
fork_join_per_phase!(rayon_per_phase, rayon::prelude);

/// The particles and the bands' sums, shared by the band tasks (offshoot, tokio, threads).
///
/// Invariant (what makes the unsynchronised access sound):
/// * phase 1 (move) and phase 3 (kick): each task reads and writes only its own band's
///   positions, velocities and forces;
/// * phase 2 (forces): every task reads every position, and writes only its own band's
///   forces; no position or velocity is written;
/// * `sums[s * TASKS + b]` is written only by band `b`'s task, in phases 2 and 3 of step
///   `s`, and read after every task ended.
///
/// The boundary after phase 1 and the one after phase 2 (a phaser's `next`, a barrier)
/// order every task's phase 1 writes before any phase 2 read, and every phase 2 read
/// before the next step's phase 1 writes; phase 3 and the next phase 1 need no boundary
/// between them (each touches the task's own particles only).
struct Shared {
    side: f64,
    pos: Box<[UnsafeCell<Vec3>]>,
    vel: Box<[UnsafeCell<Vec3>]>,
    force: Box<[UnsafeCell<Vec3>]>,
    sums: Box<[UnsafeCell<Sums>]>,
}

// SAFETY: see the invariant: concurrent accesses are to distinct cells, or reads only.
unsafe impl Sync for Shared {}

/// Cells for the values of `v`.
fn cells<T: Copy>(v: &[T]) -> Box<[UnsafeCell<T>]> {
    v.iter().map(|&x| UnsafeCell::new(x)).collect()
}

/// The values in cells `c`, once every task ended.
fn values<T: Copy>(c: &[UnsafeCell<T>]) -> Vec<T> {
    // SAFETY: called after every task ended: nothing writes the cells any more.
    c.iter().map(|x| unsafe { *x.get() }).collect()
}

/// Cells `lo..hi` of `c` as a mutable slice.
///
/// # Safety
/// Nothing else reads or writes those cells while the slice lives.
#[allow(clippy::mut_from_ref)] // the cells are what allow it, under the contract above
unsafe fn cells_mut<T>(c: &[UnsafeCell<T>], lo: usize, hi: usize) -> &mut [T] {
    let c = &c[lo..hi];
    // SAFETY: `UnsafeCell<T>` has `T`'s layout, the range is inside `c`, and the caller
    // keeps every other access to it away.
    unsafe { std::slice::from_raw_parts_mut(UnsafeCell::raw_get(c.as_ptr()), c.len()) }
}

impl Shared {
    fn new(p: &Particles, steps: usize) -> Shared {
        Shared {
            side: p.side,
            pos: cells(&p.pos),
            vel: cells(&p.vel),
            force: cells(&p.force),
            sums: (0..steps * TASKS).map(|_| UnsafeCell::default()).collect(),
        }
    }

    /// Phase 1 of band `b`.
    ///
    /// # Safety
    /// Every task keeps the type's invariant: band `b`'s task calls it in phase 1.
    unsafe fn drift_band(&self, b: usize) {
        let (lo, hi) = band(self.pos.len(), b);
        // SAFETY: in phase 1 band `b`'s particles are this task's alone.
        unsafe {
            drift(
                cells_mut(&self.pos, lo, hi),
                cells_mut(&self.vel, lo, hi),
                cells_mut(&self.force, lo, hi),
                self.side,
            );
        }
    }

    /// Phase 2 of band `b` in step `s`; returns the band's interaction count.
    ///
    /// # Safety
    /// Every task keeps the type's invariant: band `b`'s task calls it in phase 2.
    unsafe fn forces_band(&self, s: usize, b: usize) -> u64 {
        let n = self.pos.len();
        let (lo, hi) = band(n, b);
        // SAFETY: in phase 2 no position is written (so all may be read), band `b`'s forces
        // and its sums of step `s` are this task's alone.
        unsafe {
            let pos = std::slice::from_raw_parts(UnsafeCell::raw_get(self.pos.as_ptr()), n);
            let sums = forces(pos, lo, cells_mut(&self.force, lo, hi), self.side);
            *self.sums[s * TASKS + b].get() = sums;
            sums.pairs
        }
    }

    /// Phase 3 of band `b` in step `s`.
    ///
    /// # Safety
    /// Every task keeps the type's invariant: band `b`'s task calls it in phase 3.
    unsafe fn kick_band(&self, s: usize, b: usize) {
        let (lo, hi) = band(self.pos.len(), b);
        // SAFETY: in phase 3 band `b`'s velocities and forces and its sums of step `s` are
        // this task's alone.
        unsafe {
            (*self.sums[s * TASKS + b].get()).ekin =
                kick(cells_mut(&self.vel, lo, hi), cells_mut(&self.force, lo, hi));
        }
    }

    /// The outcome, once every task ended.
    fn outcome(&self) -> Outcome {
        let sums = values(&self.sums);
        Outcome {
            end: Particles {
                side: self.side,
                pos: values(&self.pos),
                vel: values(&self.vel),
                force: values(&self.force),
            },
            steps: sums.chunks(TASKS).map(Sums::total).collect(),
        }
    }
}

fn phasers(start: &Particles, steps: usize) -> Outcome {
    let sh = Shared::new(start, steps);
    let ph = Phaser::new();
    let interactions = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a += x);
    let counted = Mutex::new(None);
    let me = ph.register(Mode::SigWait);
    offshoot::scope(|sc| {
        for b in 0..TASKS {
            let mut r = me.child(Mode::SigWait);
            let (sh, interactions, counted) = (&sh, &interactions, &counted);
            sc.spawn(move |_| {
                let mut per_step = Vec::new();
                for s in 0..steps {
                    // SAFETY (the three blocks): the band is this task's, and each `next`
                    // ends the phase for every task.
                    unsafe { sh.drift_band(b) };
                    r.next();
                    let pairs = unsafe { sh.forces_band(s, b) };
                    interactions.put(&mut r, pairs);
                    r.next();
                    if b == 0 {
                        // Phase 2 of step `s` is the phaser's phase 2s + 1.
                        per_step.push(interactions.get(2 * s as u64 + 1));
                    }
                    unsafe { sh.kick_band(s, b) };
                }
                if b == 0 {
                    *counted.lock().unwrap() = Some(per_step);
                }
            });
        }
        drop(me);
    });
    let counted = counted.into_inner().unwrap().expect("task 0 ran");
    let mut out = sh.outcome();
    // The interactions are the accumulator's totals (the same counts, in another order).
    for (s, c) in out.steps.iter_mut().zip(counted) {
        s.pairs = c.expect("the phase's interactions, after next");
    }
    out
}

fn tokio_barrier(rt: &tokio::runtime::Runtime, start: &Particles, steps: usize) -> Outcome {
    let sh = Arc::new(Shared::new(start, steps));
    let barrier = Arc::new(tokio::sync::Barrier::new(TASKS));
    rt.block_on(async {
        let tasks: Vec<_> = (0..TASKS)
            .map(|b| {
                let (sh, barrier) = (sh.clone(), barrier.clone());
                tokio::spawn(async move {
                    for s in 0..steps {
                        // SAFETY (the three blocks): the band is this task's, and each
                        // barrier ends the phase for every task.
                        unsafe { sh.drift_band(b) };
                        barrier.wait().await;
                        unsafe { sh.forces_band(s, b) };
                        barrier.wait().await;
                        unsafe { sh.kick_band(s, b) };
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a band task panicked");
        }
    });
    sh.outcome()
}

fn threads_barrier(start: &Particles, steps: usize) -> Outcome {
    let sh = Shared::new(start, steps);
    let barrier = std::sync::Barrier::new(TASKS);
    std::thread::scope(|sc| {
        for b in 0..TASKS {
            let (sh, barrier) = (&sh, &barrier);
            sc.spawn(move || {
                for s in 0..steps {
                    // SAFETY (the three blocks): the band is this thread's, and each
                    // barrier ends the phase for every thread.
                    unsafe { sh.drift_band(b) };
                    barrier.wait();
                    unsafe { sh.forces_band(s, b) };
                    barrier.wait();
                    unsafe { sh.kick_band(s, b) };
                }
            });
        }
    });
    sh.outcome()
}

/// The oracle: the same time steps written independently, with pairwise forces (each pair
/// once, Newton's third law); returns the final positions and velocities, the step sums and
/// the total energy at time 0.
fn reference(start: &Particles, steps: usize) -> (Vec<Vec3>, Vec<Vec3>, Vec<Sums>, f64) {
    let n = start.pos.len();
    let side = start.side;
    let cut2 = 2.5f64.powi(2);
    let shift = 4.0 * (2.5f64.powi(-12) - 2.5f64.powi(-6));
    let pairwise = |pos: &[Vec3]| {
        let mut f = vec![[0.0f64; 3]; n];
        let mut s = Sums::default();
        for i in 0..n {
            for j in i + 1..n {
                let d: Vec3 = std::array::from_fn(|k| {
                    let d = pos[i][k] - pos[j][k];
                    d - side * (d / side).round()
                });
                let r2: f64 = d.iter().map(|x| x * x).sum();
                if r2 < cut2 {
                    let r6 = r2.powi(3);
                    let f_r = (48.0 / (r6 * r6) - 24.0 / r6) / r2;
                    for k in 0..3 {
                        f[i][k] += f_r * d[k];
                        f[j][k] -= f_r * d[k];
                    }
                    s.epot += 4.0 / (r6 * r6) - 4.0 / r6 - shift;
                    s.virial += f_r * r2;
                    s.pairs += 2;
                }
            }
        }
        (f, s)
    };
    let ekin = |vel: &[Vec3]| vel.iter().flatten().map(|x| 0.5 * x * x).sum::<f64>();
    let mut pos = start.pos.clone();
    let mut vel = start.vel.clone();
    let (mut f, s0) = pairwise(&pos);
    let e0 = s0.epot + ekin(&vel);
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        for i in 0..n {
            for k in 0..3 {
                vel[i][k] += DT / 2.0 * f[i][k];
                pos[i][k] = (pos[i][k] + DT * vel[i][k]).rem_euclid(side);
            }
        }
        let (new, s) = pairwise(&pos);
        f = new;
        for i in 0..n {
            for k in 0..3 {
                vel[i][k] += DT / 2.0 * f[i][k];
            }
        }
        out.push(Sums {
            ekin: ekin(&vel),
            ..s
        });
    }
    (pos, vel, out, e0)
}

/// Validates `got` (the serial outcome) against the oracle and the conservation laws.
fn validate(start: &Particles, steps: usize, got: &Outcome) -> Result<(), String> {
    let (pos, vel, sums, e0) = reference(start, steps);
    let side = start.side;
    for (i, (g, w)) in got.end.pos.iter().zip(&pos).enumerate() {
        if (0..3).any(|k| nearest_image(g[k] - w[k], side).abs() > 1e-9) {
            return Err(format!("particle {i} at {g:?}, oracle {w:?}"));
        }
    }
    for (i, (g, w)) in got.end.vel.iter().zip(&vel).enumerate() {
        if (0..3).any(|k| (g[k] - w[k]).abs() > 1e-9) {
            return Err(format!("particle {i} moves at {g:?}, oracle {w:?}"));
        }
    }
    if got.steps.len() != steps {
        return Err(format!("{} steps' sums, {steps} steps", got.steps.len()));
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    for (s, (g, w)) in got.steps.iter().zip(&sums).enumerate() {
        if !(close(g.epot, w.epot) && close(g.virial, w.virial) && close(g.ekin, w.ekin))
            || g.pairs != w.pairs
        {
            return Err(format!("step {s}: sums {g:?}, oracle {w:?}"));
        }
        let e = g.epot + g.ekin;
        if (e - e0).abs() > 1e-3 * e0.abs() {
            return Err(format!("step {s}: total energy {e}, {e0} at time 0"));
        }
    }
    let momentum: Vec3 = std::array::from_fn(|k| got.end.vel.iter().map(|v| v[k]).sum());
    if momentum.iter().any(|m| m.abs() > 1e-9) {
        return Err(format!("total momentum {momentum:?}"));
    }
    Ok(())
}

struct Moldyn {
    start: Particles,
    steps: usize,
    last: Option<Outcome>,
    reference: Option<Outcome>,
}

impl Work for Moldyn {
    fn input(&self) -> String {
        format!(
            "{} particles, {} steps, {TASKS} bands",
            self.start.pos.len(),
            self.steps
        )
    }
    fn reset(&mut self) {
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let got = self
            .last
            .as_ref()
            .ok_or("the serial run recorded no answer")?;
        validate(&self.start, self.steps, got)?;
        self.reference = self.last.clone();
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        let (got, want) = match (&self.last, &self.reference) {
            (_, None) => return Err("no reference".into()),
            (None, _) => return Err("the run recorded no answer".into()),
            (Some(g), Some(w)) => (g, w),
        };
        super::compare_slices(&got.end.pos, &want.end.pos)
            .map_err(|e| format!("positions: {e}"))?;
        super::compare_slices(&got.end.vel, &want.end.vel)
            .map_err(|e| format!("velocities: {e}"))?;
        super::compare_slices(&got.end.force, &want.end.force)
            .map_err(|e| format!("forces: {e}"))?;
        super::compare_slices(&got.steps, &want.steps).map_err(|e| format!("step sums: {e}"))
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| k.last = Some(serial(&k.start, k.steps)))
        .offshoot(|k| k.last = Some(phasers(&k.start, k.steps)))
        .offshoot_fj(|k| k.last = Some(offshoot_per_phase(&k.start, k.steps)))
        .rayon(|k| k.last = Some(rayon_per_phase(&k.start, k.steps)))
        .tokio(|k, rt| k.last = Some(tokio_barrier(rt, &k.start, k.steps)))
        .threads(|k| k.last = Some(threads_barrier(&k.start, k.steps)))
        .build()
}

fn prepare(size: Size) -> Moldyn {
    let (cells, steps) = match size {
        Size::Test => (4, 2),
        Size::Quick => (8, 1),
        Size::Full => (8, 16),
    };
    let start = lattice(cells, 0.01);
    assert_eq!(start.pos.len() % TASKS, 0, "bands of equal size");
    Moldyn {
        start,
        steps,
        last: None,
        reference: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_computes_the_serial_run() {
        super::super::verify(&info());
    }

    /// The force, potential and count of two particles `r` apart along x, in a box of 10.
    fn pair(x0: f64, x1: f64) -> ([Vec3; 2], Sums) {
        let pos = [[x0, 5.0, 5.0], [x1, 5.0, 5.0]];
        let mut f = [[0.0; 3]; 2];
        let sums = forces(&pos, 0, &mut f, 10.0);
        (f, sums)
    }

    #[test]
    fn two_particles_feel_the_lennard_jones_force() {
        // Repulsion 24(2r⁻¹³ − r⁻⁷), potential 4(r⁻¹² − r⁻⁶) less its value at 2.5.
        let shift = 4.0 * (2.5f64.powi(-12) - 2.5f64.powi(-6));
        for r in [0.95, 1.0, 2f64.powf(1.0 / 6.0), 1.2, 2.0, 2.49] {
            let (f, sums) = pair(3.0, 3.0 + r);
            let repulsion = 24.0 * (2.0 * r.powi(-13) - r.powi(-7));
            // Particle 0 is on the left: pushed to −x by a repulsion.
            assert!(
                (f[0][0] + repulsion).abs() <= 1e-12 * repulsion.abs().max(1.0),
                "r = {r}"
            );
            assert_eq!(f[0][1..], [0.0, 0.0]);
            // Newton's third law, exactly (so momentum is conserved).
            assert_eq!(f[1], f[0].map(|x| -x));
            let v = 4.0 * (r.powi(-12) - r.powi(-6)) - shift;
            assert!(
                (sums.epot - v).abs() <= 1e-12,
                "r = {r}: {} vs {v}",
                sums.epot
            );
            assert!((sums.virial - repulsion * r).abs() <= 1e-12 * repulsion.abs().max(1.0));
            assert_eq!(sums.pairs, 2);
        }
        // The minimum at 2^(1/6): no force.
        let (f, _) = pair(3.0, 3.0 + 2f64.powf(1.0 / 6.0));
        assert!(f[0][0].abs() < 1e-12);
    }

    #[test]
    fn pairs_meet_across_the_box_and_not_beyond_the_cutoff() {
        // 0.3 and 9.5 are 0.8 apart through the boundary: particle 0 is pushed to +x.
        let (f, sums) = pair(0.3, 9.5);
        let repulsion = 24.0 * (2.0 * 0.8f64.powi(-13) - 0.8f64.powi(-7));
        assert!((f[0][0] - repulsion).abs() <= 1e-12 * repulsion);
        assert_eq!(sums.pairs, 2);
        // 2.6 apart: outside the cutoff.
        let (f, sums) = pair(3.0, 5.6);
        assert_eq!(f, [[0.0; 3]; 2]);
        assert_eq!(sums, Sums::default());
    }

    #[test]
    fn a_perfect_lattice_feels_no_force() {
        // Every particle of a face-centred cubic lattice is a centre of symmetry.
        let p = lattice(4, 0.0);
        for (i, f) in p.force.iter().enumerate() {
            assert!(f.iter().all(|x| x.abs() < 1e-10), "particle {i}: {f:?}");
        }
    }

    #[test]
    fn the_serial_run_conserves_momentum_and_energy() {
        let start = lattice(4, 0.01);
        let out = serial(&start, 20);
        validate(&start, 20, &out).unwrap();
        // The step sums are the whole system's: every particle has ~55 neighbours.
        let n = start.pos.len() as f64;
        for s in &out.steps {
            assert!((40.0 * n..70.0 * n).contains(&(s.pairs as f64)), "{s:?}");
        }
    }

    #[test]
    fn bands_cover_the_particles_once() {
        for n in [256, 2048, 6912] {
            let mut next = 0;
            for b in 0..TASKS {
                let (lo, hi) = band(n, b);
                assert_eq!((lo, hi - lo), (next, n / TASKS));
                next = hi;
            }
            assert_eq!(next, n);
        }
    }
}
