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

/// A size in `lo..=hi` drawn from the seed (the "random size" of a test run).
pub fn size(seed: u64, lo: u64, hi: u64) -> u64 {
    rng(seed, 4).random_range(lo..=hi)
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_seed_same_values() {
        assert_eq!(super::u32s(5, 42, 0, 100), super::u32s(5, 42, 0, 100));
        assert_ne!(super::u32s(5, 42, 0, u32::MAX), super::u32s(5, 43, 0, u32::MAX));
    }
}
