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

/// On the default device: the simple single pass run three times on the same buffers, each
/// time on a new input, gives the right scan every time; then a run over the first tile alone
/// leaves every other state zero. Its states and counters are zeroed before each run: without
/// that a run claims tickets past its tiles, or a walk may stop at a prefix of the run before
/// (a race the scans above need not lose, hence the last run).
#[test]
fn the_simple_single_pass_repeated_on_its_buffers_stays_correct() {
    let ctx = Context::new(Default::default()).expect("a Vulkan device (lavapipe in CI)");
    let args = Args::parse_from(["03_scan", "--variant", "single-pass-simple"]);
    let word = state_word(Variant::SinglePassSimple, &ctx, &args.tile).expect("64-bit buffer atomics");
    let scanner =
        Scanner::new(&ctx, Variant::SinglePassSimple, F32OrU32::U32, false, REDUCE_THEN_SCAN_TILE, word, None, &args)
            .expect("build the simple single pass")
            .expect("a simple single pass this device can build");
    let input = |seed| reference::scan_input(F32OrU32::U32.into(), 100_003, seed, PLANTED);
    let mut b = scanner.buffers(&input(1)).expect("buffers");
    for seed in 1..=3 {
        let input = input(seed);
        b.input.upload(&input).expect("upload the input");
        let scanned = scanner.scan(&mut b, &input).expect("the scan runs");
        assert!(!scanned.fell_back && scanned.wrong_shape.is_none(), "run {seed} finished cleanly");
        let check = reference::check_scan(F32OrU32::U32.into(), false, &input, &scanned.output);
        assert!(check.passed(), "run {seed}: {:?}", check.first);
    }
    let mut rec = Recorder::new(&ctx).expect("recorder");
    scanner.record(&mut rec, &b, 1, b.tile_states.next_run()).expect("record a run of one element");
    rec.submit_and_wait().expect("the run of one tile");
    let states = b.simple_states.download().expect("read the tile states");
    assert!(states.len() > 1 && states[1..].iter().all(|&s| s == 0), "states left from the runs before");
}

/// What the host concludes from the simple single pass's counters and states.
#[test]
fn the_simple_single_pass_is_trusted_only_when_every_tile_is_done() {
    let prefix = 2u64 << 32 | 17; // HAS_PREFIX above a value
    let states = [prefix; 3];
    assert_eq!(simple::finished(&[3, 3, 0], &states, 3, 256), Finished::Clean);
    assert_eq!(simple::finished(&[3, 3, 1], &states, 3, 256), Finished::Stalled); // a walk gave up
    assert_eq!(simple::finished(&[4, 3, 0], &states, 3, 256), Finished::Stalled); // a ticket too many
    assert_eq!(simple::finished(&[3, 2, 0], &states, 3, 256), Finished::Stalled); // a tile unwritten
    let aggregate_only = [prefix, 1u64 << 32 | 5, prefix];
    assert_eq!(simple::finished(&[3, 3, 0], &aggregate_only, 3, 256), Finished::Stalled);
    let shape = harness::lookback::WRONG_SHAPE | 8 << 8 | 16 << 16; // 16 subgroups of 8: not 256
    assert!(matches!(simple::finished(&[0, 0, shape], &states, 3, 256), Finished::WrongShape(_)));
}
