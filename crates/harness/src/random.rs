//! Seeded random inputs: the same seed gives the same inputs on every machine.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A generator for `seed`, distinct per `stream` so that two inputs of one run differ.
pub fn rng(seed: u64, stream: u64) -> StdRng {
    StdRng::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// `n` integers uniform in `lo..=hi`.
pub fn u32s(n: usize, seed: u64, lo: u32, hi: u32) -> Vec<u32> {
    let mut r = rng(seed, 1);
    (0..n).map(|_| r.random_range(lo..=hi)).collect()
}

/// `n` integers uniform in `lo..=hi`.
pub fn i32s(n: usize, seed: u64, lo: i32, hi: i32) -> Vec<i32> {
    let mut r = rng(seed, 2);
    (0..n).map(|_| r.random_range(lo..=hi)).collect()
}

/// `n` floats uniform in `lo..hi`.
pub fn f32s(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut r = rng(seed, 3);
    (0..n).map(|_| r.random_range(lo..hi)).collect()
}

/// The largest total [`exact_sum_f32s`] allows: every integer up to 2^24 is an f32, and a few
/// units stay free for a sample to plant a value.
pub const EXACT_F32_TOTAL: u32 = (1 << 24) - 16;

/// `n` small non-negative integers as f32 whose total is at most [`EXACT_F32_TOTAL`]: every
/// partial sum, taken in any order, is then an integer below 2^24, so a float sum or scan of
/// them is exact whatever order the GPU adds in, and can be compared exactly. Values are
/// 0..=15 while 15·n fits the total, else 0 or 1 (ones with probability total/2n, at least 1/4
/// of that budget used), and any value that would pass the total is 0.
pub fn exact_sum_f32s(n: usize, seed: u64) -> Vec<f32> {
    let mut r = rng(seed, 5);
    let budget = u64::from(EXACT_F32_TOTAL);
    let mut total = 0u64;
    let value = |r: &mut StdRng| -> u64 {
        if 15 * n as u64 <= budget {
            r.random_range(0..=15)
        } else {
            u64::from(r.random_bool((budget as f64 / 2.0 / n as f64).min(0.5)))
        }
    };
    (0..n)
        .map(|_| {
            let v = value(&mut r);
            let v = if total + v <= budget { v } else { 0 };
            total += v;
            v as f32
        })
        .collect()
}

/// `n` factors whose product is exact in f32 in any order of multiplication: 1, or -1 with
/// probability 1/16, and up to 48 factors of 2 at random places, so every partial product is
/// ±2^k with k ≤ 48 (room for a sample to plant one more 2).
pub fn exact_product_f32s(n: usize, seed: u64) -> Vec<f32> {
    let mut r = rng(seed, 6);
    let mut xs: Vec<f32> = (0..n).map(|_| if r.random_ratio(1, 16) { -1.0 } else { 1.0 }).collect();
    for _ in 0..(n / 1024).min(48) {
        xs[r.random_range(0..n)] = 2.0;
    }
    xs
}

/// A size in `lo..=hi` drawn from the seed (the "random size" of a test run).
pub fn size(seed: u64, lo: u64, hi: u64) -> u64 {
    rng(seed, 4).random_range(lo..=hi)
}

#[cfg(test)]
mod tests {
    #[test]
    fn exact_sums_stay_below_2_pow_24() {
        for n in [0usize, 7, 1 << 10, 1_000_003, 20_000_000] {
            let xs = super::exact_sum_f32s(n, 3);
            let total: f64 = xs.iter().map(|&x| f64::from(x)).sum();
            assert!(total <= f64::from(super::EXACT_F32_TOTAL), "n={n}: total {total}");
            assert!(xs.iter().all(|&x| x >= 0.0 && x.fract() == 0.0));
            if n >= 1 << 10 {
                assert!(total > 0.0 && xs.iter().filter(|&&x| x > 0.0).count() > n / 8, "n={n}: too sparse");
            }
        }
    }

    #[test]
    fn same_seed_same_values() {
        assert_eq!(super::u32s(5, 42, 0, 100), super::u32s(5, 42, 0, 100));
        assert_ne!(super::u32s(5, 42, 0, u32::MAX), super::u32s(5, 43, 0, u32::MAX));
    }
}
