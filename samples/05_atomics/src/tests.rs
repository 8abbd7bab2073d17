//! 05_atomics' tests, on the default device and on devices that model other subgroup behaviour.

use super::*;
use clap::Parser as _;
use vk_compute::{ContextOptions, SubgroupOps};

/// The histogram of `keys` by `variant` on `ctx`, checked against the CPU.
fn histogram(ctx: &Context, variant: Variant, keys: Vec<u32>, bins: u32, flags: &[&str]) -> harness::Check {
    let args = Args::try_parse_from(["05_atomics", "--bins", &bins.to_string()].iter().chain(flags)).expect("args");
    let runner = Runner::new(ctx, Workload::Histogram, variant, &args).expect("pipeline").expect("supported");
    let case = Case::Bins(bins, Spread::Uniform);
    let input = Input::Keys(keys);
    let device_input = Buffer::from_slice(ctx, "input", input.data()).expect("input");
    let mut buffers = runner.buffers(&input, case).expect("buffers");
    runner.checked_run(&device_input, &mut buffers, &input, case).expect("run").0
}

/// Runs on the default device (lavapipe in CI); fails, never passes, without one. Under
/// SPLIT_LANES (the lanes of a divergent branch run in two groups), the match loop entered
/// by each half on its own counts right; the leader picked inside `if (waiting)` does not,
/// as soon as that branch's lanes split too. Without the split, lavapipe runs a divergent
/// branch's lanes as one group and both count right.
#[test]
fn the_match_loop_counts_right_however_the_lanes_are_grouped() {
    let keys = reference::histogram_keys(Spread::Uniform, 16, 100_003, 5, PLANTED);
    for hidden in [0, SubgroupOps::SHUFFLE] {
        let ctx = Context::new(ContextOptions { hidden_ops: hidden, ..Default::default() })
            .expect("a Vulkan device (lavapipe in CI)");
        for variant in [Variant::Subgroup, Variant::SharedSubgroup] {
            let at = |flags: &[&str]| histogram(&ctx, variant, keys.clone(), 16, flags);
            let label = format!("{variant:?}, hidden ops {hidden:#x}");
            assert!(at(&[]).passed(), "{label}");
            assert!(at(&["--split-lanes"]).passed(), "{label}: split lanes");
            assert!(at(&["--leader-in-branch"]).passed(), "{label}: leader in a branch");
            assert!(!at(&["--leader-in-branch", "--split-lanes"]).passed(), "{label}: the model did not split");
        }
    }
}

/// With MAXIMAL_RECONVERGENCE (set where the device enabled
/// VK_KHR_shader_maximal_reconvergence) the histogram compiles, and its SPIR-V declares
/// the extension and the MaximallyReconvergesKHR execution mode on main. Needs no device.
#[test]
fn the_histogram_compiles_maximally_reconverging() {
    let words_of = |on: u32| {
        let defines = [
            ("VARIANT_SUBGROUP", "1".to_string()),
            ("BINS", "256".into()),
            ("ITEMS", HISTOGRAM_ITEMS.to_string()),
            ("WORKGROUP_SIZE", WORKGROUP.to_string()),
            ("MAXIMAL_RECONVERGENCE", on.to_string()),
        ];
        vk_compute::compile_glsl("05_atomics/histogram.comp", &defines).expect("compiles")
    };
    // OpExecutionMode (opcode 16, 3 words): main's id, MaximallyReconvergesKHR (6023).
    let has_mode = |words: &[u32]| words.windows(3).any(|w| w[0] == (3 << 16 | 16) && w[2] == 6023);
    let has_extension = |words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.windows(29).any(|w| w == b"SPV_KHR_maximal_reconvergence")
    };
    let on = words_of(1);
    assert!(has_mode(&on) && has_extension(&on));
    let off = words_of(0);
    assert!(!has_mode(&off) && !has_extension(&off));
}

/// Keys past the last bin, a tenth of them (some in runs that fill whole subgroups), count
/// nowhere in every variant, as in the CPU reference.
#[test]
fn keys_outside_the_bins_count_nowhere() {
    let ctx = Context::new(ContextOptions::default()).expect("a Vulkan device (lavapipe in CI)");
    let bins = 256;
    let mut keys = reference::histogram_keys(Spread::Hot, bins, 200_003, 9, PLANTED);
    for (i, key) in keys.iter_mut().enumerate() {
        if i % 10 == 3 {
            *key = bins + (i as u32 % 7) * 1000;
        }
        if (50_000..50_512).contains(&i) {
            *key = u32::MAX - 1;
        }
    }
    for variant in Variant::value_variants().iter().filter(|v| v.applies(Workload::Histogram)) {
        if ctx.subgroup_kernel_unsupported(variant.needs(Workload::Histogram, Leader::pick(&ctx)), WORKGROUP).is_some()
        {
            continue;
        }
        let check = histogram(&ctx, *variant, keys.clone(), bins, &[]);
        assert!(check.passed(), "{variant:?}: {:?}", check.first);
    }
}
