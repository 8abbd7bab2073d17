//! 03_scan's tests, on the default device.

use super::*;
use clap::Parser as _;

// ANCHOR: shape_test
/// On the default device (lavapipe in CI; fails, never passes, without one): a single pass
/// built for a look-back subgroup of twice the device's subgroup size lays out a tile the
/// device's subgroups do not have (segment_values too short, data invocations miscounted).
/// Its check of its subgroups must catch that and hand back no scan: a SKIP with the reason,
/// never a wrong result or a write out of bounds.
#[test]
fn a_single_pass_built_for_other_subgroups_does_nothing() {
    let ctx = Context::new(Default::default()).expect("a Vulkan device (lavapipe in CI)");
    let lanes = 2 * ctx.fixed_subgroup_size().expect("a fixed subgroup size");
    let assumed = lanes.to_string();
    let args = Args::parse_from([
        "03_scan",
        "--variant",
        "single-pass",
        "--lookback",
        "subgroup",
        "--assume-lookback-lanes",
        &assumed,
    ]);
    let shape = TileShape { workgroup: 512.max(4 * lanes), items: 12 };
    let word = harness::lookback::state_word(&ctx, None, StateWord::TwoWords32).expect("a state word");
    let scanner = Scanner::new(&ctx, Variant::SinglePass, F32OrU32::U32, false, shape, word, None, &args)
        .expect("build the single pass")
        .expect("a single pass this device can build");
    let input = reference::scan_input(F32OrU32::U32.into(), 100_003, 1, PLANTED);
    let mut b = scanner.buffers(&input).expect("buffers");
    let scanned = scanner.scan(&mut b, &input).expect("the scan runs");
    let reason = scanned.wrong_shape.expect("the kernel's own check catches the subgroup size");
    assert!(reason.contains(&format!("not the {lanes}")), "{reason}");
}
// ANCHOR_END: shape_test
