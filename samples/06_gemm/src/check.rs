//! Inputs and checks of 06_gemm: seeded matrices (real values, or small integers whose every
//! sum is exact in f32), the f64 CPU reference, and the comparison with a stated tolerance.
//! Values are always exact in the element type (rounded to it on the CPU first), so every
//! kernel of a type shares one reference.

use crate::coopmat::Out;
use crate::simt::{Elem, FaultSite, Shape};
use harness::Check;

/// What the inputs hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Uniform in [-1, 1), rounded to the element type (f16: multiples of 1/1024, bf16: of
    /// 1/128); compared within a rounding bound derived from K (int8: integers in -127..=127,
    /// compared exactly).
    Real,
    /// Small integers: every partial sum is an integer far below 2^24, so the result is exact
    /// in f32 whatever the order of the additions; compared exactly (after rounding to a 16-bit
    /// D). A and B in -2..=2, C in -4..=4; with 16-bit inputs A and B in -1..=1 and C in -2..=2,
    /// so that D stays within the integers a 16-bit D holds exactly (f16: |D| ≤ 2048).
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
        let ints = |range: i32| harness::random::i32s(len, seed, -range, range).iter().map(|&v| v as f32).collect();
        match (kind, elem) {
            (Kind::Real, Elem::Int8) => ints(127),
            (Kind::Real, _) => {
                let xs = harness::random::f32s(len, seed, -1.0, 1.0);
                // Significand bits the values keep: f16 has 11, bf16 8 (values below 1).
                let scale = match elem {
                    Elem::F32 | Elem::Int8 => return xs,
                    Elem::F16 => 1024.0,
                    Elem::Bf16 => 128.0,
                };
                xs.iter().map(|x| (x * scale).round() / scale).collect()
            }
            (Kind::Exact, Elem::F16 | Elem::Bf16) => ints(range / 2),
            (Kind::Exact, _) => ints(range),
        }
    };
    // int8 runs compute D = A·B exactly in s32.
    let (alpha, beta) = if elem == Elem::Int8 { (1.0, 0.0) } else { (alpha, beta) };
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

/// bf16 bits of `x`, which must be exact in bf16 (its low 16 bits zero): every bf16 input
/// this sample makes is.
pub fn bf16_bits(x: f32) -> u16 {
    debug_assert!(x.to_bits() & 0xffff == 0, "{x} is not exact in bf16");
    (x.to_bits() >> 16) as u16
}

/// The bits `x` has as an element of `elem` (f16 and bf16 in the low 16 bits, int8 in the
/// low 8); `x` must be exact in it.
pub fn elem_bits(x: f32, elem: Elem) -> u32 {
    match elem {
        Elem::F32 => x.to_bits(),
        Elem::F16 => u32::from(f16_bits(x)),
        Elem::Bf16 => u32::from(bf16_bits(x)),
        Elem::Int8 => u32::from(x as i8 as u8),
    }
}

/// The value of IEEE binary16 bits.
pub fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (exponent, fraction) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    sign * match exponent {
        0 => fraction * 2f64.powi(-24),
        31 if fraction == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + fraction) * 2f64.powi(e - 25),
    }
}

/// The first `len` elements of D as read back (32-bit words), widened to f64 as `out` says.
pub fn widen(words: &[u32], out: Out, len: usize) -> Vec<f64> {
    (0..len)
        .map(|i| match out {
            Out::F32 => f64::from(f32::from_bits(words[i])),
            Out::S32 => f64::from(words[i] as i32),
            Out::F16 => f16_value((words[i / 2] >> (16 * (i % 2))) as u16),
            Out::Bf16 => f64::from(f32::from_bits((words[i / 2] >> (16 * (i % 2))) << 16)),
        })
        .collect()
}

/// `x` rounded to nearest even with `bits` significant bits and normal exponents down to
/// `min_exp` (below it, the quantum of the subnormals), `max` the largest finite value: how a
/// 16-bit float D holds a value (f16: 11, -14, 65504; bf16: 8, -126, its max).
fn round_to(x: f64, bits: i32, min_exp: i32, max: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let exp = (((x.abs().to_bits() >> 52) & 0x7ff) as i32 - 1023).max(min_exp);
    let quantum = 2f64.powi(exp - (bits - 1));
    let r = (x / quantum).round_ties_even() * quantum;
    // Past the largest finite value by half its spacing or more, a value rounds to infinity.
    if r.abs() > max {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

impl Out {
    /// `x` as D of this type holds it (f32 and s32: unchanged, the sums are exact there).
    fn round(self, x: f64) -> f64 {
        match self {
            Out::F32 | Out::S32 => x,
            Out::F16 => round_to(x, 11, -14, 65504.0),
            Out::Bf16 => round_to(x, 8, -126, f64::from(f32::from_bits(0x7f7f_0000))),
        }
    }

    /// The relative error of rounding to this type (half an ulp) and its smallest spacing's
    /// half, for values near zero.
    fn rounding(self) -> (f64, f64) {
        match self {
            Out::F32 | Out::S32 => (0.0, 0.0),
            Out::F16 => (2f64.powi(-11), 2f64.powi(-25)),
            Out::Bf16 => (2f64.powi(-8), 2f64.powi(-134)),
        }
    }
}

/// How a kernel rounds: the unit roundoff of its accumulation and the type of D.
#[derive(Clone, Copy, Debug)]
pub struct Rounding {
    /// 2^-24 for an f32 sum rounded to nearest (the SIMT kernels), 2^-23 for the matrix units,
    /// which align and truncate their addends instead of rounding them.
    pub unit: f64,
    pub out: Out,
}

impl Rounding {
    pub const SIMT: Rounding = Rounding { unit: 1.0 / 16_777_216.0, out: Out::F32 };

    /// A tensor-core kernel writing `out`.
    pub fn matrix_units(out: Out) -> Rounding {
        Rounding { unit: 2f64.powi(-23), out }
    }
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

/// D against the reference: exactly (`Kind::Exact`, int8), after rounding the reference to a
/// 16-bit D; or within (K+4)·u·(|α|·Σ|a·b| + |β·c|), the worst-case rounding of a sum of K
/// products in any order plus the epilogue (u: the accumulation's unit roundoff), plus half an
/// ulp of a 16-bit D relative to the value.
pub fn compare(shape: Shape, kind: Kind, got: &[f64], wants: &[Want], rounding: Rounding) -> Check {
    let out = rounding.out;
    let exact = kind == Kind::Exact || out == Out::S32;
    let unit = (f64::from(shape.k) + 4.0) * rounding.unit;
    let (rel, tiny) = out.rounding();
    let u = if rounding.unit < 1e-7 { "2^-24" } else { "2^-23" };
    let rule = match (exact, out) {
        (true, Out::F16 | Out::Bf16) => format!("exact (small integers; the reference rounded to {})", out.name()),
        (true, _) => "exact (small integers)".to_string(),
        (false, Out::F16 | Out::Bf16) => format!(
            "|got-want| <= (K+4)·{u}·(|α|·Σ|a·b| + |β·c|) + {} ulp of {} (|want|/2^{}), K = {}",
            "half an",
            out.name(),
            -rel.log2(),
            shape.k
        ),
        (false, _) => format!("|got-want| <= (K+4)·{u}·(|α|·Σ|a·b| + |β·c|), K = {}", shape.k),
    };
    let mut check = Check { compared: wants.len(), rule, ..Default::default() };
    for &(i, j, want, abs) in wants {
        let g = got[i as usize * shape.n as usize + j as usize];
        let ok = if exact {
            g == out.round(want)
        } else {
            let tolerance = unit * abs * (1.0 + rel) + rel * want.abs() + tiny;
            (g - want).abs() <= tolerance
        };
        if !ok {
            check.mismatches += 1;
            if check.first.len() < 10 {
                check.first.push(format!("[row {i}, col {j}] expected {want}, got {g}"));
            }
        }
    }
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bit_rounding_is_to_nearest_even() {
        assert_eq!(Out::F16.round(2049.0), 2048.0);
        assert_eq!(Out::F16.round(2051.0), 2052.0);
        assert_eq!(Out::F16.round(1023.5), 1023.5);
        assert_eq!(Out::F16.round(65520.0), f64::INFINITY);
        assert_eq!(Out::F16.round(2f64.powi(-25)), 0.0);
        assert_eq!(Out::F16.round(3.0 * 2f64.powi(-25)), 2f64.powi(-23));
        assert_eq!(Out::Bf16.round(257.0), 256.0);
        assert_eq!(Out::Bf16.round(259.0), 260.0);
        assert_eq!(Out::S32.round(16_777_217.0), 16_777_217.0);
    }

    #[test]
    fn sixteen_bit_values_widen() {
        assert_eq!(f16_value(0xbc00), -1.0);
        assert_eq!(f16_value(0x0001), 2f64.powi(-24));
        assert_eq!(f16_value(0x7bff), 65504.0);
        let words = [0x3c00_c000, 0x0000_3f80];
        assert_eq!(widen(&words, Out::F16, 3), [-2.0, 1.0, 1.875]);
        assert_eq!(widen(&words, Out::Bf16, 3), [-2.0, 0.0078125, 1.0]);
        assert_eq!(widen(&[0x3f80_0000, 0xffff_ffff], Out::S32, 2), [1_065_353_216.0, -1.0]);
    }

    #[test]
    fn element_bits() {
        assert_eq!(elem_bits(-1.0, Elem::F16), 0xbc00);
        assert_eq!(elem_bits(0.5, Elem::Bf16), 0x3f00);
        assert_eq!(elem_bits(-2.0, Elem::Int8), 0xfe);
    }

    #[test]
    fn every_input_is_exact_in_its_type() {
        let shape = Shape { m: 9, n: 7, k: 33 };
        for elem in [Elem::F16, Elem::Bf16, Elem::Int8] {
            for kind in [Kind::Real, Kind::Exact] {
                let x = inputs(shape, elem, kind, 5, 1.5, -0.5);
                for &v in x.a.iter().chain(&x.b) {
                    let back = match elem {
                        Elem::Bf16 => f32::from_bits(elem_bits(v, elem) << 16),
                        Elem::Int8 => elem_bits(v, elem) as u8 as i8 as f32,
                        _ => v,
                    };
                    assert_eq!(back, v, "{elem:?} {kind:?}");
                }
            }
        }
    }

    #[test]
    fn a_planted_fault_fails_the_check() {
        let shape = Shape { m: 5, n: 6, k: 7 };
        let x = inputs(shape, Elem::F16, Kind::Exact, 3, 1.5, -0.5);
        let sample = Sample::of(shape, 3);
        let wants = reference(shape, &x, &sample);
        let mut got: Vec<f64> = vec![0.0; 30];
        for &(i, j, want, _) in &wants {
            got[i as usize * 6 + j as usize] = Out::F16.round(want);
        }
        let rounding = Rounding::matrix_units(Out::F16);
        assert!(compare(shape, Kind::Exact, &got, &wants, rounding).passed());
        let site = FaultSite::of(shape);
        got[(site.m * 6 + site.n) as usize] += 1.0;
        assert!(!compare(shape, Kind::Exact, &got, &wants, rounding).passed());
        assert!(!compare(shape, Kind::Real, &got, &wants, rounding).passed());
    }
}
