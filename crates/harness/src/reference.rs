//! CPU references and inputs for the reductions and scans of samples 02 and 03, shaped so
//! that a check can fail: float inputs whose results are exact in f32 in any order of
//! operations (compared exactly), and one planted element that decides the result (the only
//! minimum, the only cleared bit, a value unlike its neighbour), so that a dropped workgroup or
//! a read shifted by one changes what the GPU returns.

use crate::compare::{compare_exact, compare_floats, Check};
use crate::random;

/// A reduction operator (the `OP_*` define of `glsl/include/reduce_op.glsl`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// An element type (the `TYPE_*` define of the shaders).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    F32,
    U32,
    I32,
}

/// The element types of samples 03 and 04 (`--type`): f32 (small-integer values, so sums and
/// counts are exact) or u32.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum F32OrU32 {
    F32,
    U32,
}

impl From<F32OrU32> for Ty {
    fn from(ty: F32OrU32) -> Self {
        match ty {
            F32OrU32::F32 => Ty::F32,
            F32OrU32::U32 => Ty::U32,
        }
    }
}

impl Op {
    /// Whether the sample runs this operation on this type: integer products of random data
    /// are almost always 0, and and/or/xor are bitwise.
    pub fn applies_to(self, ty: Ty) -> bool {
        match self {
            Op::Mul => ty == Ty::F32,
            Op::And | Op::Or | Op::Xor => ty != Ty::F32,
            _ => true,
        }
    }

    /// `OP_ADD`, `OP_MUL`, …
    pub fn define(self) -> &'static str {
        match self {
            Op::Add => "OP_ADD",
            Op::Mul => "OP_MUL",
            Op::Min => "OP_MIN",
            Op::Max => "OP_MAX",
            Op::And => "OP_AND",
            Op::Or => "OP_OR",
            Op::Xor => "OP_XOR",
        }
    }
}

impl Ty {
    /// `TYPE_F32`, `TYPE_U32`, `TYPE_I32`.
    pub fn define(self) -> &'static str {
        match self {
            Ty::F32 => "TYPE_F32",
            Ty::U32 => "TYPE_U32",
            Ty::I32 => "TYPE_I32",
        }
    }
}

/// The identity element's bits: the same values as IDENTITY in glsl/include/reduce_op.glsl.
pub fn identity(ty: Ty, op: Op) -> u32 {
    match (op, ty) {
        (Op::Add | Op::Or | Op::Xor, _) => 0,
        (Op::Mul, Ty::F32) => 1.0f32.to_bits(),
        (Op::Mul, _) => 1,
        (Op::Min, Ty::F32) => f32::INFINITY.to_bits(),
        (Op::Min, Ty::U32) => u32::MAX,
        (Op::Min, Ty::I32) => i32::MAX as u32,
        (Op::Max, Ty::F32) => f32::NEG_INFINITY.to_bits(),
        (Op::Max, Ty::U32) => 0,
        (Op::Max, Ty::I32) => i32::MIN as u32,
        (Op::And, _) => u32::MAX,
    }
}

/// What the input values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// Values whose result is exact in f32 in any order of operations (small integers for
    /// sums, ±1 and powers of two for products), and any bits for integers: compared exactly.
    Exact,
    /// f32 add only: real values in [-1, 1), compared within a stated rounding bound, and one
    /// planted value larger than any such bound (see [`reduce_input`]).
    Real,
}

/// Input bits for `n` elements, seeded. One element — at `planted` where the input is long
/// enough, else in the middle — holds the deciding value: the only minimum or maximum, the only
/// cleared (and) or set (or) bit 0, a factor 2 in products, and for sums a value unlike its
/// neighbour (so a read shifted by one changes the result). For real-valued sums that value is
/// [`planted_real`], which no rounding bound of [`check_reduce`] can hide.
pub fn reduce_input(ty: Ty, op: Op, kind: Inputs, n: usize, seed: u64, planted: usize) -> Vec<u32> {
    let bits = |xs: Vec<f32>| -> Vec<u32> { xs.iter().map(|x| x.to_bits()).collect() };
    let mut xs: Vec<u32> = match (ty, op) {
        (Ty::F32, Op::Add) if kind == Inputs::Real => bits(random::f32s(n, seed, -1.0, 1.0)),
        (Ty::F32, Op::Add) => bits(random::exact_sum_f32s(n, seed)),
        (Ty::F32, Op::Mul) => bits(random::exact_product_f32s(n, seed)),
        (Ty::F32, _) => bits(random::f32s(n, seed, -1.0, 1.0)),
        // and: bits 1..31 cleared here and there (bit 0 only at the planted element); or: set.
        (_, Op::And) => {
            random::u32s(n, seed, 1, 39).iter().map(|&k| if k < 32 { !(1 << k) } else { u32::MAX }).collect()
        }
        (_, Op::Or) => random::u32s(n, seed, 1, 39).iter().map(|&k| if k < 32 { 1 << k } else { 0 }).collect(),
        (Ty::U32, Op::Min) => random::u32s(n, seed, 1, u32::MAX),
        (Ty::U32, Op::Max) => random::u32s(n, seed, 0, u32::MAX - 1),
        (Ty::U32, _) => random::u32s(n, seed, 0, u32::MAX),
        (Ty::I32, Op::Min) => random::i32s(n, seed, i32::MIN + 1, i32::MAX).iter().map(|&x| x as u32).collect(),
        (Ty::I32, Op::Max) => random::i32s(n, seed, i32::MIN, i32::MAX - 1).iter().map(|&x| x as u32).collect(),
        (Ty::I32, _) => random::i32s(n, seed, i32::MIN, i32::MAX).iter().map(|&x| x as u32).collect(),
    };
    if n < 2 {
        return xs;
    }
    let at = if n > planted + 1 { planted } else { n / 2 };
    let next = xs.get(at + 1).copied().unwrap_or(0);
    xs[at] = match (ty, op) {
        (Ty::F32, Op::Add) if kind == Inputs::Real => planted_real(n).to_bits(),
        (Ty::F32, Op::Add) => (f32::from_bits(next) + 1.0).to_bits(), // within the exact total's spare units
        (_, Op::Add | Op::Xor) => next ^ 1,
        (_, Op::Mul) => 2.0f32.to_bits(),
        (_, Op::And) => !1,
        (_, Op::Or) => 1,
        (Ty::F32, Op::Min) => (-2.0f32).to_bits(),
        (Ty::F32, Op::Max) => 2.0f32.to_bits(),
        (Ty::U32, Op::Min) => 0,
        (Ty::U32, Op::Max) => u32::MAX,
        (Ty::I32, Op::Min) => i32::MIN as u32,
        (Ty::I32, Op::Max) => i32::MAX as u32,
    };
    if op == Op::Mul && at + 1 < n {
        xs[at + 1] = 1.0f32.to_bits(); // unlike the planted 2, for the shifted read
    }
    xs
}

/// The value planted in a real-valued sum of `n` elements: n rounded up to a power of two (exact
/// in f32), at least twice the sum of the other |x| < 1. The bound k·2^-24·Σ|x| of
/// [`check_reduce`] is then at most k·2^-23·P, below P for any chain k < 2^23, so a result that
/// lost the planted value (a dropped workgroup) or read its neighbour instead (a shifted read)
/// misses the sum by about P and fails, however long the chain.
pub fn planted_real(n: usize) -> f32 {
    n.max(2).next_power_of_two() as f32
}

/// Compare a reduction's result bits with the CPU: integers and exact float inputs exactly;
/// real float inputs against the f64 sum within the rounding bound of a summation whose longest
/// chain of sequential adds in one invocation is `chain`.
pub fn check_reduce(ty: Ty, op: Op, kind: Inputs, input: &[u32], got: u32, chain: u64) -> Check {
    match ty {
        Ty::F32 => {
            let xs: Vec<f64> = input.iter().map(|&b| f64::from(f32::from_bits(b))).collect();
            let want = match op {
                Op::Add => xs.iter().sum(),
                Op::Mul => xs.iter().product(),
                Op::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
                _ => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            };
            let got = [f32::from_bits(got)];
            if kind == Inputs::Exact {
                return compare_floats(&got, &[want], |_| 0.0, "exact (inputs whose result is exact in f32)");
            }
            // Rounding bound of a sum whose longest dependency chain is `chain` adds in one
            // invocation plus log2(n) tree levels: k·2^-24·Σ|x|.
            let k = chain as f64 + (xs.len().max(2) as f64).log2().ceil() + 2.0;
            let bound = k * f64::from(f32::EPSILON) / 2.0 * xs.iter().map(|x| x.abs()).sum::<f64>();
            let rule = format!("|got - f64 sum| <= {k}·2^-24·Σ|x| = {bound:.3e}");
            compare_floats(&got, &[want], |_| bound, &rule)
        }
        Ty::U32 => compare_exact(&[got], &[reduce_int(op, input, false)]),
        Ty::I32 => compare_exact(&[got as i32], &[reduce_int(op, input, true) as i32]),
    }
}

/// Integer reduction on the CPU over the input bits: wrapping arithmetic; `signed` decides
/// how min and max compare (add, and, or, xor give the same bits for u32 and i32).
fn reduce_int(op: Op, xs: &[u32], signed: bool) -> u32 {
    let ty = if signed { Ty::I32 } else { Ty::U32 };
    let order = |a: u32, b: u32| if signed { (a as i32).cmp(&(b as i32)) } else { a.cmp(&b) };
    xs.iter().fold(identity(ty, op), |a, &x| match op {
        Op::Add => a.wrapping_add(x),
        Op::Mul => a.wrapping_mul(x),
        Op::Min => std::cmp::min_by(a, x, |p, q| order(*p, *q)),
        Op::Max => std::cmp::max_by(a, x, |p, q| order(*p, *q)),
        Op::And => a & x,
        Op::Or => a | x,
        Op::Xor => a ^ x,
    })
}

/// Scan input bits for `n` elements, seeded: integers over their whole range (sums wrap), f32
/// small non-negative integers whose every prefix sum is exact in f32. Element `planted` (or
/// the middle of a shorter input) differs from its neighbour, so a read shifted by one changes
/// the scan.
pub fn scan_input(ty: Ty, n: usize, seed: u64, planted: usize) -> Vec<u32> {
    let mut xs: Vec<u32> = match ty {
        Ty::F32 => random::exact_sum_f32s(n, seed).iter().map(|x| x.to_bits()).collect(),
        Ty::U32 | Ty::I32 => random::u32s(n, seed, 0, u32::MAX),
    };
    if n >= 2 {
        let at = if n > planted + 1 { planted } else { n / 2 };
        let next = xs.get(at + 1).copied().unwrap_or(0);
        xs[at] = match ty {
            Ty::F32 => (f32::from_bits(next) + 1.0).to_bits(), // within the exact total's spare units
            Ty::U32 | Ty::I32 => next ^ 1,
        };
    }
    xs
}

/// Compare a prefix sum with the CPU, every element exactly: integers wrapping, f32 against the
/// f64 prefix sums, which [`scan_input`]'s values make exact in f32 too.
pub fn check_scan(ty: Ty, exclusive: bool, input: &[u32], got: &[u32]) -> Check {
    fn pick<T>(exclusive: bool, before: T, after: T) -> T {
        if exclusive {
            before
        } else {
            after
        }
    }
    match ty {
        Ty::U32 | Ty::I32 => {
            let mut running = 0u32;
            let want: Vec<u32> = input
                .iter()
                .map(|&x| {
                    let before = running;
                    running = running.wrapping_add(x);
                    pick(exclusive, before, running)
                })
                .collect();
            compare_exact(got, &want)
        }
        Ty::F32 => {
            let mut running = 0f64;
            let want: Vec<f64> = input
                .iter()
                .map(|&bits| {
                    let before = running;
                    running += f64::from(f32::from_bits(bits));
                    pick(exclusive, before, running)
                })
                .collect();
            let got: Vec<f32> = got.iter().map(|&b| f32::from_bits(b)).collect();
            compare_floats(&got, &want, |_| 0.0, "exact (integer inputs: every prefix is exact in f32)")
        }
    }
}

/// What a compaction keeps (04_compaction's `--form`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Keep `x < threshold`.
    Select,
    /// Keep where `flags[i] != 0`.
    Flags,
    /// Kept elements (`x < threshold`) in order at the front, the rest after them in reverse.
    Partition,
    /// Drop consecutive duplicates: keep `x[i]` unless it equals `x[i - 1]`.
    Unique,
}

impl Form {
    /// The shader define that selects the form (glsl/04_compaction/predicate.glsl).
    pub fn define(self) -> &'static str {
        match self {
            Form::Select => "FORM_SELECT",
            Form::Flags => "FORM_FLAGS",
            Form::Partition => "FORM_PARTITION",
            Form::Unique => "FORM_UNIQUE",
        }
    }
}

// ANCHOR: bytes
/// The fewest bytes a compaction must move: every element read, every kept one written (every
/// element for partition), and the flags read in the flags form.
pub fn compaction_bytes(form: Form, input: &CompactionInput, kept: u32) -> u64 {
    let n = input.data.len() as u64;
    match form {
        Form::Partition => 8 * n,
        Form::Flags => 8 * n + 4 * u64::from(kept),
        Form::Select | Form::Unique => 4 * n + 4 * u64::from(kept),
    }
}
// ANCHOR_END: bytes

/// A compaction's input: the elements' bits, the flags (flags form), the threshold's bits.
pub struct CompactionInput {
    pub data: Vec<u32>,
    pub flags: Vec<u32>,
    pub threshold_bits: u32,
}

/// Element values of the u32 compactions: 0..SCALE, so that a threshold of SCALE keeps all.
const SCALE: u32 = 1_000_000;

/// A seeded compaction input of `n` elements that keeps about `keep_percent` % of them: f32 in
/// [0, 1) or u32 in 0..10^6 against a threshold of that fraction; flags set with that
/// probability; for unique, runs of equal values that end with that probability. Around
/// `planted` (when it fits) element `planted` is kept and its neighbour is not, so that a
/// dropped workgroup or a read shifted by one changes what is kept.
pub fn compaction_input(form: Form, ty: Ty, keep_percent: u32, n: usize, seed: u64, planted: usize) -> CompactionInput {
    let fraction = f64::from(keep_percent.min(100)) / 100.0;
    let value = |u: u32| -> u32 {
        match ty {
            Ty::F32 => (f64::from(u) / f64::from(SCALE)) as f32,
            _ => return u,
        }
        .to_bits()
    };
    let threshold_bits = match ty {
        Ty::F32 => (fraction as f32).to_bits(),
        _ => (fraction * f64::from(SCALE)) as u32,
    };
    let draws = random::u32s(n, seed, 0, SCALE - 1);
    let cut = (fraction * f64::from(SCALE)) as u32;
    let mut data: Vec<u32> = match form {
        Form::Unique => {
            let mut r = random::rng(seed, 7);
            let mut current = 0;
            draws
                .iter()
                .map(|&u| {
                    if u < cut || current == 0 {
                        current = value(rand::Rng::random_range(&mut r, 0..SCALE)) | 1;
                        // never 0 bits
                    }
                    current
                })
                .collect()
        }
        _ => draws.iter().map(|&u| value(u)).collect(),
    };
    let mut flags: Vec<u32> = match form {
        Form::Flags => random::u32s(n, seed ^ 1, 0, SCALE - 1).iter().map(|&u| u32::from(u < cut)).collect(),
        _ => vec![0],
    };
    if n > planted + 1 && planted > 0 {
        match form {
            Form::Select | Form::Partition => {
                data[planted] = value(0); // kept at any threshold above 0
                data[planted + 1] = value(SCALE - 1); // rejected below 100 %
            }
            Form::Flags => {
                flags[planted] = 1;
                flags[planted + 1] = 0;
            }
            Form::Unique => {
                let (a, b) = (value(1), value(2));
                data[planted - 1] = a;
                data[planted] = b; // kept: unlike the one before
                data[planted + 1] = a; // kept too; read in place of `planted`, it would not be
            }
        }
    }
    CompactionInput { data, flags, threshold_bits }
}

/// The CPU's compaction of `input`: the kept elements in order, and the rejected ones in order.
pub fn compact(form: Form, ty: Ty, input: &CompactionInput) -> (Vec<u32>, Vec<u32>) {
    let below = |x: u32| match ty {
        Ty::F32 => f32::from_bits(x) < f32::from_bits(input.threshold_bits),
        _ => x < input.threshold_bits,
    };
    let (mut kept, mut rejected) = (Vec::new(), Vec::new());
    for (i, &x) in input.data.iter().enumerate() {
        let keep = match form {
            Form::Select | Form::Partition => below(x),
            Form::Flags => input.flags[i] != 0,
            Form::Unique => i == 0 || x != input.data[i - 1],
        };
        if keep {
            kept.push(x);
        } else {
            rejected.push(x);
        }
    }
    (kept, rejected)
}

/// Check a compaction's `output` (n elements, poisoned before the run) and reported `count`:
/// the count exactly; stable (`ordered`) output element by element, unordered output as a
/// multiset; past the kept elements, the rejected ones in reverse (partition) or the poison.
pub fn check_compaction(
    form: Form,
    ty: Ty,
    input: &CompactionInput,
    output: &[u32],
    count: u32,
    ordered: bool,
) -> Check {
    let (kept, rejected) = compact(form, ty, input);
    let mut check = compare_exact(&[count as usize], &[kept.len()]);
    check.rule = "kept count exact".into();
    if output.len() != input.data.len() {
        check.mismatches += 1;
        check.first.push(format!("output of {} elements for {} inputs", output.len(), input.data.len()));
    }
    if check.mismatches > 0 {
        return check;
    }
    let (front, back) = output.split_at(kept.len());
    let mut want_back: Vec<u32> = if form == Form::Partition {
        rejected.iter().rev().copied().collect()
    } else {
        vec![crate::POISON; back.len()]
    };
    let (mut got_front, mut want_front, mut got_back) = (front.to_vec(), kept, back.to_vec());
    if !ordered {
        got_front.sort_unstable();
        want_front.sort_unstable();
        got_back.sort_unstable();
        want_back.sort_unstable();
    }
    let front_check = compare_exact(&got_front, &want_front);
    let back_check = compare_exact(&got_back, &want_back);
    check.compared = output.len() + 1;
    check.mismatches += front_check.mismatches + back_check.mismatches;
    check.first.extend(front_check.first.into_iter().map(|m| format!("kept {m}")));
    check.first.extend(back_check.first.into_iter().map(|m| format!("after the kept {m}")));
    check.first.truncate(10);
    let tail = if form == Form::Partition { "rejected in reverse after them" } else { "poison after them" };
    check.rule =
        format!("count exact, kept elements {} exactly, {tail}", if ordered { "in order" } else { "as a multiset" });
    check
}

// ---- 05_atomics: slot allocation (append) and histograms ----

/// How histogram keys spread over the bins.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Every bin equally likely.
    Uniform,
    /// Zipf-like: bin k drawn with weight 1 / (k + 1).
    Skewed,
    /// 90 % of the keys in one bin (the middle one), the rest uniform.
    Hot,
}

/// `n` histogram keys in `0..bins`, spread as `spread`, but for the [`OUT_OF_RANGE_KEYS`] that
/// no bin holds (they must count nowhere) at the first, middle and last element (n ≥ 3). Keys `planted` and `planted + 1` are 0 and `bins - 1`, so that a read shifted by one
/// moves a count between two bins (bins > 1).
pub fn histogram_keys(spread: Spread, bins: u32, n: usize, seed: u64, planted: usize) -> Vec<u32> {
    use rand::Rng;
    let mut r = random::rng(seed, 11);
    let hot = bins / 2;
    let mut keys: Vec<u32> = match spread {
        Spread::Uniform => (0..n).map(|_| r.random_range(0..bins)).collect(),
        Spread::Hot => (0..n).map(|_| if r.random_range(0..10) < 9 { hot } else { r.random_range(0..bins) }).collect(),
        Spread::Skewed => {
            let cumulative: Vec<f64> = (0..bins)
                .scan(0.0, |sum, k| {
                    *sum += 1.0 / f64::from(k + 1);
                    Some(*sum)
                })
                .collect();
            let total = cumulative[cumulative.len() - 1];
            (0..n)
                .map(|_| {
                    let u = r.random::<f64>() * total;
                    (cumulative.partition_point(|&c| c <= u) as u32).min(bins - 1)
                })
                .collect()
        }
    };
    if n >= 3 {
        for (at, key) in [0, n / 2, n - 1].into_iter().zip(OUT_OF_RANGE_KEYS) {
            keys[at] = key(bins);
        }
    }
    if n > planted + 1 && planted > 0 {
        keys[planted] = 0;
        keys[planted + 1] = bins - 1;
    }
    keys
}

/// The keys outside `0..bins` that [`histogram_keys`] mixes in: the first past the last bin,
/// one far past it, and the largest u32 (what the histogram shader uses for "no key").
pub const OUT_OF_RANGE_KEYS: [fn(u32) -> u32; 3] = [|bins| bins, |bins| bins.saturating_mul(1000), |_| u32::MAX];

/// The histogram of `keys` over `bins` bins; keys outside `0..bins` count nowhere.
pub fn histogram(keys: &[u32], bins: u32) -> Vec<u32> {
    let mut counts = vec![0u32; bins as usize];
    for &k in keys {
        if let Some(count) = counts.get_mut(k as usize) {
            *count += 1;
        }
    }
    counts
}

/// Every bin of `got` against the CPU's histogram, exactly.
pub fn check_histogram(keys: &[u32], bins: u32, got: &[u32]) -> Check {
    let mut check = compare_exact(got, &histogram(keys, bins));
    check.rule = "every bin exact".into();
    check
}

/// Values for the append workload: element i is kept where `values[i] < threshold`.
pub struct AppendInput {
    pub values: Vec<u32>,
    pub threshold: u32,
}

/// `n` values uniform in `0..1 000 000`, `keep_percent` % of them below the threshold. Element
/// `planted` is kept and `planted + 1` rejected (at any ratio from 1 to 99 %), so that a read
/// shifted by one changes which indices are appended.
pub fn append_input(keep_percent: u32, n: usize, seed: u64, planted: usize) -> AppendInput {
    let mut values = random::u32s(n, seed ^ 5, 0, SCALE - 1);
    if n > planted + 1 && planted > 0 {
        values[planted] = 0;
        values[planted + 1] = SCALE - 1;
    }
    AppendInput { values, threshold: (f64::from(keep_percent.min(100)) / 100.0 * f64::from(SCALE)) as u32 }
}

/// The append workload's result: the counter must equal the number of kept elements, the
/// first `count` slots must hold each kept element's index exactly once (in any order), and
/// every slot after them must still hold the poison.
pub fn check_append(input: &AppendInput, slots: &[u32], count: u32) -> Check {
    let want: Vec<u32> =
        (0..input.values.len() as u32).filter(|&i| input.values[i as usize] < input.threshold).collect();
    let mut check = compare_exact(&[count as usize], &[want.len()]);
    check.rule = "counter exact".into();
    if check.mismatches > 0 || slots.len() < want.len() {
        return check;
    }
    let (front, back) = slots.split_at(want.len());
    let mut got = front.to_vec();
    got.sort_unstable();
    let front_check = compare_exact(&got, &want);
    let back_check = compare_exact(back, &vec![crate::POISON; back.len()]);
    check.compared = slots.len() + 1;
    check.mismatches += front_check.mismatches + back_check.mismatches;
    check.first.extend(front_check.first.into_iter().map(|m| format!("appended (sorted) {m}")));
    check.first.extend(back_check.first.into_iter().map(|m| format!("after the count {m}")));
    check.first.truncate(10);
    check.rule = "counter exact, every kept index in one slot, poison after them".into();
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLANTED: usize = 1025;

    /// The CPU's own result for `input`, as the GPU would return it.
    fn reduced(ty: Ty, op: Op, input: &[u32]) -> u32 {
        match ty {
            Ty::F32 => {
                let xs = input.iter().map(|&b| f64::from(f32::from_bits(b)));
                let r = match op {
                    Op::Add => xs.sum(),
                    Op::Mul => xs.product(),
                    Op::Min => xs.fold(f64::INFINITY, f64::min),
                    _ => xs.fold(f64::NEG_INFINITY, f64::max),
                };
                (r as f32).to_bits()
            }
            _ => reduce_int(op, input, ty == Ty::I32),
        }
    }

    #[test]
    fn a_dropped_workgroup_or_shifted_read_changes_every_reduction() {
        for ty in [Ty::F32, Ty::U32, Ty::I32] {
            for op in [Op::Add, Op::Mul, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor] {
                if !op.applies_to(ty) {
                    continue;
                }
                let input = reduce_input(ty, op, Inputs::Exact, 100_003, 7, PLANTED);
                let right = reduced(ty, op, &input);
                assert!(check_reduce(ty, op, Inputs::Exact, &input, right, 1).passed(), "{ty:?} {op:?}");
                // The 256 elements around the planted one, dropped.
                let dropped: Vec<u32> = [&input[..1024], &input[1280..]].concat();
                let wrong = reduced(ty, op, &dropped);
                assert!(!check_reduce(ty, op, Inputs::Exact, &input, wrong, 1).passed(), "drop {ty:?} {op:?}");
                // The planted element read from its neighbour (sum-like operations).
                if matches!(op, Op::Add | Op::Mul | Op::Xor) {
                    let mut shifted = input.clone();
                    shifted[PLANTED] = input[PLANTED + 1];
                    let wrong = reduced(ty, op, &shifted);
                    assert!(!check_reduce(ty, op, Inputs::Exact, &input, wrong, 1).passed(), "shift {ty:?} {op:?}");
                }
            }
        }
    }

    /// A dropped 256-element workgroup or a shifted read in a real-valued sum exceeds the
    /// rounding bound, at a small size and at the largest lavapipe holds (2^25), for the
    /// longest chains a reduce here has (fast with one workgroup: n/256 + 4 adds).
    #[test]
    fn a_dropped_workgroup_or_shifted_read_fails_real_sums_too() {
        let sum_of = |xs: &[u32]| xs.iter().map(|&b| f64::from(f32::from_bits(b))).sum::<f64>();
        for n in [100_003usize, 1 << 25] {
            let input = reduce_input(Ty::F32, Op::Add, Inputs::Real, n, 7, PLANTED);
            for chain in [1, 68, n as u64 / 256 + 4] {
                let right = (sum_of(&input) as f32).to_bits();
                assert!(check_reduce(Ty::F32, Op::Add, Inputs::Real, &input, right, chain).passed(), "n={n}");
                let dropped = sum_of(&input) - sum_of(&input[1024..1280]);
                let check = check_reduce(Ty::F32, Op::Add, Inputs::Real, &input, (dropped as f32).to_bits(), chain);
                assert!(!check.passed(), "drop n={n} chain={chain}: {}", check.rule);
                let shifted = sum_of(&input) - f64::from(f32::from_bits(input[PLANTED]))
                    + f64::from(f32::from_bits(input[PLANTED + 1]));
                let check = check_reduce(Ty::F32, Op::Add, Inputs::Real, &input, (shifted as f32).to_bits(), chain);
                assert!(!check.passed(), "shift n={n} chain={chain}: {}", check.rule);
            }
        }
    }

    #[test]
    fn exact_float_inputs_allow_no_rounding_slack() {
        let input = reduce_input(Ty::F32, Op::Add, Inputs::Exact, 4096, 3, PLANTED);
        let right = reduced(Ty::F32, Op::Add, &input);
        let one_more = (f32::from_bits(right) + 1.0).to_bits();
        assert!(!check_reduce(Ty::F32, Op::Add, Inputs::Exact, &input, one_more, 1).passed());
    }

    #[test]
    fn real_inputs_pass_within_the_stated_bound_only() {
        let input = reduce_input(Ty::F32, Op::Add, Inputs::Real, 1 << 16, 3, PLANTED);
        let sum: f64 = input.iter().map(|&b| f64::from(f32::from_bits(b))).sum();
        assert!(check_reduce(Ty::F32, Op::Add, Inputs::Real, &input, (sum as f32).to_bits(), 1).passed());
        assert!(sum.abs() > 1.0, "seed 3 gives a sum far from 0: {sum}");
        assert!(!check_reduce(Ty::F32, Op::Add, Inputs::Real, &input, 0f32.to_bits(), 1).passed());
        assert!(!check_reduce(Ty::F32, Op::Add, Inputs::Real, &input, ((sum + 10.0) as f32).to_bits(), 1).passed());
    }

    #[test]
    fn scans_catch_a_dropped_tile_and_a_shifted_read() {
        for ty in [Ty::U32, Ty::F32] {
            for exclusive in [false, true] {
                let input = scan_input(ty, 20_000, 5, 12_288);
                let scan = |xs: &[u32]| -> Vec<u32> {
                    let mut run = 0f64;
                    let mut run_u = 0u32;
                    xs.iter()
                        .map(|&x| {
                            let (b, bu) = (run, run_u);
                            run += f64::from(f32::from_bits(x));
                            run_u = run_u.wrapping_add(x);
                            match (ty, exclusive) {
                                (Ty::F32, true) => (b as f32).to_bits(),
                                (Ty::F32, false) => (run as f32).to_bits(),
                                (_, true) => bu,
                                _ => run_u,
                            }
                        })
                        .collect()
                };
                assert!(check_scan(ty, exclusive, &input, &scan(&input)).passed());
                let mut dropped = input.clone();
                dropped[8192..16384].iter_mut().for_each(|x| *x = if ty == Ty::F32 { 0f32.to_bits() } else { 0 });
                let mut wrong = scan(&input);
                wrong[16384..].copy_from_slice(&scan(&dropped)[16384..]);
                assert!(!check_scan(ty, exclusive, &input, &wrong).passed(), "drop {ty:?}");
                let mut shifted = input.clone();
                shifted[12_288] = input[12_289];
                assert!(!check_scan(ty, exclusive, &input, &scan(&shifted)).passed(), "shift {ty:?}");
            }
        }
    }
    #[test]
    fn histogram_keys_stay_in_range_and_hot_piles_up() {
        for spread in [Spread::Uniform, Spread::Skewed, Spread::Hot] {
            for bins in [1, 16, 4096] {
                let keys = histogram_keys(spread, bins, 10_000, 3, PLANTED);
                let outside = keys.iter().filter(|&&k| k >= bins).count();
                assert_eq!(outside, OUT_OF_RANGE_KEYS.len(), "{spread:?} {bins}");
                assert!(keys.contains(&u32::MAX) && keys.contains(&bins));
                assert_eq!(histogram(&keys, bins).iter().sum::<u32>() as usize, 10_000 - outside);
            }
        }
        let hot = histogram(&histogram_keys(Spread::Hot, 256, 100_000, 3, PLANTED), 256);
        assert!(hot[128] > 89_000, "{}", hot[128]);
        let skewed = histogram(&histogram_keys(Spread::Skewed, 256, 100_000, 3, PLANTED), 256);
        assert!(skewed[0] > 10 * skewed[100], "{} {}", skewed[0], skewed[100]);
    }

    #[test]
    fn append_check_fails_on_a_lost_or_doubled_slot() {
        let input = append_input(50, 5000, 9, PLANTED);
        let want: Vec<u32> = (0..5000).filter(|&i| input.values[i as usize] < input.threshold).collect();
        let mut slots = vec![crate::POISON; 5000];
        slots[..want.len()].copy_from_slice(&want);
        slots[..want.len()].reverse();
        assert!(check_append(&input, &slots, want.len() as u32).passed());
        let mut doubled = slots.clone();
        doubled[1] = doubled[0];
        assert!(!check_append(&input, &doubled, want.len() as u32).passed());
        assert!(!check_append(&input, &slots, want.len() as u32 - 1).passed());
        let mut past = slots.clone();
        past[want.len()] = 0;
        assert!(!check_append(&input, &past, want.len() as u32).passed());
    }
}
