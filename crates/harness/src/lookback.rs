//! The host's side of the decoupled look-back (`glsl/include/lookback.glsl`), shared by 03's
//! single-pass scan and 04's stable compaction: the tile-state layout the shader is built
//! with, who looks back, and the check that a single pass finished cleanly before its output
//! is trusted.

use anyhow::Result;
use clap::ValueEnum;
use vk_compute::Context;

/// 64-bit words from one tile's state to the next: one state per 128-byte cache line.
pub const STATE_STRIDE: usize = 16;
/// The flag of a tile state that holds the inclusive prefix.
pub const HAS_PREFIX: u64 = 2;

/// The shader defines that fix the tile-state layout (`STATE_STRIDE`, `HAS_PREFIX`) and who looks
/// back (`LOOKBACK_SUBGROUP`, and `LOOKBACK_LANES`: `lanes` from [`subgroup_lanes`], 0 for narrow).
pub fn defines(lanes: u32) -> Vec<(&'static str, String)> {
    vec![
        ("STATE_STRIDE", format!("{STATE_STRIDE}u")),
        ("HAS_PREFIX", format!("{HAS_PREFIX}u")),
        ("LOOKBACK_SUBGROUP", u32::from(lanes > 0).to_string()),
        ("LOOKBACK_LANES", lanes.to_string()),
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

/// The look-back subgroup's lanes for a single pass with workgroups of `workgroup` invocations
/// (`choice`, `auto` resolved; the shader's LOOKBACK_LANES), 0 for the narrow look-back; `Err`
/// (a SKIP) when the choice cannot run here.
pub fn subgroup_lanes(ctx: &Context, choice: Lookback, workgroup: u32) -> Result<Result<u32, String>> {
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

/// Whether a single pass over `tiles` tiles finished cleanly: every tile claimed
/// (`next_tile`) and counted written after its stores (`tiles_written`), no look-back gave up
/// (`stalled`, which covers every run on the same buffers), and every state (`states`, with
/// [`STATE_STRIDE`]) published with its inclusive prefix. Otherwise the output is not trusted.
pub fn completed(states: &[u64], next_tile: u32, tiles_written: u32, stalled: u32, tiles: u32) -> bool {
    let published = states.iter().step_by(STATE_STRIDE).all(|&s| s >> 32 == HAS_PREFIX);
    published && next_tile == tiles && tiles_written == tiles && stalled == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_or_an_unpublished_tile_is_not_complete() {
        let published = HAS_PREFIX << 32;
        let states = vec![published; 3 * STATE_STRIDE];
        assert!(completed(&states, 3, 3, 0, 3));
        assert!(!completed(&states, 3, 3, 1, 3));
        assert!(!completed(&states, 3, 2, 0, 3));
        let mut late = states.clone();
        late[STATE_STRIDE] = 1 << 32; // tile 1 holds only its aggregate
        assert!(!completed(&late, 3, 3, 0, 3));
    }
}
