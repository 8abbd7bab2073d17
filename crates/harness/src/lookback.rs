//! The host's side of the decoupled look-back (`glsl/include/lookback.glsl`), shared by 03's
//! single-pass scan and 04's stable compaction: the tile-state layout the shader is built
//! with (one 64-bit word, or 32-bit words where the device lacks 64-bit atomics), who looks
//! back, the runs' epochs (so that no run resets the states), the tile states on the device,
//! and the check that a single pass finished cleanly (and saw the subgroups it was built for)
//! before its output is trusted.

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use std::cell::Cell;
use vk_compute::{Barrier, Binding, Buffer, Context, Recorder};

/// 64-bit words from one tile's state to the next: one state per 128-byte cache line.
pub const STATE_STRIDE: usize = 16;
/// The flag of a tile state that holds the inclusive prefix.
pub const HAS_PREFIX: u64 = 2;

/// Polls a round of the wait for the closest predecessor on a CPU device (the shader's
/// POLL_BURST; 1 elsewhere): a tile there takes longer than the `SPIN_LIMIT` rounds of one poll
/// each last, and llvmpipe bounds a shader's loop iterations, not its unrolled polls, so single
/// polls would give up on predecessors that are only slow. 32-bit states take twice as many:
/// their polls return sooner.
pub const CPU_POLL_BURST: u32 = 32;

/// The shader defines that fix the tile-state layout (`STATE_STRIDE`, `HAS_PREFIX`,
/// `LOOKBACK_STATE`: `word`'s), who looks back (`LOOKBACK_SUBGROUP`, and `LOOKBACK_LANES`:
/// `lanes` from [`lookback_lanes`], 0 for narrow) and how patiently (`POLL_BURST`:
/// [`CPU_POLL_BURST`] on a CPU device, twice that with 32-bit states, else 1).
pub fn defines(ctx: &Context, lanes: u32, word: StateWord) -> Vec<(&'static str, String)> {
    let burst = match (ctx.caps().is_cpu(), word) {
        (false, _) => 1,
        (true, StateWord::Tagged64) => CPU_POLL_BURST,
        // A 32-bit poll returns sooner there: as patient, in twice the polls.
        (true, _) => 2 * CPU_POLL_BURST,
    };
    vec![
        ("STATE_STRIDE", format!("{STATE_STRIDE}u")),
        ("HAS_PREFIX", format!("{HAS_PREFIX}u")),
        ("LOOKBACK_STATE", word.define().to_string()),
        ("LOOKBACK_SUBGROUP", u32::from(lanes > 0).to_string()),
        ("LOOKBACK_LANES", lanes.to_string()),
        ("POLL_BURST", burst.to_string()),
    ]
}

/// The width of a single pass's tile-state words (`--lookback-word`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LookbackWord {
    /// One 64-bit word a tile (flag and value together); needs shaderBufferInt64Atomics. The
    /// default where the device has it.
    #[value(name = "64")]
    Bits64,
    /// 32-bit words (03: a flag word and value words; 04: a 2-bit flag and a 30-bit count). The
    /// default where the device lacks 64-bit buffer atomics.
    #[value(name = "32")]
    Bits32,
}

// ANCHOR: state_word
/// How a tile's state is held on the device (the shader's LOOKBACK_STATE, lookback.glsl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateWord {
    /// One 64-bit word, epoch << 2 | flag above the value's 32 bits, published with atomicMax:
    /// a reader never sees a flag without its value.
    Tagged64,
    /// Two 32-bit words, each (epoch << 2 | flag) << 16 above one half of the value's bits,
    /// each published with its own atomicMax: ready when both carry this run's tag. The epoch
    /// has 14 bits, so the states are zeroed every 2^14 - 1 runs.
    TwoWords32,
    /// One 32-bit word, flag << 30 | count: no room for an epoch, so the states are zeroed
    /// before every run, and counts (so inputs) stop at 2^30 - 1.
    Packed32,
}
// ANCHOR_END: state_word

/// The largest count a [`StateWord::Packed32`] state holds.
pub const PACKED_MAX: u64 = (1 << 30) - 1;

impl StateWord {
    /// LOOKBACK_STATE's value in lookback.glsl.
    pub fn define(self) -> u32 {
        match self {
            StateWord::Tagged64 => 1,
            StateWord::TwoWords32 => 2,
            StateWord::Packed32 => 3,
        }
    }

    /// A run label's suffix: empty for the 64-bit word, the default where it exists.
    pub fn label(self) -> &'static str {
        match self {
            StateWord::Tagged64 => "",
            StateWord::TwoWords32 | StateWord::Packed32 => ", 32-bit look-back",
        }
    }

    /// Why an input of `n` elements cannot run with this word, if it cannot: a packed state
    /// counts up to [`PACKED_MAX`].
    pub fn refuses(self, n: u64) -> Option<String> {
        (self == StateWord::Packed32 && n > PACKED_MAX).then(|| {
            format!(
                "n = {n}: the 32-bit look-back's state holds counts up to 2^30 - 1 (2 bits of its word are the flag)"
            )
        })
    }

    /// The tag of the state whose first 64-bit word is `word`, as the shader wrote it: epoch
    /// << 2 | flag for the epoch's layouts (`None` where the two 32-bit words disagree), the
    /// flag alone for the packed one.
    fn tag(self, word: u64) -> Option<u64> {
        let (low, high) = (word & 0xffff_ffff, word >> 32);
        match self {
            StateWord::Tagged64 => Some(high),
            // The state's first two 32-bit words: the low and the high half of this one.
            StateWord::TwoWords32 => (low >> 16 == high >> 16).then_some(low >> 16),
            StateWord::Packed32 => Some(low >> 30),
        }
    }

    /// The largest epoch its tag holds: epoch << 2 | flag in 32 bits, or in 16 (two words);
    /// the packed word holds none, but the counters count by epoch.
    fn max_epoch(self) -> u32 {
        match self {
            StateWord::TwoWords32 => (1 << 14) - 1,
            StateWord::Tagged64 | StateWord::Packed32 => (1 << 30) - 1,
        }
    }
}

/// The tile-state word of a single pass (`chosen`, from `--lookback-word`, or the default):
/// the 64-bit word where the device has 64-bit buffer atomics, else `narrow` (the sample's
/// 32-bit layout). `Err` (a SKIP) when `--lookback-word 64` is asked of a device without them.
pub fn state_word(ctx: &Context, chosen: Option<LookbackWord>, narrow: StateWord) -> Result<StateWord, String> {
    let has_64 = ctx.caps().has_int64_buffer_atomics();
    match chosen {
        Some(LookbackWord::Bits64) if !has_64 => Err("--lookback-word 64: the device lacks 64-bit buffer atomics \
                                                       (shaderInt64, shaderBufferInt64Atomics)"
            .into()),
        Some(LookbackWord::Bits32) => Ok(narrow),
        _ if has_64 => Ok(StateWord::Tagged64),
        _ => Ok(narrow),
    }
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
/// `workgroup` invocations (`tile.lookback`, `auto` resolved; the shader's LOOKBACK_LANES), 0 for
/// the narrow look-back and for a variant that is not a single pass (`single_pass` false).
/// `Err` (a SKIP) when the kernel cannot run here: the device lacks the subgroup operations
/// `needs`, would give a workgroup a partial subgroup, or forms other subgroups than it
/// promises in a workgroup of this size (the self-check, run at every workgroup size a kernel
/// uses: these kernels lay tiles out by subgroup), or the choice cannot run.
pub fn lookback_lanes(
    ctx: &Context,
    needs: u32,
    tile: &crate::TileArgs,
    workgroup: u32,
    single_pass: bool,
) -> Result<Result<u32, String>> {
    if let Some(reason) = ctx.subgroup_kernel_unsupported(needs, workgroup) {
        return Ok(Err(reason));
    }
    if let Err(reason) = crate::subgroup_check::full_subgroups_at(ctx, workgroup)? {
        return Ok(Err(reason));
    }
    if !single_pass {
        return Ok(Ok(0));
    }
    let fixed = ctx.fixed_subgroup_size();
    let lookback = match tile.lookback {
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
    // --assume-lookback-lanes: build for a size the device may not have, so that the shader's
    // own check of its subgroups can be seen to catch the difference.
    let Some(size) = tile.assume_lookback_lanes.or(fixed) else {
        return Ok(Err("--lookback subgroup needs a fixed subgroup size (pass --subgroup-size N)".into()));
    };
    if workgroup < 2 * size || !workgroup.is_multiple_of(size) {
        return vk_compute::setup_error(format!(
            "--lookback subgroup: a workgroup of {workgroup} leaves no whole subgroup of {size} lanes for the elements"
        ));
    }
    Ok(Ok(size))
}

// ANCHOR: run
/// One run's place on a set of tile states: its epoch (the shader's `epoch` push constant) and
/// whether the states and counters are zeroed before it. Recording a run changes nothing: the
/// run counts only once its submission has completed ([`TileStates::settle`]), so a run
/// recorded but never submitted leaves the next one its reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub epoch: u32,
    reset: bool,
    /// The largest epoch the states' tags hold.
    max_epoch: u32,
}

impl Run {
    /// The run after this one on the same states (recorded behind it, in one command buffer).
    pub fn next(self) -> Run {
        Run::after(self.epoch, self.max_epoch)
    }

    /// The run after epoch `last` (0: none yet): a new epoch, or epoch 1 with a reset first.
    fn after(last: u32, max_epoch: u32) -> Run {
        if last == 0 || last >= max_epoch {
            Run { epoch: 1, reset: true, max_epoch }
        } else {
            Run { epoch: last + 1, reset: false, max_epoch }
        }
    }
}

/// Numbers the runs on one set of tile states and counters. A state tagged with another run's
/// epoch reads as not ready, and the tile counter counts on from run to run, so no run needs a
/// reset before it: only the first, and one in every 2^30 - 1 (two 32-bit words: 2^14 - 1)
/// when the epoch wraps.
#[derive(Clone, Copy, Debug)]
pub struct Epochs {
    /// The epoch of the last run that completed (0: none, or one failed: reset first).
    last: u32,
    /// The largest epoch the states' tags hold.
    max_epoch: u32,
}

impl Epochs {
    /// No run yet on states held as `word` says.
    pub fn new(word: StateWord) -> Self {
        Epochs { last: 0, max_epoch: word.max_epoch() }
    }

    /// The next run: what to record.
    pub fn next(&self) -> Run {
        Run::after(self.last, self.max_epoch)
    }

    /// `last` (and every run before it) completed on the device.
    pub fn commit(&mut self, last: Run) {
        self.last = last.epoch;
    }

    /// A submission failed: what its runs left in the states is unknown, so the next run resets.
    pub fn forget(&mut self) {
        self.last = 0;
    }

    /// The epoch of the last run that completed (0 before any).
    pub fn last(&self) -> u32 {
        self.last
    }
}
// ANCHOR_END: run

/// The single pass's counters among a sample's control words, from the first one the sample
/// gives [`TileStates::new`]: the next tile's ticket, tiles written, and `stalled`.
pub const COUNTERS: usize = 3;

/// A single pass's tile states on the device (one per tile, [`STATE_STRIDE`] 64-bit words
/// apart, in `word`'s layout) and the epochs of the runs on them. The counters ([`COUNTERS`]
/// words) live in the sample's control buffer, which the shader binds beside the states.
pub struct TileStates<'c> {
    states: Buffer<'c, u64>,
    word: StateWord,
    /// The runs' epochs: settled through a shared borrow, while the runs' recordings still
    /// borrow the states.
    epochs: Cell<Epochs>,
    /// Index of the first counter (the next tile's ticket) among the control words.
    counters: usize,
}

impl<'c> TileStates<'c> {
    /// States for `tiles` tiles (at least one word, for a variant that binds none) in `word`'s
    /// layout, with the counters at control word `counters` on.
    pub fn new(ctx: &'c Context, tiles: usize, counters: usize, word: StateWord) -> Result<Self> {
        let states = Buffer::new(ctx, "tile states", (tiles * STATE_STRIDE).max(1))?;
        Ok(TileStates { states, word, epochs: Cell::new(Epochs::new(word)), counters })
    }

    pub fn binding(&self) -> Binding<'_> {
        self.states.binding()
    }

    // ANCHOR: next_run
    /// The next run on these states, to record: [`Self::record_start`], then its dispatch with
    /// `run.epoch`; after its submission, [`Self::settle`].
    pub fn next_run(&self) -> Run {
        self.epochs.get().next()
    }

    /// Record what comes before `run`'s dispatch. Its first run (and the one after the epoch
    /// wraps) zeroes the states and the two counters before `stalled` in `control` (not
    /// `stalled`, which covers every run on the buffers). A packed 32-bit state has no room for
    /// the epoch, so it is zeroed before every run. Records, changes nothing here.
    pub fn record_start<'r>(
        &'r self,
        rec: &mut Recorder<'_, 'r>,
        control: &'r Buffer<'_, u32>,
        run: Run,
    ) -> Result<()> {
        if run.reset || self.word == StateWord::Packed32 {
            // Packed: the states of the run before read as ready with their counts otherwise.
            rec.fill(&self.states, 0);
        }
        if run.reset {
            rec.fill_range(control, self.counters, COUNTERS - 1, 0).context("reset the tile counters")?;
        }
        if run.reset || self.word == StateWord::Packed32 {
            // Tile states (and counters) are zero before any workgroup reads them.
            rec.barrier(Barrier::TransferToCompute);
        }
        Ok(())
    }

    /// After the submission that held the runs up to `last`: on success they count (the next
    /// run takes the epoch after `last`); on failure the states are in doubt and the next run
    /// zeroes them. Returns `submitted` as it was.
    pub fn settle<T>(&self, last: Run, submitted: Result<T>) -> Result<T> {
        let mut epochs = self.epochs.get();
        match &submitted {
            Ok(_) => epochs.commit(last),
            Err(_) => epochs.forget(),
        }
        self.epochs.set(epochs);
        submitted
    }

    /// `--bench`'s timed runs on these states ([`Bench::time_if`](crate::Bench::time_if)):
    /// `record` records one whole run as the [`Run`] it is given, each the `Run::next` of the
    /// one before, and the last one recorded is settled with the submissions' outcome.
    pub fn time_if<'r>(
        &'r self,
        bench: Option<&crate::Bench>,
        ctx: &Context,
        mut record: impl FnMut(&mut Recorder<'_, 'r>, Run) -> Result<()>,
    ) -> Result<Option<crate::Timed>> {
        let (mut run, mut last) = (self.next_run(), None);
        let timed = crate::Bench::time_if(bench, ctx, |rec| {
            record(rec, run)?;
            (last, run) = (Some(run), run.next());
            Ok(())
        });
        match last {
            Some(last) => self.settle(last, timed),
            None => timed,
        }
    }
    // ANCHOR_END: next_run

    /// How the last run over `tiles` tiles of workgroups of `workgroup` invocations (`lanes`:
    /// its LOOKBACK_LANES) finished ([`completed`]), from the states on the device and the
    /// sample's control words read back after it. A run that is not a single pass
    /// (`single_pass` false: its kernels write only `stalled`'s shape bits) finishes `Clean`
    /// unless it saw the wrong subgroups.
    pub fn finished(
        &mut self,
        control: &[u32],
        single_pass: bool,
        tiles: u32,
        workgroup: u32,
        lanes: u32,
    ) -> Result<Finished> {
        let [next_tile, tiles_written, stalled] = [0, 1, 2].map(|i| control[self.counters + i]);
        if let Some(reason) = wrong_shape(stalled, workgroup, lanes) {
            return Ok(Finished::WrongShape(reason));
        }
        if !single_pass {
            return Ok(Finished::Clean);
        }
        let states = self.states.download().context("read the tile states")?;
        let counts = Counts { next_tile, tiles_written, stalled };
        Ok(if completed(&states, self.word, counts, tiles, self.epochs.get().last()) {
            Finished::Clean
        } else {
            Finished::Stalled
        })
    }
}

/// How a single pass's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finished {
    /// Every tile written with its prefix published: the output can be trusted.
    Clean,
    /// A look-back gave up or a tile went missing: redo the run with the fallback.
    Stalled,
    /// The kernel saw other subgroups than it was built for and did nothing (a SKIP, with the
    /// reason): the fallback lays its tiles out by subgroup too.
    WrongShape(String),
}

/// What a sample's FALLBACK line says when a single pass did not finish cleanly, before what redid it.
pub const STALLED: &str =
    "the single pass stalled (a workgroup gave up waiting for its predecessor: no forward progress?)";

// ANCHOR: shape_word
/// `stalled`'s bits: bit 0, a look-back gave up; bit 1, a workgroup saw another subgroup shape
/// than its kernel was built for (glsl/include/subgroup_shape.glsl), with its gl_SubgroupSize in
/// bits 8..15 and its gl_NumSubgroups in bits 16..27.
pub const WRONG_SHAPE: u32 = 2;

/// Why the results cannot be trusted when `stalled` (the control word, read back) says that a
/// kernel built for full subgroups in workgroups of `workgroup` invocations (and, `lanes` > 0,
/// a look-back subgroup of that many lanes) saw other subgroups, if it does.
pub fn wrong_shape(stalled: u32, workgroup: u32, lanes: u32) -> Option<String> {
    if stalled & WRONG_SHAPE == 0 {
        return None;
    }
    let (size, subgroups) = ((stalled >> 8) & 0xff, (stalled >> 16) & 0xfff);
    let what = if size * subgroups != workgroup {
        format!("subgroups of {size} lanes, {subgroups} to a workgroup of {workgroup}: not full")
    } else {
        format!("subgroups of {size} lanes, not the {lanes} its look-back subgroup was built for")
    };
    Some(format!("{what}; the kernel did nothing"))
}
// ANCHOR_END: shape_word

/// The single pass's counters after a run, read back from the control words.
#[derive(Clone, Copy, Debug)]
pub struct Counts {
    /// Tickets taken since the last reset.
    pub next_tile: u32,
    /// Tiles counted written since the last reset.
    pub tiles_written: u32,
    /// Nonzero when a look-back gave up (or the shape was wrong) in any run on the buffers.
    pub stalled: u32,
}

/// Whether the single pass of epoch `epoch` over `tiles` tiles finished cleanly: every tile
/// claimed (`next_tile`: epoch × tiles tickets taken since the reset) and counted written after
/// its stores (`tiles_written`, likewise), no look-back gave up (`stalled`, which covers every
/// run on the same buffers), and every state (`states`, with [`STATE_STRIDE`], in `word`'s
/// layout) published with its inclusive prefix in this epoch. Otherwise the output is not trusted.
pub fn completed(states: &[u64], word: StateWord, counts: Counts, tiles: u32, epoch: u32) -> bool {
    let tag = match word {
        StateWord::Tagged64 | StateWord::TwoWords32 => u64::from(epoch) << 2 | HAS_PREFIX,
        StateWord::Packed32 => HAS_PREFIX,
    };
    let published = states.iter().step_by(STATE_STRIDE).all(|&s| word.tag(s) == Some(tag));
    let tickets = epoch.wrapping_mul(tiles);
    published && counts.next_tile == tickets && counts.tiles_written == tickets && counts.stalled == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(next_tile: u32, tiles_written: u32, stalled: u32) -> Counts {
        Counts { next_tile, tiles_written, stalled }
    }

    #[test]
    fn a_stall_or_an_unpublished_tile_is_not_complete() {
        let epoch = 2;
        let published = (epoch << 2 | HAS_PREFIX) << 32;
        let states = vec![published; 3 * STATE_STRIDE];
        let word = StateWord::Tagged64;
        assert!(completed(&states, word, counts(6, 6, 0), 3, 2));
        assert!(!completed(&states, word, counts(6, 6, 1), 3, 2));
        assert!(!completed(&states, word, counts(6, 5, 0), 3, 2));
        let mut late = states.clone();
        late[STATE_STRIDE] = (epoch << 2 | 1) << 32; // tile 1 holds only its aggregate
        assert!(!completed(&late, word, counts(6, 6, 0), 3, 2));
        let mut stale = states.clone();
        stale[2 * STATE_STRIDE] = (1 << 2 | HAS_PREFIX) << 32; // tile 2 published in the run before
        assert!(!completed(&stale, word, counts(6, 6, 0), 3, 2));
    }

    #[test]
    fn the_32_bit_layouts_are_read_from_the_first_word() {
        // Two words, each with the tag in its high 16 bits.
        let tag = (2 << 2 | HAS_PREFIX) << 16;
        let two = vec![(tag | 0x1234) << 32 | tag | 0x5678; 2 * STATE_STRIDE];
        assert!(completed(&two, StateWord::TwoWords32, counts(4, 4, 0), 2, 2));
        assert!(!completed(&two, StateWord::TwoWords32, counts(6, 6, 0), 2, 3));
        let mut half = two.clone();
        half[STATE_STRIDE] = (tag | 0x1234) << 32 | (2 << 2 | 1) << 16; // one word still the aggregate's
        assert!(!completed(&half, StateWord::TwoWords32, counts(4, 4, 0), 2, 2));
        // Packed: flag << 30 | count, no epoch.
        let packed = vec![HAS_PREFIX << 30 | 12345; 2 * STATE_STRIDE];
        assert!(completed(&packed, StateWord::Packed32, counts(2, 2, 0), 2, 1));
        let aggregate_only = vec![1 << 30 | 12345; 2 * STATE_STRIDE];
        assert!(!completed(&aggregate_only, StateWord::Packed32, counts(2, 2, 0), 2, 1));
    }

    #[test]
    fn packed_counts_refuse_inputs_past_30_bits() {
        assert_eq!(StateWord::Packed32.refuses(PACKED_MAX), None);
        assert!(StateWord::Packed32.refuses(PACKED_MAX + 1).is_some());
        assert_eq!(StateWord::Tagged64.refuses(u64::from(u32::MAX)), None);
        assert_eq!(StateWord::TwoWords32.refuses(u64::from(u32::MAX)), None);
    }

    #[test]
    fn epochs_start_at_one_and_wrap_with_a_reset() {
        for word in [StateWord::Tagged64, StateWord::TwoWords32] {
            let mut epochs = Epochs::new(word);
            let first = epochs.next();
            assert_eq!((first.epoch, first.reset), (1, true));
            assert_eq!((first.next().epoch, first.next().reset), (2, false));
            epochs.commit(first.next());
            assert_eq!((epochs.next().epoch, epochs.next().reset), (3, false));
            epochs.last = word.max_epoch();
            assert_eq!((epochs.next().epoch, epochs.next().reset), (1, true));
        }
    }

    #[test]
    fn a_wrong_shape_names_what_was_seen() {
        assert_eq!(wrong_shape(0, 512, 8), None);
        assert_eq!(wrong_shape(1, 512, 8), None); // a stall, not a shape
        let partial = wrong_shape(WRONG_SHAPE | 32 << 8 | 8 << 16, 512, 0).expect("a wrong shape");
        assert!(partial.contains("subgroups of 32 lanes, 8 to a workgroup of 512: not full"), "{partial}");
        let other = wrong_shape(WRONG_SHAPE | 8 << 8 | 64 << 16, 512, 16).expect("a wrong shape");
        assert!(other.contains("not the 16"), "{other}");
    }

    // ANCHOR: unsubmitted
    #[test]
    fn a_run_recorded_but_not_submitted_leaves_the_next_its_reset() {
        let mut epochs = Epochs::new(StateWord::Tagged64);
        let _recorded = epochs.next(); // recorded, then dropped unsubmitted
        assert!(epochs.next().reset && epochs.next().epoch == 1);
        epochs.commit(epochs.next());
        epochs.forget(); // a failed submission: its states are in doubt
        assert!(epochs.next().reset && epochs.next().epoch == 1);
    }

    /// On the device (lavapipe in CI; fails, never passes, without one): tile states full of
    /// what looks like finished prefixes of epoch 2 (uninitialised memory may hold anything),
    /// a first run recorded with its reset and dropped unsubmitted, then a run submitted: its
    /// reset must be there, or it would read those words as its predecessors' prefixes.
    #[test]
    fn an_unsubmitted_run_on_the_device_loses_no_reset() {
        let ctx = Context::new(Default::default()).expect("a Vulkan device (lavapipe in CI)");
        let control = Buffer::<u32>::from_slice(&ctx, "control", &[7; COUNTERS]).expect("control");
        let mut states = TileStates::new(&ctx, 4, 0, StateWord::Tagged64).expect("tile states");
        let mut rec = Recorder::new(&ctx).expect("recorder");
        rec.fill(&states.states, 2 << 2 | HAS_PREFIX as u32); // epoch 2, prefix, in both halves
        rec.submit_and_wait().expect("fill");
        {
            let mut unsubmitted = Recorder::new(&ctx).expect("recorder");
            states.record_start(&mut unsubmitted, &control, states.next_run()).expect("record");
        }
        let run = states.next_run();
        let mut rec = Recorder::new(&ctx).expect("recorder");
        states.record_start(&mut rec, &control, run).expect("record");
        let submitted = rec.submit_and_wait();
        states.settle(run, submitted).expect("submit");
        let words = states.states.download().expect("download");
        assert!(words.iter().all(|&w| w == 0), "the submitted run zeroed the states first");
        assert_eq!((states.next_run().epoch, states.next_run().reset), (2, false));
    }
    // ANCHOR_END: unsubmitted
}
