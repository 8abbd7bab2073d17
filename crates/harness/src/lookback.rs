//! The host's side of the decoupled look-back (`glsl/include/lookback.glsl`), shared by 03's
//! single-pass scan and 04's stable compaction: the tile-state layout the shader is built
//! with, who looks back, the runs' epochs (so that no run resets the states), the tile states
//! on the device, and the check that a single pass finished cleanly before its output is
//! trusted.

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use std::cell::Cell;
use vk_compute::{Barrier, Binding, Buffer, Context, Recorder};

/// 64-bit words from one tile's state to the next: one state per 128-byte cache line.
pub const STATE_STRIDE: usize = 16;
/// The flag of a tile state that holds the inclusive prefix.
pub const HAS_PREFIX: u64 = 2;

/// Polls a round of the wait for the closest predecessor on a CPU device (the shader's
/// POLL_BURST; 1 on a GPU): a tile there takes tens of microseconds, longer than the
/// `SPIN_LIMIT` rounds of one poll each last, and llvmpipe bounds a shader's loop iterations,
/// not its unrolled polls. On lavapipe (2^20, `--bench --iters 5`) it took the single passes'
/// stalls from most runs to none.
pub const CPU_POLL_BURST: u32 = 32;

/// The shader defines that fix the tile-state layout (`STATE_STRIDE`, `HAS_PREFIX`), who looks
/// back (`LOOKBACK_SUBGROUP`, and `LOOKBACK_LANES`: `lanes` from [`lookback_lanes`], 0 for
/// narrow) and how patiently (`POLL_BURST`: [`CPU_POLL_BURST`] on a CPU device, else 1).
pub fn defines(ctx: &Context, lanes: u32) -> Vec<(&'static str, String)> {
    let burst = if ctx.caps().is_cpu() { CPU_POLL_BURST } else { 1 };
    vec![
        ("STATE_STRIDE", format!("{STATE_STRIDE}u")),
        ("HAS_PREFIX", format!("{HAS_PREFIX}u")),
        ("LOOKBACK_SUBGROUP", u32::from(lanes > 0).to_string()),
        ("LOOKBACK_LANES", lanes.to_string()),
        ("POLL_BURST", burst.to_string()),
    ]
}

/// Who looks back in a single pass (`--lookback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lookback {
    /// `subgroup` on a GPU whose subgroup size is fixed and at most an eighth of the workgroup,
    /// else `narrow`.
    Auto,
    /// The workgroup's last subgroup holds no elements and looks back while the others load.
    Subgroup,
    /// The first subgroup, after the tile is loaded and scanned: gl_SubgroupSize tiles per
    /// round trip.
    Narrow,
}

/// The look-back subgroup's lanes for a kernel of a scan-like sample with workgroups of
/// `workgroup` invocations (`choice`, `auto` resolved; the shader's LOOKBACK_LANES), 0 for the
/// narrow look-back and for a variant that is not a single pass (`single_pass` false). `Err` (a
/// SKIP) when the kernel cannot run here: the device lacks the subgroup operations `needs` or
/// would give a workgroup a partial subgroup (these kernels lay tiles out by subgroup), the
/// choice cannot run, or a single pass lacks 64-bit buffer atomics (a tile's flag and value in
/// one word).
pub fn lookback_lanes(
    ctx: &Context,
    needs: u32,
    choice: Lookback,
    workgroup: u32,
    single_pass: bool,
) -> Result<Result<u32, String>> {
    if let Some(reason) = ctx.subgroup_kernel_unsupported(needs, workgroup) {
        return Ok(Err(reason));
    }
    if !single_pass {
        return Ok(Ok(0));
    }
    if !ctx.caps().has_int64_buffer_atomics() {
        return Ok(Err("the device lacks 64-bit buffer atomics (shaderInt64, shaderBufferInt64Atomics), \
                       which hold each tile's flag and value in one word"
            .into()));
    }
    let fixed = ctx.fixed_subgroup_size();
    let lookback = match choice {
        // A CPU driver runs a workgroup's subgroups one after another, so a look-back subgroup
        // overlaps nothing there. Its cost, invocations that load nothing, was measured at an
        // eighth of the workgroup (32 of 256 on the H200); larger shares stay opt-in.
        Lookback::Auto => match fixed {
            Some(size) if !ctx.caps().is_cpu() && workgroup >= 8 * size => Lookback::Subgroup,
            _ => Lookback::Narrow,
        },
        chosen => chosen,
    };
    if lookback == Lookback::Narrow {
        return Ok(Ok(0));
    }
    let Some(size) = fixed else {
        return Ok(Err("--lookback subgroup needs a fixed subgroup size (pass --subgroup-size N)".into()));
    };
    if workgroup < 2 * size {
        return vk_compute::setup_error(format!(
            "--lookback subgroup: a workgroup of {workgroup} leaves no subgroup of {size} lanes for the elements"
        ));
    }
    Ok(Ok(size))
}

/// The largest epoch: a state's tag is epoch << 2 | flag in 32 bits.
const MAX_EPOCH: u32 = (1 << 30) - 1;

/// Numbers the runs on one set of tile states and counters (the shader's `epoch` push
/// constant). A state tagged with another run's epoch reads as not ready, and the tile counter
/// counts on from run to run, so no run needs a reset before it: only the first, and one in
/// every 2^30 - 1 when the epoch wraps.
#[derive(Debug, Default)]
pub struct Epochs {
    last: Cell<u32>,
}

impl Epochs {
    /// The next run's epoch, and whether the states and the counters (`next_tile`,
    /// `tiles_written`) must be zeroed before it.
    pub fn next(&self) -> (u32, bool) {
        let epoch = if self.last.get() >= MAX_EPOCH { 1 } else { self.last.get() + 1 };
        self.last.set(epoch);
        (epoch, epoch == 1)
    }

    /// The epoch of the last run recorded (0 before any).
    pub fn last(&self) -> u32 {
        self.last.get()
    }
}

/// The single pass's counters among a sample's control words, from the first one the sample
/// gives [`TileStates::new`]: the next tile's ticket, tiles written, and `stalled`.
pub const COUNTERS: usize = 3;

/// A single pass's tile states on the device (one per tile, [`STATE_STRIDE`] words apart) and the
/// epochs of the runs on them. The counters ([`COUNTERS`] words) live in the sample's control
/// buffer, which the shader binds beside the states.
pub struct TileStates<'c> {
    states: Buffer<'c, u64>,
    epochs: Epochs,
    /// Index of the first counter (the next tile's ticket) among the control words.
    counters: usize,
}

impl<'c> TileStates<'c> {
    /// States for `tiles` tiles (at least one word, for a variant that binds none), with the
    /// counters at control word `counters` on.
    pub fn new(ctx: &'c Context, tiles: usize, counters: usize) -> Result<Self> {
        let states = Buffer::new(ctx, "tile states", (tiles * STATE_STRIDE).max(1))?;
        Ok(TileStates { states, epochs: Epochs::default(), counters })
    }

    pub fn binding(&self) -> Binding<'_> {
        self.states.binding()
    }

    // ANCHOR: next_run
    /// Start a run on these states: its epoch. The first run (and the one after the epoch wraps)
    /// also records zeroing the states and the two counters before `stalled` in `control` (not
    /// `stalled`, which covers every run on the buffers), and a barrier after it.
    pub fn next_run<'r>(&'r self, rec: &mut Recorder<'_, 'r>, control: &'r Buffer<'_, u32>) -> Result<u32> {
        let (epoch, reset) = self.epochs.next();
        if reset {
            rec.fill(&self.states, 0);
            rec.fill_range(control, self.counters, COUNTERS - 1, 0).context("reset the tile counters")?;
            // Tile states and counters are zero before any workgroup reads them.
            rec.barrier(Barrier::TransferToCompute);
        }
        Ok(epoch)
    }
    // ANCHOR_END: next_run

    /// Whether the last run over `tiles` tiles finished cleanly ([`completed`]), from the states
    /// on the device and the sample's control words read back after it.
    pub fn completed(&mut self, control: &[u32], tiles: u32) -> Result<bool> {
        let states = self.states.download().context("read the tile states")?;
        let [next_tile, tiles_written, stalled] = [0, 1, 2].map(|i| control[self.counters + i]);
        Ok(completed(&states, next_tile, tiles_written, stalled, tiles, self.epochs.last()))
    }
}

/// What a sample's FALLBACK line says when a single pass did not finish cleanly, before what redid it.
pub const STALLED: &str =
    "the single pass stalled (a workgroup gave up waiting for its predecessor: no forward progress?)";

/// Whether the single pass of epoch `epoch` over `tiles` tiles finished cleanly: every tile
/// claimed (`next_tile`: epoch × tiles tickets taken since the reset) and counted written after
/// its stores (`tiles_written`, likewise), no look-back gave up (`stalled`, which covers every
/// run on the same buffers), and every state (`states`, with [`STATE_STRIDE`]) published with
/// its inclusive prefix in this epoch. Otherwise the output is not trusted.
pub fn completed(states: &[u64], next_tile: u32, tiles_written: u32, stalled: u32, tiles: u32, epoch: u32) -> bool {
    let tag = u64::from(epoch) << 2 | HAS_PREFIX;
    let published = states.iter().step_by(STATE_STRIDE).all(|&s| s >> 32 == tag);
    let tickets = epoch.wrapping_mul(tiles);
    published && next_tile == tickets && tiles_written == tickets && stalled == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_or_an_unpublished_tile_is_not_complete() {
        let epoch = 2;
        let published = (epoch << 2 | HAS_PREFIX) << 32;
        let states = vec![published; 3 * STATE_STRIDE];
        assert!(completed(&states, 6, 6, 0, 3, 2));
        assert!(!completed(&states, 6, 6, 1, 3, 2));
        assert!(!completed(&states, 6, 5, 0, 3, 2));
        let mut late = states.clone();
        late[STATE_STRIDE] = (epoch << 2 | 1) << 32; // tile 1 holds only its aggregate
        assert!(!completed(&late, 6, 6, 0, 3, 2));
        let mut stale = states.clone();
        stale[2 * STATE_STRIDE] = (1 << 2 | HAS_PREFIX) << 32; // tile 2 published in the run before
        assert!(!completed(&stale, 6, 6, 0, 3, 2));
    }

    #[test]
    fn epochs_start_at_one_and_wrap_with_a_reset() {
        let epochs = Epochs::default();
        assert_eq!(epochs.next(), (1, true));
        assert_eq!(epochs.next(), (2, false));
        epochs.last.set(MAX_EPOCH);
        assert_eq!(epochs.next(), (1, true));
    }
}
