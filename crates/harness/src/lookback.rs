//! The host's side of the decoupled look-back (`glsl/include/lookback.glsl`), shared by 03's
//! single-pass scan and 04's stable compaction: the tile-state layout the shader is built
//! with, and the check that a single pass finished cleanly before its output is trusted.

/// 64-bit words from one tile's state to the next: one state per 128-byte cache line.
pub const STATE_STRIDE: usize = 16;
/// The flag of a tile state that holds the inclusive prefix.
pub const HAS_PREFIX: u64 = 2;

/// The shader defines that fix the tile-state layout (`STATE_STRIDE`, `HAS_PREFIX`).
pub fn defines() -> Vec<(&'static str, String)> {
    vec![("STATE_STRIDE", format!("{STATE_STRIDE}u")), ("HAS_PREFIX", format!("{HAS_PREFIX}u"))]
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
