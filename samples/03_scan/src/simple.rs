//! The host's side of `single-pass-simple` (glsl/03_scan/single_pass_simple.comp): zero the
//! tile states and the counters before every run, and trust a run only if every tile was
//! claimed, written and published with its inclusive prefix, and no walk gave up.

use super::Buffers;
use anyhow::Result;
use harness::lookback::Finished;
use vk_compute::{Barrier, Kernel, Recorder};

/// A state's flag (its high half) once the tile's inclusive prefix is in.
const HAS_PREFIX: u64 = 2;

// ANCHOR: record
/// Record one run over `n` elements: the states and counters zeroed, then one dispatch.
pub fn record<'r>(
    rec: &mut Recorder<'_, 'r>,
    kernel: &'r Kernel<'_>,
    b: &'r Buffers<'_>,
    n: usize,
    grid: [u32; 3],
) -> Result<()> {
    // Every tile NOT_READY; next_tile and tiles_written zero (not `stalled`, which covers every
    // run on these buffers).
    rec.fill(&b.simple_states, 0);
    rec.fill_range(&b.control, 0, 2, 0)?;
    // The zeros land before any workgroup claims a tile or reads a state (the barrier that ends
    // the run before orders its dispatch before these fills).
    rec.barrier(Barrier::TransferToCompute);
    let bindings = [b.input.binding(), b.output.binding(), b.simple_states.binding(), b.control.binding()];
    rec.dispatch(kernel, &bindings, &(n as u32), grid)?;
    // The output is complete before anything reads it (readback or the next run's fills).
    rec.barrier(Barrier::ComputeToCompute);
    Ok(())
}
// ANCHOR_END: record

/// How a run over `tiles` tiles of `workgroup` invocations ended, from the control words
/// (next_tile, tiles_written, stalled) and the states read back after it.
pub fn finished(control: &[u32], states: &[u64], tiles: u32, workgroup: u32) -> Finished {
    let [next_tile, tiles_written, stalled] = [control[0], control[1], control[2]];
    if let Some(reason) = harness::lookback::wrong_shape(stalled, workgroup, 0) {
        return Finished::WrongShape(reason);
    }
    let published = states.iter().all(|&state| state >> 32 == HAS_PREFIX);
    if published && next_tile == tiles && tiles_written == tiles && stalled == 0 {
        Finished::Clean
    } else {
        Finished::Stalled
    }
}
