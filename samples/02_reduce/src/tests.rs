//! 02_reduce's tests, on the default device.

use super::*;
use clap::Parser as _;

/// Runs on the default device (lavapipe in CI); fails, never passes, without one. With an
/// atomic result, a run recorded and then dropped unsubmitted leaves the buffers' next
/// accumulator as it was; a checked run advances it only once it finished, and its result
/// is in the slot it reports.
#[test]
fn the_accumulator_advances_on_submission_not_on_recording() {
    let ctx = Context::new(Default::default()).expect("a Vulkan device (lavapipe in CI)");
    let args = Args::try_parse_from(["02_reduce", "--fast-result", "atomic"]).expect("args");
    let reducer = Reducer::new(&ctx, Variant::Fast, Ty::U32, Op::Add, &args).expect("pipeline").expect("atomic add");
    assert!(reducer.atomic_result);
    let input = reference::reduce_input(Ty::U32, Op::Add, Inputs::Exact, 100_003, 3, PLANTED);
    let mut b = reducer.buffers(&input).expect("buffers");
    for round in 0..4 {
        {
            let mut rec = Recorder::new(&ctx).expect("recorder");
            reducer.record(&mut rec, &b, input.len(), b.next_slot).expect("record");
            reducer.record(&mut rec, &b, input.len(), b.next_slot ^ 1).expect("record");
        } // dropped, never submitted
        assert_eq!(b.next_slot, round % 2, "recording moved the accumulator");
        let slot = reducer.run_once(&mut b).expect("run");
        assert_eq!((slot, b.next_slot), (round % 2, (round % 2) ^ 1));
        let check = reducer.verify(&mut b, slot, Ty::U32, Op::Add, Inputs::Exact, &input).expect("verify");
        assert!(check.passed(), "round {round}: {:?}", check.first);
    }
}
