//! GPU results against the CPU reference: integers exactly, floats within a stated tolerance.

use std::fmt::Debug;

const SHOWN: usize = 10;

/// The outcome of one comparison.
#[derive(Clone, Debug, Default)]
pub struct Check {
    pub compared: usize,
    pub mismatches: usize,
    /// The first mismatches as `[index] expected E, got G`.
    pub first: Vec<String>,
    /// How the comparison was made ("exact", "|got-want| <= 1e-6·Σ|x|", ...).
    pub rule: String,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    fn push(&mut self, index: usize, expected: impl Debug, got: impl Debug) {
        self.mismatches += 1;
        if self.first.len() < SHOWN {
            self.first.push(format!("[{index}] expected {expected:?}, got {got:?}"));
        }
    }
}

/// Element-wise exact comparison (also of lengths).
pub fn compare_exact<T: PartialEq + Debug>(got: &[T], expected: &[T]) -> Check {
    let mut check = Check { compared: expected.len(), rule: "exact".into(), ..Default::default() };
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        if g != e {
            check.push(i, e, g);
        }
    }
    if got.len() != expected.len() {
        check.push(
            got.len().min(expected.len()),
            format!("length {}", expected.len()),
            format!("length {}", got.len()),
        );
    }
    check
}

/// Floats against an f64 reference: element `i` passes when `|got - expected| <= tolerance(i)`;
/// NaN and infinities never pass unless expected exactly. `rule` states the tolerance.
pub fn compare_floats(got: &[f32], expected: &[f64], tolerance: impl Fn(usize) -> f64, rule: &str) -> Check {
    let mut check = Check { compared: expected.len(), rule: rule.into(), ..Default::default() };
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let g64 = f64::from(g);
        let ok = if e.is_finite() { g64.is_finite() && (g64 - e).abs() <= tolerance(i) } else { g64 == e };
        if !ok {
            check.push(i, e, g);
        }
    }
    if got.len() != expected.len() {
        check.push(
            got.len().min(expected.len()),
            format!("length {}", expected.len()),
            format!("length {}", got.len()),
        );
    }
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_reports_first_mismatches_with_index() {
        let want: Vec<u32> = (0..100).collect();
        let mut got = want.clone();
        for i in (0..100).step_by(7) {
            got[i] += 1;
        }
        let c = compare_exact(&got, &want);
        assert_eq!(c.mismatches, 15);
        assert_eq!(c.first.len(), 10);
        assert_eq!(c.first[1], "[7] expected 7, got 8");
    }

    #[test]
    fn floats_use_tolerance_and_reject_nan() {
        let c = compare_floats(&[1.0, 2.0001, f32::NAN], &[1.0, 2.0, 3.0], |_| 1e-3, "1e-3");
        assert_eq!(c.mismatches, 1);
        assert!(c.first[0].starts_with("[2]"));
    }

    #[test]
    fn length_mismatch_fails() {
        assert!(!compare_exact(&[1u32], &[1u32, 2]).passed());
    }
}
