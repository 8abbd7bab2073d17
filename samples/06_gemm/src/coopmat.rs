//! The tensor-core kernels of 06_gemm: cooperative matrices.
//!
//! - `coopmat` and `coopmat-f32` (glsl/06_gemm/coopmat.comp, VK_KHR_cooperative_matrix): each
//!   subgroup multiplies fragments of a shape the device lists, fed from tiles the workgroup
//!   stages in shared memory. The shape is read from the device, never assumed.
//! - `coopmat2` (glsl/06_gemm/coopmat2.comp, VK_NV_cooperative_matrix2): one workgroup-scope
//!   accumulator per workgroup, operands loaded through tensor layouts that clamp at the edges.
//! - `--peak` (glsl/06_gemm/coopmat_peak.comp): the multiply-add ceiling of every listed shape.
//!
//! What a configuration is, which shapes and workgroups a device allows, and how a kernel is
//! built and dispatched. The checks and the host path are main.rs's, shared with the SIMT kernels.

use crate::simt::{Elem, FaultSite, Push, Shape, Variant};
use anyhow::{Context as _, Result};
use harness::{out, BenchRow, Report, Timing};
use vk_compute::{Buffer, Context, Kernel, KernelDesc, SubgroupOps};

/// What D holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Out {
    F32,
    F16,
    Bf16,
    S32,
}

impl Out {
    /// The shaders' OUT (glsl/06_gemm/coopmat_io.glsl).
    fn define(self) -> u32 {
        match self {
            Out::F32 => 0,
            Out::F16 => 1,
            Out::Bf16 => 2,
            Out::S32 => 3,
        }
    }

    pub fn bytes(self) -> u64 {
        match self {
            Out::F32 | Out::S32 => 4,
            Out::F16 | Out::Bf16 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Out::F32 => "f32",
            Out::F16 => "f16",
            Out::Bf16 => "bf16",
            Out::S32 => "s32",
        }
    }
}

// ANCHOR: output
/// What D of `variant` holds for inputs of `elem`; `None` where the variant does not take them.
/// The SIMT kernels write f32; `coopmat` writes the input's width (int8: s32), as a library
/// GEMM does; `coopmat-f32` writes f32; `coopmat2` writes f16 for f16 and f32 for bf16 (a
/// workgroup-scope bf16 accumulator is not among the types the device lists).
pub fn output(variant: Variant, elem: Elem) -> Option<Out> {
    match (variant, elem) {
        (v, Elem::F32 | Elem::F16) if !v.is_coopmat() => Some(Out::F32),
        (_, Elem::F32) => None,
        (v, _) if !v.is_coopmat() => None,
        (_, Elem::Int8) => (variant != Variant::CoopmatF32).then_some(Out::S32),
        (Variant::CoopmatF32, _) | (Variant::Coopmat2, Elem::Bf16) => Some(Out::F32),
        (_, Elem::F16) => Some(Out::F16),
        (_, Elem::Bf16) => Some(Out::Bf16),
    }
}
// ANCHOR_END: output

/// The component types of A/B and of the accumulator for `elem`, as caps names them.
fn types(elem: Elem) -> (&'static str, &'static str) {
    match elem {
        Elem::F32 => ("f32", "f32"),
        Elem::F16 => ("f16", "f32"),
        Elem::Bf16 => ("bf16", "f32"),
        Elem::Int8 => ("s8", "s32"),
    }
}

/// ELEM of glsl/06_gemm/coopmat_io.glsl.
fn elem_define(elem: Elem) -> u32 {
    match elem {
        Elem::F16 | Elem::F32 => 0,
        Elem::Bf16 => 1,
        Elem::Int8 => 2,
    }
}

/// One cooperative-matrix configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmConfig {
    pub variant: Variant,
    /// `coopmat`: the fragment shape M×N×K, one the device lists for the type. `coopmat2`: the
    /// granularity of the listed workgroup-scope shape the block is a multiple of.
    pub frag: [u32; 3],
    /// `coopmat`: subgroups down and across the block, and fragments down and across each
    /// subgroup's part of it. `coopmat2`: unused (1).
    pub subgroups: [u32; 2],
    pub tiles: [u32; 2],
    /// `coopmat`: the K step. `coopmat2`: the block of D a workgroup computes and the K step.
    pub bk: u32,
    pub block: [u32; 2],
    /// Invocations per workgroup: `coopmat`, the subgroups times their size; `coopmat2`, a
    /// workgroup size the device lists for the shape.
    pub workgroup: u32,
    /// `coopmat2`: K steps per loop iteration for blocks inside the matrices (`u4` in the name;
    /// 1 where the name has none). `coopmat`: 1.
    pub unroll: u32,
    /// `coopmat`: the next tiles' loads are issued before the barrier that ends the step
    /// before, not after it (`early` in the name). `coopmat2`: false.
    pub early: bool,
}

impl CmConfig {
    /// `coopmat 16x16x16 sg2x4 t4x2 bk32` or `coopmat2 128x128x32 wg256`: what `--config NAME`
    /// takes (the KHR block is (SG·T·fragment) on each side).
    pub fn name(&self) -> String {
        let v = harness::value_name(self.variant);
        let [m, n, k] = self.frag;
        match self.variant {
            Variant::Coopmat2 => {
                let unroll = if self.unroll > 1 { format!(" u{}", self.unroll) } else { String::new() };
                format!("{v} {}x{}x{} wg{}{unroll}", self.block[0], self.block[1], self.bk, self.workgroup)
            }
            _ => format!(
                "{v} {m}x{n}x{k} sg{}x{} t{}x{} bk{}{}",
                self.subgroups[0],
                self.subgroups[1],
                self.tiles[0],
                self.tiles[1],
                self.bk,
                if self.early { " early" } else { "" }
            ),
        }
    }

    /// The pinned form of a `--config NAME`: which variant, and the numbers the name gives (the
    /// rest is checked against the device when the configuration is built).
    pub fn parse(text: &str) -> Option<CmConfig> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let variant = <Variant as clap::ValueEnum>::from_str(words.first()?, true).ok()?;
        let nums = |w: &str, prefix: &str| -> Option<Vec<u32>> {
            w.strip_prefix(prefix)?.split('x').map(|p| p.parse().ok()).collect()
        };
        match (variant, &words[1..]) {
            (Variant::Coopmat2, [block, wg, rest @ ..]) if rest.len() <= 1 => {
                let unroll = match rest.first() {
                    Some(u) => u.strip_prefix('u')?.parse().ok().filter(|&u| u >= 1)?,
                    None => 1,
                };
                match (nums(block, "")?.as_slice(), wg.strip_prefix("wg")?.parse().ok()?) {
                    (&[bm, bn, bk], workgroup) => Some(CmConfig {
                        variant,
                        frag: [0; 3],
                        subgroups: [1, 1],
                        tiles: [1, 1],
                        bk,
                        block: [bm, bn],
                        workgroup,
                        unroll,
                        early: false,
                    }),
                    _ => None,
                }
            }
            (Variant::Coopmat | Variant::CoopmatF32, [frag, sg, t, bk, rest @ ..]) => {
                let early = match rest {
                    [] => false,
                    ["early"] => true,
                    _ => return None,
                };
                let (frag, sg, t) = (nums(frag, "")?, nums(sg, "sg")?, nums(t, "t")?);
                let bk = bk.strip_prefix("bk")?.parse().ok()?;
                match (frag.as_slice(), sg.as_slice(), t.as_slice()) {
                    (&[m, n, k], &[sm, sn], &[tm, tn]) => Some(CmConfig {
                        variant,
                        frag: [m, n, k],
                        subgroups: [sm, sn],
                        tiles: [tm, tn],
                        bk,
                        block: [sm * tm * m, sn * tn * n],
                        workgroup: 0,
                        unroll: 1,
                        early,
                    }),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Shared memory the KHR kernel declares: two buffers of A and B tiles, each row padded
    /// by 16 bytes, or the epilogue's scratch (a 32-bit fragment per subgroup) where that is
    /// larger, as they share it. `coopmat2`: none of its own.
    pub fn shared_bytes(&self, elem: Elem) -> u32 {
        if self.variant == Variant::Coopmat2 {
            return 0;
        }
        let per_vec = 16 / elem.bytes() as u32;
        let [bm, bn] = self.block;
        let tiles = 2 * (bm * (self.bk + per_vec) + self.bk * (bn + per_vec)) * elem.bytes() as u32;
        let scratch = self.subgroups[0] * self.subgroups[1] * self.frag[0] * self.frag[1] * 4;
        tiles.max(scratch)
    }
}

/// The KHR block shapes `--tune` times and defaults are picked from, first that fits wins:
/// (subgroups down × across, fragments down × across each subgroup, K steps of fragments,
/// early loads).
/// Larger fragment grids per subgroup read fewer fragments from shared memory per multiply.
const KHR_GRID: [([u32; 2], [u32; 2], u32, bool); 20] = [
    ([2, 4], [4, 2], 2, false),
    ([4, 2], [2, 4], 2, false),
    ([2, 2], [4, 4], 2, false),
    ([2, 4], [4, 4], 1, false),
    ([2, 2], [2, 4], 2, false),
    ([1, 1], [1, 1], 1, false),
    ([2, 2], [4, 4], 1, false),
    ([1, 2], [4, 4], 2, false),
    ([4, 2], [2, 4], 1, false),
    // Fewer accumulators per subgroup (fewer registers, more subgroups resident) against more.
    ([4, 4], [2, 2], 1, false),
    ([4, 2], [2, 2], 1, false),
    ([2, 4], [4, 2], 1, false),
    ([4, 4], [2, 4], 1, false),
    ([2, 2], [2, 4], 1, false),
    ([4, 4], [4, 2], 1, false),
    ([4, 4], [2, 4], 2, false),
    // The next tiles' loads issued before the step's barrier instead of after it.
    ([4, 4], [2, 4], 1, true),
    ([4, 2], [2, 4], 1, true),
    ([2, 4], [4, 2], 1, true),
    ([4, 4], [4, 2], 1, true),
];

/// The workgroup-scope blocks of `coopmat2` (BM, BN, K step, K steps per loop iteration inside
/// the matrices), first that fits wins.
const NV_GRID: [[u32; 4]; 18] = [
    [128, 128, 32, 1],
    [128, 256, 32, 1],
    [256, 128, 32, 1],
    [64, 128, 32, 1],
    [128, 128, 64, 1],
    [128, 256, 64, 1],
    [256, 128, 64, 1],
    [128, 128, 128, 1],
    // Several K steps per iteration: more loads in flight for the driver to overlap.
    [128, 256, 32, 2],
    [128, 256, 32, 4],
    [128, 256, 16, 8],
    [128, 128, 32, 4],
    [128, 128, 64, 2],
    [64, 128, 32, 4],
    [128, 256, 32, 8],
    [128, 256, 64, 2],
    [128, 256, 64, 4],
    [256, 128, 32, 4],
];

/// Why `variant` cannot run `elem` here, if it cannot: the extension or a type's feature is
/// missing (with the context's reason), or the device lists no shape of the types.
pub fn unavailable(ctx: &Context, variant: Variant, elem: Elem) -> Option<String> {
    let name = harness::value_name(variant);
    let Some(out) = output(variant, elem) else {
        let takes = match variant {
            Variant::CoopmatF32 => "f16 and bf16 inputs only (int8 results are s32, as `coopmat` writes them)",
            v if v.is_coopmat() => "f16, bf16 and int8 inputs only",
            _ => "f32 and f16 inputs only",
        };
        return Some(format!("{name} takes {takes}"));
    };
    let ext = if variant == Variant::Coopmat2 {
        ctx.cooperative_matrix2_unavailable()
    } else {
        ctx.cooperative_matrix_unavailable()
    };
    if let Some(why) = ext {
        return Some(why.to_string());
    }
    let caps = ctx.caps();
    if !caps.vulkan_memory_model {
        return Some(format!("{} lacks vulkanMemoryModel, which cooperative-matrix loads and stores use", caps.name));
    }
    let type_reason = match elem {
        Elem::Bf16 => ctx.bfloat16_unavailable().map(str::to_string),
        Elem::Int8 if !caps.shader_int8 => Some(format!("{} lacks shaderInt8", caps.name)),
        Elem::F16 if !caps.shader_float16 => Some(format!("{} lacks shaderFloat16", caps.name)),
        _ => None,
    };
    if type_reason.is_some() {
        return type_reason;
    }
    if out.bytes() == 2 && !caps.storage_buffer_16bit {
        return Some(format!("a 16-bit D needs storageBuffer16BitAccess, which {} lacks", caps.name));
    }
    None
}

// ANCHOR: shapes
/// The subgroup-scope shapes the device lists for `elem` (A = B = elem, C = result = its
/// accumulator, no saturation) that the KHR kernel can stage: a fragment's K and N span whole
/// 16-byte vectors, N a multiple of 4 (its scratch rows). Largest first.
pub fn khr_shapes(ctx: &Context, elem: Elem) -> Vec<[u32; 3]> {
    let (ab, acc) = types(elem);
    let bytes = elem.bytes() as u32;
    let mut shapes: Vec<[u32; 3]> = ctx
        .caps()
        .coop_mat_shapes
        .iter()
        .filter(|s| s.types.scope == "subgroup" && s.types.a == ab && s.types.b == ab && s.types.c == acc)
        .filter(|s| s.types.result == acc && !s.types.saturating)
        .filter(|s| (s.k * bytes).is_multiple_of(16) && (s.n * bytes).is_multiple_of(16) && s.n.is_multiple_of(4))
        .map(|s| [s.m, s.n, s.k])
        .collect();
    shapes.sort_by_key(|&[m, n, k]| std::cmp::Reverse((m * n * k, n, m)));
    shapes.dedup();
    shapes
}
// ANCHOR_END: shapes

/// The configurations of `variant` for `elem` this device can run, in the order defaults are
/// picked: the KHR grid over the largest listed shape, or the NV blocks with a listed
/// workgroup size (256 first). Each with why not, for the tuner's notes.
pub fn grid(ctx: &Context, variant: Variant, elem: Elem) -> Vec<Result<CmConfig, String>> {
    if let Some(why) = unavailable(ctx, variant, elem) {
        return vec![Err(why)];
    }
    let caps = ctx.caps();
    if variant == Variant::Coopmat2 {
        return NV_GRID.iter().map(|&[bm, bn, bk, unroll]| nv_fit(ctx, elem, [bm, bn, bk], unroll, None)).collect();
    }
    let Some(&frag) = khr_shapes(ctx, elem).first() else {
        let (ab, acc) = types(elem);
        return vec![Err(format!(
            "{} lists no subgroup-scope {ab}×{ab}→{acc} cooperative-matrix shape whose K and N rows are whole 16-byte vectors",
            caps.name
        ))];
    };
    KHR_GRID
        .iter()
        .map(|&(subgroups, tiles, k_frags, early)| {
            // K steps of 32 bytes per row at least (two 16-byte vectors).
            let bk = (frag[2] * k_frags).max(32 / elem.bytes() as u32);
            let config = CmConfig {
                variant,
                frag,
                subgroups,
                tiles,
                bk,
                block: [subgroups[0] * tiles[0] * frag[0], subgroups[1] * tiles[1] * frag[1]],
                workgroup: 0,
                unroll: 1,
                early,
            };
            khr_fit(ctx, config, elem)
        })
        .collect()
}

/// The `coopmat2` configuration of a BM×BN block, K step BK and `unroll` for `elem`: its
/// workgroup size from a workgroup-scope shape the device lists whose granularities divide the
/// block (`wg`, if given; else 256 first, then the smallest), if there is one.
fn nv_fit(ctx: &Context, elem: Elem, [bm, bn, bk]: [u32; 3], unroll: u32, wg: Option<u32>) -> Result<CmConfig, String> {
    let caps = ctx.caps();
    let (ab, acc) = types(elem);
    let Some(c2) = &caps.coop_mat2 else { return Err(format!("{} lacks VK_NV_cooperative_matrix2", caps.name)) };
    let mut fits: Vec<&vk_compute::CoopMatFlexShape> = c2
        .flexible_shapes
        .iter()
        .filter(|s| s.types.scope == "workgroup" && s.types.a == ab && s.types.b == ab && s.types.c == acc)
        .filter(|s| s.types.result == acc && !s.types.saturating && s.workgroup_invocations <= c2.max_workgroup_size)
        .filter(|s| wg.is_none_or(|wg| s.workgroup_invocations == wg))
        .filter(|s| bm.is_multiple_of(s.m_granularity) && bn.is_multiple_of(s.n_granularity))
        .filter(|s| bk.is_multiple_of(s.k_granularity))
        .collect();
    fits.sort_by_key(|s| (s.workgroup_invocations != 256, s.workgroup_invocations));
    let s = fits.first().ok_or_else(|| {
        format!("{} lists no workgroup-scope {ab}×{ab}→{acc} shape that divides {bm}x{bn}x{bk}", caps.name)
    })?;
    Ok(CmConfig {
        variant: Variant::Coopmat2,
        frag: [s.m_granularity, s.n_granularity, s.k_granularity],
        subgroups: [1, 1],
        tiles: [1, 1],
        bk,
        block: [bm, bn],
        workgroup: s.workgroup_invocations,
        unroll,
        early: false,
    })
}

/// `config` with its workgroup size, if the device can run it (the KHR kernel).
fn khr_fit(ctx: &Context, mut config: CmConfig, elem: Elem) -> Result<CmConfig, String> {
    let caps = ctx.caps();
    let Some((size, _)) = crate::simt::subgroup_size(ctx) else {
        return Err("the subgroup size may vary and cannot be required".into());
    };
    let [sm, sn] = config.subgroups;
    config.workgroup = sm * sn * size;
    if !config.bk.is_multiple_of(config.frag[2]) || !(config.bk * elem.bytes() as u32).is_multiple_of(16) {
        return Err(format!(
            "{}: BK must be a multiple of the fragment's K and span whole 16-byte vectors",
            config.name()
        ));
    }
    if let Some(why) = ctx.subgroup_kernel_unsupported(SubgroupOps::BASIC, config.workgroup) {
        return Err(why);
    }
    if config.workgroup > caps.max_workgroup_invocations || config.workgroup > caps.max_workgroup_size[0] {
        return Err(format!("{} invocations per workgroup are beyond {}'s limit", config.workgroup, caps.name));
    }
    let shared = config.shared_bytes(elem);
    if shared > caps.max_shared_memory_bytes {
        return Err(format!(
            "{}: {shared} B of shared memory are beyond {}'s {} B",
            config.name(),
            caps.name,
            caps.max_shared_memory_bytes
        ));
    }
    Ok(config)
}

/// `pinned` checked against the device, or the first configuration of the grid that fits.
pub fn config(ctx: &Context, variant: Variant, elem: Elem, pinned: Option<CmConfig>) -> Result<CmConfig, String> {
    if let Some(p) = pinned.filter(|p| p.variant == variant) {
        if let Some(why) = unavailable(ctx, variant, elem) {
            return Err(why);
        }
        if variant == Variant::Coopmat2 {
            return nv_fit(ctx, elem, [p.block[0], p.block[1], p.bk], p.unroll, Some(p.workgroup));
        }
        if !khr_shapes(ctx, elem).contains(&p.frag) {
            return Err(format!("{}: the device lists no such {} fragment", p.name(), types(elem).0));
        }
        return khr_fit(ctx, p, elem);
    }
    let mut why = String::from("no configuration fits");
    for c in grid(ctx, variant, elem) {
        match c {
            Ok(c) => return Ok(c),
            Err(e) => why = e,
        }
    }
    Err(why)
}

/// A ceiling built from a GEMM configuration: the kernel with part of its work taken out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ceiling {
    /// KHR: the staging and fragment loads, the multiply-adds replaced by sums.
    Staging,
    /// `coopmat2`: the driver's loads, from tiles that stay in the cache.
    CachedTiles,
    /// `coopmat2`: the workgroup-scope multiply-adds alone.
    MmaOnly,
}

impl Ceiling {
    /// The first word of its bench row.
    pub fn label(self) -> &'static str {
        match self {
            Ceiling::Staging => "staging",
            Ceiling::CachedTiles => "cached",
            Ceiling::MmaOnly => "peak",
        }
    }

    /// The shader define that builds it (coopmat.comp's STAGE_ONLY, coopmat2.comp's CEILING).
    fn define(self) -> (&'static str, u32) {
        match self {
            Ceiling::Staging => ("STAGE_ONLY", 1),
            Ceiling::CachedTiles => ("CEILING", 1),
            Ceiling::MmaOnly => ("CEILING", 2),
        }
    }

    /// Whether its row counts the tile bytes the kernel loads.
    pub fn loads_tiles(self) -> bool {
        self != Ceiling::MmaOnly
    }
}

/// One cooperative-matrix configuration built for one input and output type: its pipeline.
pub struct CoopGemm<'c> {
    pub config: CmConfig,
    pub elem: Elem,
    pub out: Out,
    pub kernel: Kernel<'c>,
}

impl<'c> CoopGemm<'c> {
    /// Build `config` for `elem`, or say why the device cannot. `fault`: the `--inject-fault`
    /// defines for the problem the kernel will run (they depend on its shape).
    pub fn new(
        ctx: &'c Context,
        config: CmConfig,
        elem: Elem,
        fault: Option<(&harness::CommonArgs, Shape)>,
    ) -> Result<Result<Self, String>> {
        Self::build(ctx, config, elem, fault, None)
    }

    /// The ceilings of this configuration at `shape`, each its kernel built another way, timed
    /// beside the GEMM and never checked: KHR f16, the staging (STAGE_ONLY in coopmat.comp);
    /// `coopmat2` f16 where every block is interior, the cached tiles and the multiply-adds
    /// alone (CEILING in coopmat2.comp). None for other variants and types.
    pub fn ceilings(&self, ctx: &'c Context, shape: Shape) -> Result<Vec<(Ceiling, Self)>> {
        let [bm, bn] = self.config.block;
        let interior = shape.m.is_multiple_of(bm)
            && shape.n.is_multiple_of(bn)
            && shape.k.is_multiple_of(self.config.unroll * self.config.bk);
        let kinds: &[Ceiling] = match (self.config.variant, self.elem) {
            (Variant::Coopmat, Elem::F16) => &[Ceiling::Staging],
            (Variant::Coopmat2, Elem::F16) if interior => &[Ceiling::CachedTiles, Ceiling::MmaOnly],
            _ => &[],
        };
        let mut built = Vec::new();
        for &kind in kinds {
            match Self::build(ctx, self.config, self.elem, None, Some(kind))? {
                Ok(ceiling) => built.push((kind, ceiling)),
                Err(why) => out(format!("note: no {} ceiling for {}: {why}", kind.label(), self.config.name())),
            }
        }
        Ok(built)
    }

    /// Bytes of A and B tiles the kernel loads over `shape` (see [`crate::simt::staged_bytes`]).
    pub fn staged_bytes(&self, shape: Shape) -> u64 {
        crate::simt::staged_bytes(shape, self.config.block, self.config.bk, self.elem)
    }

    fn build(
        ctx: &'c Context,
        config: CmConfig,
        elem: Elem,
        fault: Option<(&harness::CommonArgs, Shape)>,
        ceiling: Option<Ceiling>,
    ) -> Result<Result<Self, String>> {
        if let Some(why) = unavailable(ctx, config.variant, elem) {
            return Ok(Err(why));
        }
        let Some(out) = output(config.variant, elem) else {
            return Ok(Err(format!("{} does not take {elem:?}", config.name())));
        };
        let mut defines = harness::numeric_defines(&[("ELEM", elem_define(elem)), ("OUT", out.define())]);
        let [fm, fn_, fk] = config.frag;
        let nv = config.variant == Variant::Coopmat2;
        let mut required = None;
        if nv {
            defines.extend(harness::numeric_defines(&[
                ("BM", config.block[0]),
                ("BN", config.block[1]),
                ("BK", config.bk),
                ("UNROLL", config.unroll),
            ]));
        } else {
            let Some((size, must_require)) = crate::simt::subgroup_size(ctx) else {
                return Ok(Err("the subgroup size may vary and cannot be required".into()));
            };
            required = must_require.then_some(size);
            defines.extend(harness::numeric_defines(&[
                ("FM", fm),
                ("FN", fn_),
                ("FK", fk),
                ("SG_M", config.subgroups[0]),
                ("SG_N", config.subgroups[1]),
                ("TM", config.tiles[0]),
                ("TN", config.tiles[1]),
                ("BK", config.bk),
                ("SUBGROUP_SIZE", size),
                ("EARLY_LOADS", u32::from(config.early)),
            ]));
        }
        if let Some(c) = ceiling {
            defines.extend(harness::numeric_defines(&[c.define()]));
        }
        if let Some((common, shape)) = fault {
            let per_element = ctx.caps().coop_mat2.as_ref().is_some_and(|c| c.per_element_operations);
            if nv && common.inject_fault == Some(harness::Fault::OffByOne) && !per_element {
                return Ok(Err(format!(
                    "{}: --inject-fault off-by-one needs cooperativeMatrixPerElementOperations",
                    config.name()
                )));
            }
            let site = FaultSite::of(shape);
            let [bm, bn] = config.block;
            let tile = u64::from(site.m / bm) * u64::from(shape.n.div_ceil(bn)) + u64::from(site.n / bn);
            defines.extend(common.fault_defines(site.element(shape), tile));
        }
        let desc = KernelDesc {
            shader: if nv { "06_gemm/coopmat2.comp" } else { "06_gemm/coopmat.comp" },
            defines,
            buffers: 4,
            push_constant_bytes: std::mem::size_of::<Push>() as u32,
            workgroup_size: config.workgroup,
            subgroup_size: required,
            spirv_1_6: nv,
            ..Default::default()
        };
        let kernel = Kernel::new(ctx, &desc).with_context(|| format!("build {}", config.name()))?;
        Ok(Ok(CoopGemm { config, elem, out, kernel }))
    }
}

/// A listed shape's component types as the peak shader names them (GLSL type, bytes).
fn glsl_type(name: &str) -> Option<(&'static str, u32)> {
    Some(match name {
        "f16" => ("float16_t", 2),
        "f32" => ("float", 4),
        "bf16" => ("bfloat16_t", 2),
        "s8" => ("int8_t", 1),
        "u8" => ("uint8_t", 1),
        "s32" => ("int", 4),
        "u32" => ("uint", 4),
        _ => return None,
    })
}

/// The matrix units' ceilings: glsl/06_gemm/coopmat_peak.comp timed for every subgroup-scope
/// shape the device lists, one bench row each (TOP/s for integers). Returns the best TFLOP/s
/// (TOP/s) per (A type, accumulator type), the ceiling the GEMM rows of that type are shares of.
pub fn peaks(ctx: &Context, report: &mut Report) -> Result<Vec<((String, String), f64)>> {
    let mut best: Vec<((String, String), f64)> = Vec::new();
    if let Some(why) = ctx.cooperative_matrix_unavailable() {
        report.skip("peak coopmat", why);
        return Ok(best);
    }
    if !ctx.caps().vulkan_memory_model {
        report.skip("peak coopmat", "no vulkanMemoryModel, which cooperative-matrix code uses");
        return Ok(best);
    }
    let Some((size, must_require)) = crate::simt::subgroup_size(ctx) else {
        report.skip("peak coopmat", "the subgroup size may vary and cannot be required");
        return Ok(best);
    };
    let cpu = ctx.caps().is_cpu();
    let (groups, steps): (u32, u32) = if cpu { (16, 16) } else { (4096, 1024) };
    const ACCS: u32 = 8;
    const SUBGROUPS: u32 = 4;
    for s in ctx.caps().coop_mat_shapes.clone().iter().filter(|s| s.types.scope == "subgroup") {
        let label = format!("peak coopmat {}×{}→{} {}x{}x{}", s.types.a, s.types.b, s.types.result, s.m, s.n, s.k);
        let types = (glsl_type(&s.types.a), glsl_type(&s.types.c));
        let ((Some((a, _)), Some((c, c_bytes))), true) = (types, s.types.a == s.types.b && s.types.c == s.types.result)
        else {
            out(format!("note: {label}: mixed or unknown component types, not timed"));
            continue;
        };
        let missing = match s.types.a.as_str() {
            "bf16" => ctx.bfloat16_unavailable().map(str::to_string),
            "s8" | "u8" if !ctx.caps().shader_int8 => Some("no shaderInt8".into()),
            _ => None,
        };
        if let Some(why) = missing {
            out(format!("note: {label}: not timed: {why}"));
            continue;
        }
        if !(s.n * c_bytes).is_multiple_of(16) {
            out(format!("note: {label}: its accumulator rows are not whole 16-byte vectors, not timed"));
            continue;
        }
        let mut defines: Vec<(&str, String)> = vec![("A_TYPE", a.into()), ("C_TYPE", c.into())];
        defines.extend(harness::numeric_defines(&[
            ("C_BYTES", c_bytes),
            ("NEEDS_BF16", u32::from(s.types.a == "bf16")),
            ("M", s.m),
            ("N", s.n),
            ("K", s.k),
            ("ACCS", ACCS),
        ]));
        let integer = s.types.a.starts_with(['s', 'u']);
        let seed: f32 = if integer { 1.0 } else { 0.125 };
        let kernel = SinkKernel { shader: "06_gemm/coopmat_peak.comp", workgroup: (SUBGROUPS, size, must_require) };
        let times =
            kernel.time(ctx, report, &label, defines, [groups, s.m * s.n * c_bytes], [steps, seed.to_bits()])?;
        let ops = u64::from(groups * SUBGROUPS) * u64::from(steps * ACCS) * 2 * u64::from(s.m * s.n * s.k);
        let name = if integer { format!("{label} (TOP/s)") } else { label };
        let row = BenchRow::new(&name, 0, 0, ops, &times, None);
        let key = (s.types.a.clone(), s.types.c.clone());
        match best.iter_mut().find(|(k, _)| *k == key) {
            Some((_, t)) => *t = t.max(row.tflops),
            None => best.push((key, row.tflops)),
        }
        report.bench_row(row);
    }
    feeds(ctx, report, size, must_require)?;
    Ok(best)
}

/// The ceiling of a GEMM's inner loop, glsl/06_gemm/coopmat_feed.comp: the multiply-adds of a
/// TM×TN fragment grid fed by fragment loads from shared memory, with B stored row-major (as
/// `coopmat` stores it) or column-major, for the f16 and int8 shapes the GEMM uses. One bench
/// row each.
fn feeds(ctx: &Context, report: &mut Report, size: u32, must_require: bool) -> Result<()> {
    const SUBGROUPS: u32 = 8;
    let cpu = ctx.caps().is_cpu();
    for elem in [Elem::F16, Elem::Int8] {
        if unavailable(ctx, Variant::Coopmat, elem).is_some() {
            continue;
        }
        let Some(&[m, n, k]) = khr_shapes(ctx, elem).first() else { continue };
        let (ab, acc) = types(elem);
        let (a_type, c_type, fill) =
            if elem == Elem::Int8 { ("int8_t", "int", 0x0101_0101) } else { ("float16_t", "float", 0x3000_3000) };
        for (grid, b_col) in [([2, 4], false), ([2, 4], true), ([4, 4], false), ([4, 4], true)] {
            let layout = if b_col { "column" } else { "row" };
            let label = format!("feed coopmat {ab}×{ab}→{acc} {m}x{n}x{k} t{}x{}, B {layout}-major", grid[0], grid[1]);
            let mut defines: Vec<(&str, String)> = vec![("A_TYPE", a_type.into()), ("C_TYPE", c_type.into())];
            defines.extend(harness::numeric_defines(&[
                ("A_BYTES", elem.bytes() as u32),
                ("C_BYTES", 4),
                ("M", m),
                ("N", n),
                ("K", k),
                ("TM", grid[0]),
                ("TN", grid[1]),
                ("B_COL", u32::from(b_col)),
            ]));
            let (groups, steps): (u32, u32) = if cpu { (8, 16) } else { (2048, 8192 / (grid[0] * grid[1])) };
            let kernel = SinkKernel { shader: "06_gemm/coopmat_feed.comp", workgroup: (SUBGROUPS, size, must_require) };
            let times = kernel.time(ctx, report, &label, defines, [groups, m * n * 4], [steps, fill])?;
            let mmas = u64::from(groups * SUBGROUPS) * u64::from(steps * grid[0] * grid[1]);
            let ops = mmas * 2 * u64::from(m * n * k);
            let name = if elem == Elem::Int8 { format!("{label} (TOP/s)") } else { label };
            report.bench_row(BenchRow::new(&name, 0, 0, ops, &times, None));
        }
    }
    Ok(())
}

/// A ceiling kernel (coopmat_peak.comp, coopmat_feed.comp): one binding, a sink that each
/// subgroup stores its sum into, and two push-constant words.
struct SinkKernel {
    shader: &'static str,
    /// Subgroups per workgroup, the subgroup size, and whether the size must be required.
    workgroup: (u32, u32, bool),
}

impl SinkKernel {
    /// Build it with `defines`, show its pipeline statistics under `label`, and time `groups`
    /// workgroups whose subgroups each store `bytes` (`[groups, bytes]`), with `push`.
    fn time(
        &self,
        ctx: &Context,
        report: &mut Report,
        label: &str,
        defines: Vec<(&str, String)>,
        [groups, bytes]: [u32; 2],
        push: [u32; 2],
    ) -> Result<harness::GpuTimes> {
        let (subgroups, size, must_require) = self.workgroup;
        let desc = KernelDesc {
            shader: self.shader,
            defines,
            buffers: 1,
            push_constant_bytes: 8,
            workgroup_size: subgroups * size,
            subgroup_size: must_require.then_some(size),
            ..Default::default()
        };
        let kernel = Kernel::new(ctx, &desc).with_context(|| label.to_string())?;
        report.pipeline_stats(label, [&kernel])?;
        let sink = Buffer::<[u32; 4]>::new(ctx, "coopmat ceiling sink", (groups * subgroups * bytes / 16) as usize)?;
        let timing = Timing { warmup: 5, iters: if ctx.caps().is_cpu() { 3 } else { 20 }, batch: 1 };
        harness::time_gpu(ctx, &timing, |rec| rec.dispatch(&kernel, &[sink.binding()], &push, [groups, 1, 1]))
    }
}

/// The ceiling a GEMM row of `elem` on the matrix units is a share of (see [`peaks`]).
pub fn peak_of(peaks: &[((String, String), f64)], elem: Elem) -> Option<f64> {
    let (ab, acc) = types(elem);
    peaks.iter().find(|((a, c), _)| a == ab && c == acc).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cooperative-matrix kernel compiles for every type, output and listed shape, with
    /// and without each fault: the shaders are right by construction at least
    /// as far as glslang sees. Needs no device (lavapipe has no cooperative matrices).
    #[test]
    fn every_cooperative_matrix_kernel_compiles() {
        let faults = [None, Some(1), Some(2)];
        for elem in [Elem::F16, Elem::Bf16, Elem::Int8] {
            for variant in [Variant::Coopmat, Variant::CoopmatF32, Variant::Coopmat2] {
                let Some(out) = output(variant, elem) else { continue };
                for fault in faults {
                    let mut defines = harness::numeric_defines(&[("ELEM", elem_define(elem)), ("OUT", out.define())]);
                    if let Some(f) = fault {
                        defines.extend(harness::numeric_defines(&[
                            ("INJECT_FAULT", f),
                            ("FAULT_ELEMENT", 1000),
                            ("FAULT_WORKGROUP", 3),
                        ]));
                    }
                    let (shader, nv) = if variant == Variant::Coopmat2 {
                        defines.extend(harness::numeric_defines(&[
                            ("BM", 128),
                            ("BN", 128),
                            ("BK", 32),
                            ("UNROLL", 4),
                            ("WORKGROUP_SIZE", 256),
                        ]));
                        ("06_gemm/coopmat2.comp", true)
                    } else {
                        let (fk, fn_) = if elem == Elem::Int8 { (32, 16) } else { (16, 16) };
                        defines.extend(harness::numeric_defines(&[
                            ("FM", 16),
                            ("FN", fn_),
                            ("FK", fk),
                            ("SG_M", 2),
                            ("SG_N", 4),
                            ("TM", 4),
                            ("TN", 2),
                            ("BK", 2 * fk),
                            // Both load orders compile: the early one with the faults.
                            ("EARLY_LOADS", u32::from(fault.is_some())),
                            ("SUBGROUP_SIZE", 32),
                            ("WORKGROUP_SIZE", 256),
                        ]));
                        ("06_gemm/coopmat.comp", false)
                    };
                    vk_compute::compile_glsl_for(shader, &defines, nv)
                        .unwrap_or_else(|e| panic!("{variant:?} {elem:?} {out:?} fault {fault:?}: {e:#}"));
                    if variant == Variant::Coopmat && elem == Elem::F16 && fault.is_none() {
                        defines.extend(harness::numeric_defines(&[("STAGE_ONLY", 1)]));
                        vk_compute::compile_glsl(shader, &defines).expect("the staging ceiling compiles");
                    }
                    if variant == Variant::Coopmat2 && elem == Elem::F16 && fault.is_none() {
                        for ceiling in [1, 2] {
                            let mut defines = defines.clone();
                            defines.extend(harness::numeric_defines(&[("CEILING", ceiling)]));
                            vk_compute::compile_glsl_for(shader, &defines, nv)
                                .unwrap_or_else(|e| panic!("coopmat2 ceiling {ceiling}: {e:#}"));
                        }
                    }
                }
            }
        }
        // The 16×8 fragments of f16 (16×8×16 and 16×8×8) too.
        for fk in [8, 16] {
            let defines = harness::numeric_defines(&[
                ("ELEM", 0),
                ("OUT", 1),
                ("FM", 16),
                ("FN", 8),
                ("FK", fk),
                ("SG_M", 2),
                ("SG_N", 2),
                ("TM", 2),
                ("TN", 4),
                ("BK", 32),
                ("SUBGROUP_SIZE", 32),
                ("WORKGROUP_SIZE", 128),
            ]);
            vk_compute::compile_glsl("06_gemm/coopmat.comp", &defines).expect("16x8 fragments compile");
        }
    }

    /// The peak kernel compiles for each (shape, type) of the list below, one of each kind of entry a
    /// device reports.
    #[test]
    fn the_peak_kernel_compiles_for_every_listed_type() {
        let listed = [
            ("f16", "f32", [16, 16, 16]),
            ("f16", "f16", [16, 8, 8]),
            ("bf16", "f32", [16, 16, 16]),
            ("s8", "s32", [16, 16, 32]),
            ("u8", "u32", [16, 8, 32]),
        ];
        for (a, c, [m, n, k]) in listed {
            let ((a_glsl, _), (c_glsl, c_bytes)) = (glsl_type(a).expect("known"), glsl_type(c).expect("known"));
            let mut defines: Vec<(&str, String)> = vec![("A_TYPE", a_glsl.into()), ("C_TYPE", c_glsl.into())];
            defines.extend(harness::numeric_defines(&[
                ("C_BYTES", c_bytes),
                ("NEEDS_BF16", u32::from(a == "bf16")),
                ("M", m),
                ("N", n),
                ("K", k),
                ("ACCS", 8),
                ("WORKGROUP_SIZE", 128),
            ]));
            vk_compute::compile_glsl("06_gemm/coopmat_peak.comp", &defines)
                .unwrap_or_else(|e| panic!("{a}→{c} {m}x{n}x{k}: {e:#}"));
        }
    }

    /// The feed kernel compiles for the f16 and int8 shapes the GEMM uses, B either way round.
    #[test]
    fn the_feed_kernel_compiles() {
        for ((a, c, bytes, [m, n, k]), b_col) in
            [("float16_t", "float", 2, [16, 16, 16]), ("int8_t", "int", 1, [16, 16, 32])].into_iter().zip([0, 1])
        {
            let mut defines: Vec<(&str, String)> = vec![("A_TYPE", a.into()), ("C_TYPE", c.into())];
            defines.extend(harness::numeric_defines(&[
                ("A_BYTES", bytes),
                ("C_BYTES", 4),
                ("M", m),
                ("N", n),
                ("K", k),
                ("TM", 2),
                ("TN", 4),
                ("B_COL", b_col),
                ("WORKGROUP_SIZE", 256),
            ]));
            vk_compute::compile_glsl("06_gemm/coopmat_feed.comp", &defines).unwrap_or_else(|e| panic!("{a}: {e:#}"));
        }
    }

    #[test]
    fn names_parse_back() {
        let khr = CmConfig {
            variant: Variant::Coopmat,
            frag: [16, 16, 16],
            subgroups: [2, 4],
            tiles: [4, 2],
            bk: 32,
            block: [128, 128],
            workgroup: 0,
            unroll: 1,
            early: false,
        };
        assert_eq!(khr.name(), "coopmat 16x16x16 sg2x4 t4x2 bk32");
        assert_eq!(CmConfig::parse(&khr.name()), Some(khr));
        let early = CmConfig { early: true, ..khr };
        assert_eq!(early.name(), "coopmat 16x16x16 sg2x4 t4x2 bk32 early");
        assert_eq!(CmConfig::parse(&early.name()), Some(early));
        assert_eq!(CmConfig::parse("coopmat 16x16x16 sg2x4 t4x2 bk32 late"), None);
        assert_eq!(CmConfig::parse("coopmat2 128x256x32 wg256 early"), None);
        let nv = CmConfig::parse("coopmat2 128x256x32 wg256").expect("parses");
        assert_eq!((nv.block, nv.bk, nv.workgroup), ([128, 256], 32, 256));
        assert_eq!(nv.name(), "coopmat2 128x256x32 wg256");
        let unrolled = CmConfig::parse("coopmat2 128x256x32 wg256 u4").expect("parses");
        assert_eq!((unrolled.unroll, unrolled.name()), (4, "coopmat2 128x256x32 wg256 u4".to_string()));
        assert_eq!(CmConfig::parse("coopmat2 128x256x32 wg256 u0"), None);
        assert_eq!(CmConfig::parse("register 128x128x8 8x8 pad4"), None);
    }

    #[test]
    fn outputs_by_variant_and_type() {
        assert_eq!(output(Variant::Coopmat, Elem::F16), Some(Out::F16));
        assert_eq!(output(Variant::CoopmatF32, Elem::Bf16), Some(Out::F32));
        assert_eq!(output(Variant::Coopmat2, Elem::Bf16), Some(Out::F32));
        assert_eq!(output(Variant::Coopmat, Elem::Int8), Some(Out::S32));
        assert_eq!(output(Variant::CoopmatF32, Elem::Int8), None);
        assert_eq!(output(Variant::Coopmat, Elem::F32), None);
        assert_eq!(output(Variant::Register, Elem::F16), Some(Out::F32));
        assert_eq!(output(Variant::Register, Elem::Int8), None);
    }
}
