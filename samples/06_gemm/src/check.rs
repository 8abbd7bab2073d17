//! Inputs and checks of 06_gemm: seeded matrices (real values, or small integers whose every
//! sum is exact in f32), the f64 CPU reference, and the comparison with a stated tolerance.
//! Values are always exact in the element type, so f32 and f16 runs share one reference.

use crate::simt::{Elem, FaultSite, Shape};
use harness::Check;

/// What the inputs hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Uniform in [-1, 1) (for f16 rounded to multiples of 1/1024, exact in f16); compared
    /// within a rounding bound derived from K.
    Real,
    /// Integers in -2..=2 (C in -4..=4): every partial sum is an integer far below 2^24, so
    /// the result is exact in f32 whatever the order of the additions; compared exactly.
    Exact,
}

/// A, B and C_in of one problem, with α and β.
pub struct Inputs {
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    pub c: Vec<f32>,
    pub alpha: f32,
    pub beta: f32,
}

/// Seeded inputs for `shape`, with values planted at the fault site (see [`FaultSite`]):
/// A[m][k] = 1 beside A's next element = -1, and B[k][n] = 1, so that reading the one for the
/// other, or dropping the tile of D[m][n], changes D[m][n] by far more than any tolerance.
pub fn inputs(shape: Shape, elem: Elem, kind: Kind, seed: u64, alpha: f32, beta: f32) -> Inputs {
    let (m, n, k) = (shape.m as usize, shape.n as usize, shape.k as usize);
    let gen = |len: usize, stream: u64, range: i32| -> Vec<f32> {
        let seed = seed ^ stream.wrapping_mul(0x5851_F42D_4C95_7F2D);
        match kind {
            Kind::Real => {
                let xs = harness::random::f32s(len, seed, -1.0, 1.0);
                match elem {
                    Elem::F32 => xs,
                    Elem::F16 => xs.iter().map(|x| (x * 1024.0).round() / 1024.0).collect(),
                }
            }
            Kind::Exact => harness::random::i32s(len, seed, -range, range).iter().map(|&v| v as f32).collect(),
        }
    };
    let mut inputs = Inputs { a: gen(m * k, 1, 2), b: gen(k * n, 2, 2), c: gen(m * n, 3, 4), alpha, beta };
    let site = FaultSite::of(shape);
    let e = site.element(shape) as usize;
    inputs.a[e] = 1.0;
    if e + 1 < inputs.a.len() {
        inputs.a[e + 1] = -1.0;
    }
    inputs.b[site.k as usize * n + site.n as usize] = 1.0;
    inputs
}

/// IEEE binary16 bits of `x`, which must be exact in f16 (zero or a normal number whose
/// significand fits 11 bits): every input this sample makes is.
pub fn f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x == 0.0 {
        return sign;
    }
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    debug_assert!((1..31).contains(&exponent) && bits & 0x1fff == 0, "{x} is not exact in f16");
    sign | ((exponent as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
}

/// The elements of D checked at a shape: every one, or (at large shapes) whole sampled rows
/// and columns, always the fault site's row and column among them.
pub struct Sample {
    pub rows: Vec<u32>,
    pub cols: Vec<u32>,
    pub full: bool,
}

/// Problems above this many multiply-adds are checked on sampled rows and columns.
const FULL_CHECK_MAX: u64 = 1 << 27;

impl Sample {
    pub fn of(shape: Shape, seed: u64) -> Self {
        let mnk = shape.flops() / 2;
        if mnk <= FULL_CHECK_MAX {
            return Sample { rows: (0..shape.m).collect(), cols: Vec::new(), full: true };
        }
        let site = FaultSite::of(shape);
        let pick = |len: u32, planted: u32, stream: u64| {
            let mut v = vec![planted, 0, len - 1];
            v.extend(harness::random::u32s(6, seed ^ stream, 0, len - 1));
            v.sort_unstable();
            v.dedup();
            v
        };
        Sample { rows: pick(shape.m, site.m, 11), cols: pick(shape.n, site.n, 12), full: false }
    }

    pub fn describe(&self, shape: Shape) -> String {
        if self.full {
            format!("all {} elements", u64::from(shape.m) * u64::from(shape.n))
        } else {
            format!("{} rows and {} columns incl. the fault site's", self.rows.len(), self.cols.len())
        }
    }
}

/// One checked element: (row, column, α·Σa·b + β·c in f64, |α|·Σ|a·b| + |β·c|).
type Want = (u32, u32, f64, f64);

/// The f64 reference at the sampled elements, spread over the CPU's cores.
pub fn reference(shape: Shape, x: &Inputs, sample: &Sample) -> Vec<Want> {
    let (n, k) = (shape.n as usize, shape.k as usize);
    let (alpha, beta) = (f64::from(x.alpha), f64::from(x.beta));
    let finish = |i: usize, j: usize, sum: f64, abs: f64| -> Want {
        let c = beta * f64::from(x.c[i * n + j]);
        (i as u32, j as u32, alpha * sum + c, alpha.abs() * abs + c.abs())
    };
    let row = |i: u32| -> Vec<Want> {
        let i = i as usize;
        let (mut sum, mut abs) = (vec![0f64; n], vec![0f64; n]);
        for (kk, &a) in x.a[i * k..(i + 1) * k].iter().enumerate() {
            let a = f64::from(a);
            for (j, &b) in x.b[kk * n..(kk + 1) * n].iter().enumerate() {
                let p = a * f64::from(b);
                sum[j] += p;
                abs[j] += p.abs();
            }
        }
        (0..n).map(|j| finish(i, j, sum[j], abs[j])).collect()
    };
    let col = |j: u32| -> Vec<Want> {
        let j = j as usize;
        let column: Vec<f64> = (0..k).map(|kk| f64::from(x.b[kk * n + j])).collect();
        (0..shape.m as usize)
            .map(|i| {
                let (mut sum, mut abs) = (0f64, 0f64);
                for (&a, &b) in x.a[i * k..(i + 1) * k].iter().zip(&column) {
                    let p = f64::from(a) * b;
                    sum += p;
                    abs += p.abs();
                }
                finish(i, j, sum, abs)
            })
            .collect()
    };
    let mut wants = parallel(&sample.rows, row);
    wants.extend(parallel(&sample.cols, col));
    wants
}

/// `f` over `items` on every core, results in order.
fn parallel<T: Copy + Sync, R: Send>(items: &[T], f: impl Fn(T) -> Vec<R> + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len().max(1));
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().flat_map(|&t| f(t)).collect::<Vec<R>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
}

/// D against the reference: exactly (`Kind::Exact`), or within (K+4)·2^-24·(|α|·Σ|a·b| + |β·c|),
/// the worst-case rounding of an f32 sum of K products in any order plus the epilogue.
pub fn compare(shape: Shape, kind: Kind, got: &[f32], wants: &[Want]) -> Check {
    let unit = (f64::from(shape.k) + 4.0) * f64::from(f32::EPSILON) / 2.0;
    let rule = match kind {
        Kind::Exact => "exact (small integers)".to_string(),
        Kind::Real => format!("|got-want| <= (K+4)·2^-24·(|α|·Σ|a·b| + |β·c|), K = {}", shape.k),
    };
    let mut check = Check { compared: wants.len(), rule, ..Default::default() };
    for &(i, j, want, abs) in wants {
        let g = f64::from(got[i as usize * shape.n as usize + j as usize]);
        let tolerance = if kind == Kind::Exact { 0.0 } else { unit * abs };
        if !(g - want).abs().le(&tolerance) {
            check.mismatches += 1;
            if check.first.len() < 10 {
                check.first.push(format!("[row {i}, col {j}] expected {want}, got {g}"));
            }
        }
    }
    check
}
