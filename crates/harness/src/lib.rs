//! What every sample repeats, so that a sample shows only its technique: shared arguments
//! ([`CommonArgs`]), seeded inputs ([`random`]), CPU comparison ([`compare`]), GPU timing and the
//! copy-kernel ceiling ([`bench`]), the PASS/FAIL/SKIP report with JSON ([`report`]), and the
//! mapping from outcome to exit code ([`run_sample`]).

pub mod bench;
pub mod compare;
pub mod lookback;
pub mod random;
pub mod reference;
pub mod report;
mod run;
mod subgroup_check;

pub use bench::{
    bench_sizes, copy_between, copy_ceiling, empty_dispatch, for_size, largest_size, numeric_defines, or_all,
    run_sizes, start_bench, time_gpu, value_name, warm_up, warm_up_for, Bench, BenchRow, GpuTimes, Timed, Timing,
};
pub use compare::{compare_exact, compare_floats, Check};
pub use report::{out, Report, Status};
pub use run::{
    device_line, exit_with, run_plain, run_sample, CommonArgs, Fault, SampleArgs, TileArgs, EXIT_ERROR, EXIT_FAIL,
    EXIT_FALLBACK, EXIT_PASS, EXIT_SKIP,
};
pub use serde_json;

/// Tiles of `tile` elements over `n`, one workgroup each: at least one, so that an empty input
/// still runs the kernels (a compaction's count is written by its last tile).
pub fn tiles(n: usize, tile: u32) -> u32 {
    (n as u32).div_ceil(tile).max(1)
}

/// Written into output buffers before each run, so that an element the GPU never wrote shows
/// up as a mismatch instead of a lucky zero.
pub const POISON: u32 = 0xDEAD_BEEF;
