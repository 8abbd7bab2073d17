//! The SIMT kernels of 06_gemm: what a configuration is (variant, block tile, per-invocation
//! tile, padding, subgroup strategy), which configurations a device can run, and how one is
//! built into a pipeline and dispatched over an M×N×K problem.

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use vk_compute::{vk, Barrier, Binding, Context, Kernel, KernelDesc, Recorder, SubgroupOps};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// One output per invocation, operands from global memory.
    Naive,
    /// Shared-memory tiles, one output per invocation.
    Shared,
    /// A TM×TN register tile per invocation, double-buffered shared tiles, 4-vector loads.
    Register,
    /// `register` with the A fragments exchanged through subgroup operations.
    Subgroup,
    /// Tensor cores through VK_KHR_cooperative_matrix: subgroup-scope fragments, tiles staged
    /// in shared memory by hand; D in the input's width (f16, bf16; int8: s32). See coopmat.rs.
    Coopmat,
    /// `coopmat` with D in f32.
    #[value(name = "coopmat-f32")]
    #[serde(rename = "coopmat-f32")]
    CoopmatF32,
    /// Tensor cores through VK_NV_cooperative_matrix2: workgroup-scope matrices loaded through
    /// tensor layouts, clamped at the edges.
    Coopmat2,
}

impl Variant {
    /// The cooperative-matrix variants (coopmat.rs), which take f16, bf16 and int8 inputs.
    pub fn is_coopmat(self) -> bool {
        matches!(self, Variant::Coopmat | Variant::CoopmatF32 | Variant::Coopmat2)
    }
}

/// How the subgroup variant hands the A fragments of each k to its lanes (glsl/06_gemm/subgroup.comp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum, Serialize, Deserialize)]
pub enum Strategy {
    /// Each lane reads one column of the step; `subgroupBroadcast` from its owner at each k.
    #[value(name = "broadcast")]
    #[serde(rename = "broadcast")]
    Broadcast,
    /// The same reads; round s takes lane (id XOR s)'s column with `subgroupShuffleXor`.
    #[value(name = "shuffleXor")]
    #[serde(rename = "shuffleXor")]
    ShuffleXor,
    /// At each k only the `subgroupElect`ed lane reads; `subgroupBroadcastFirst` to the rest.
    #[value(name = "electFirst")]
    #[serde(rename = "electFirst")]
    ElectFirst,
}

/// The element type of A and B (products are accumulated in f32, int8's in s32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Elem {
    F32,
    /// f16 inputs (VK_KHR_16bit_storage), f32 accumulation; the SIMT kernels write f32.
    F16,
    /// bf16 inputs (cooperative-matrix variants only, VK_KHR_shader_bfloat16), f32 accumulation.
    Bf16,
    /// s8 inputs (cooperative-matrix variants only), s32 accumulation and output; α = 1, β = 0.
    Int8,
}

impl Elem {
    pub fn bytes(self) -> u64 {
        match self {
            Elem::F32 => 4,
            Elem::F16 | Elem::Bf16 => 2,
            Elem::Int8 => 1,
        }
    }

    /// Whether the SIMT kernels (naive … subgroup) take it.
    pub fn simt(self) -> bool {
        matches!(self, Elem::F32 | Elem::F16)
    }
}

/// One kernel configuration. naive and shared use `bm` (= `bn`) as their square tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Config {
    pub variant: Variant,
    /// The block of D one workgroup computes (BM×BN) and the K step (BK).
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    /// The block of D one invocation holds in registers (TM×TN).
    pub tm: u32,
    pub tn: u32,
    /// Floats of padding per row of the transposed A tile (bank conflicts).
    pub pad: u32,
    pub strategy: Option<Strategy>,
    /// register: the lanes are taken in groups of W×H over the lane grid (`None`: rows).
    pub lanes: Option<(u32, u32)>,
    /// Split-K: slices of K computed by separate workgroups and summed by a second pass (1: none).
    pub split: u32,
    /// register and subgroup: the A tile's 4-vectors are XOR-swizzled per k instead of padded,
    /// so that the transposing stores hit different banks at no cost in shared memory.
    #[serde(default)]
    pub swizzle: bool,
    /// register and subgroup: which matrices are read as uniform texel buffers (the texture
    /// path) instead of storage buffers where their 4-vectors are aligned: 0 none, 1 A, 2 B, 3 both.
    #[serde(default)]
    pub texels: u32,
}

impl Config {
    pub const fn square(variant: Variant, t: u32, pad: u32) -> Self {
        Config::tiled(variant, (t, t, t), (1, 1), pad)
    }

    pub const fn tiled(variant: Variant, (bm, bn, bk): (u32, u32, u32), (tm, tn): (u32, u32), pad: u32) -> Self {
        Config { variant, bm, bn, bk, tm, tn, pad, strategy: None, lanes: None, split: 1, swizzle: false, texels: 0 }
    }

    pub const fn lanes(mut self, w: u32, h: u32) -> Self {
        self.lanes = Some((w, h));
        self
    }

    pub const fn split(mut self, slices: u32) -> Self {
        self.split = slices;
        self
    }

    pub const fn swizzled(mut self) -> Self {
        self.swizzle = true;
        self
    }

    /// Read A (`matrices` 1), B (2) or both (3) through the texture path.
    pub const fn texel_loads(mut self, matrices: u32) -> Self {
        self.texels = matrices;
        self
    }

    pub const fn with(mut self, strategy: Strategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    pub fn workgroup_size(&self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Shared memory one workgroup uses, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        match self.variant {
            Variant::Naive => 0,
            Variant::Shared => 4 * (self.bm * (self.bm + self.pad) + self.bm * self.bm),
            _ => 4 * 2 * self.bk * (self.bm + self.pad + self.bn),
        }
    }

    /// `register 128x128x8 8x8 pad4` (+ ` lanes8x4`, ` split8`, ` shuffleXor`): the form
    /// `--config NAME` takes.
    pub fn name(&self) -> String {
        let variant = harness::value_name(self.variant);
        let mut name = match self.variant {
            Variant::Naive => format!("{variant} {}x{}", self.bm, self.bn),
            Variant::Shared => format!("{variant} {}x{} pad{}", self.bm, self.bn, self.pad),
            _ => format!("{variant} {}x{}x{} {}x{} pad{}", self.bm, self.bn, self.bk, self.tm, self.tn, self.pad),
        };
        if let Some((w, h)) = self.lanes {
            name += &format!(" lanes{w}x{h}");
        }
        if self.split > 1 {
            name += &format!(" split{}", self.split);
        }
        if self.swizzle {
            name += " swizzle";
        }
        match self.texels {
            0 => {}
            1 => name += " texelsA",
            2 => name += " texelsB",
            _ => name += " texels",
        }
        if let Some(s) = self.strategy {
            name += &format!(" {}", harness::value_name(s));
        }
        name
    }

    /// The inverse of [`Config::name`] for the tiled variants.
    pub fn parse(text: &str) -> Option<Config> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let variant = Variant::from_str(words.first()?, true).ok()?;
        let nums = |w: &str| -> Option<Vec<u32>> { w.split('x').map(|p| p.parse().ok()).collect() };
        let block = nums(words.get(1)?)?;
        let thread = nums(words.get(2)?)?;
        let pad = words.get(3)?.strip_prefix("pad")?.parse().ok()?;
        let mut config = match (variant, block.as_slice(), thread.as_slice()) {
            (Variant::Register | Variant::Subgroup, &[bm, bn, bk], &[tm, tn]) => {
                Config::tiled(variant, (bm, bn, bk), (tm, tn), pad)
            }
            _ => return None,
        };
        for word in &words[4..] {
            if let Some(lanes) = word.strip_prefix("lanes") {
                let wh = nums(lanes)?;
                config.lanes = Some((*wh.first()?, *wh.get(1)?));
            } else if let Some(split) = word.strip_prefix("split") {
                config.split = split.parse().ok()?;
            } else if *word == "swizzle" {
                config.swizzle = true;
            } else if let Some(which) = word.strip_prefix("texels") {
                config.texels = match which {
                    "" => 3,
                    "A" => 1,
                    "B" => 2,
                    _ => return None,
                };
            } else {
                config.strategy = Some(Strategy::from_str(word, false).ok()?);
            }
        }
        Some(config)
    }

    /// Why this device cannot run the configuration, if it cannot. `subgroup`: the subgroup
    /// size the pipeline will have.
    pub fn unsupported(&self, ctx: &Context, elem: Elem, subgroup: Option<u32>) -> Option<String> {
        let caps = ctx.caps();
        if !elem.simt() || self.variant.is_coopmat() {
            return Some(format!(
                "{} takes f32 and f16 inputs only (bf16 and int8 run on the cooperative-matrix variants)",
                harness::value_name(self.variant)
            ));
        }
        if elem == Elem::F16 && !caps.storage_buffer_16bit {
            return Some(format!("{} lacks storageBuffer16BitAccess (VK_KHR_16bit_storage)", caps.name));
        }
        let wg = self.workgroup_size();
        if wg > caps.max_workgroup_invocations || wg > caps.max_workgroup_size[0] {
            return Some(format!("{wg} invocations per workgroup are beyond {}'s limit", caps.name));
        }
        if self.shared_bytes() > caps.max_shared_memory_bytes {
            return Some(format!(
                "{} B of shared memory are beyond {}'s {} B",
                self.shared_bytes(),
                caps.name,
                caps.max_shared_memory_bytes
            ));
        }
        if self.texels > 3 || self.texels != 0 && !matches!(self.variant, Variant::Register | Variant::Subgroup) {
            return Some(format!("{}: texel loads are for register and subgroup", self.name()));
        }
        if matches!(self.variant, Variant::Naive | Variant::Shared) {
            return None;
        }
        let tiled = self.bm.is_multiple_of(self.tm)
            && self.bn.is_multiple_of(self.tn)
            && self.tm.is_multiple_of(4)
            && self.tn.is_multiple_of(4)
            && self.bk.is_multiple_of(4)
            && self.pad.is_multiple_of(4)
            && (4..=32).contains(&self.bk);
        if !tiled {
            return Some(format!("{}: TM, TN, BK and the padding must be multiples of 4, BK at most 32", self.name()));
        }
        if let Some((w, h)) = self.lanes {
            let (across, down) = (self.bn / self.tn, self.bm / self.tm);
            if self.variant != Variant::Register || w == 0 || h == 0 || across % w != 0 || down % h != 0 {
                return Some(format!(
                    "{}: lane groups are for register, and must tile its {across}×{down} lane grid",
                    self.name()
                ));
            }
        }
        if self.swizzle && (self.pad != 0 || !self.bm.is_multiple_of(32)) {
            return Some(format!("{}: the swizzle takes no padding and BM a multiple of 32", self.name()));
        }
        if !(1..=64).contains(&self.split) {
            return Some(format!("{}: split-K takes 1 to 64 slices", self.name()));
        }
        if self.variant == Variant::Subgroup {
            let Some(s) = subgroup else {
                return Some("the subgroup size may vary and cannot be required".into());
            };
            let needs = SubgroupOps::BASIC | SubgroupOps::BALLOT | SubgroupOps::SHUFFLE;
            if let Some(reason) = ctx.subgroup_kernel_unsupported(needs, wg) {
                return Some(reason);
            }
            if !(self.bn / self.tn).is_multiple_of(s) || !self.bk.is_power_of_two() || !s.is_power_of_two() {
                return Some(format!(
                    "{}: BN/TN = {} is no multiple of the subgroup size {s} (a subgroup must lie in one row of lanes)",
                    self.name(),
                    self.bn / self.tn
                ));
            }
        }
        None
    }
}

/// The subgroup size a subgroup-variant pipeline gets, and whether it must be required: the
/// device's fixed size, else the largest it can require; `None` if neither.
pub fn subgroup_size(ctx: &Context) -> Option<(u32, bool)> {
    if let Some(s) = ctx.fixed_subgroup_size() {
        return Some((s, false));
    }
    ctx.caps().requirable_subgroup_sizes().last().map(|&s| (s, true))
}

/// An M×N×K problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

impl Shape {
    pub fn label(&self) -> String {
        format!("{}x{}x{}", self.m, self.n, self.k)
    }

    pub fn flops(&self) -> u64 {
        2 * u64::from(self.m) * u64::from(self.n) * u64::from(self.k)
    }
}

/// The push constants of every GEMM kernel (glsl/06_gemm/gemm_io.glsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Push {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub alpha: f32,
    pub beta: f32,
}

/// Where `--inject-fault` strikes in a problem: the element of A read from its neighbour
/// (row m, column k) and the output column n whose tile is dropped. The host plants values
/// there so that either fault changes D[m][n].
#[derive(Clone, Copy, Debug)]
pub struct FaultSite {
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

impl FaultSite {
    pub fn of(shape: Shape) -> Self {
        FaultSite { m: (shape.m - 1) / 2, n: (shape.n - 1) / 2, k: (shape.k - 1) / 2 }
    }

    /// The flat index of A[m][k].
    pub fn element(&self, shape: Shape) -> u64 {
        u64::from(self.m) * u64::from(shape.k) + u64::from(self.k)
    }
}

/// One configuration built for one element type: its pipeline.
pub struct Gemm<'c> {
    pub config: Config,
    pub elem: Elem,
    pub kernel: Kernel<'c>,
    /// Split-K's second pass (glsl/06_gemm/split_reduce.comp), where `config.split` > 1.
    pub reduce: Option<Kernel<'c>>,
}

/// A ceiling of a `register` configuration: its kernel with part of the step loop's work
/// taken out (CEILING in glsl/06_gemm/block_tile.glsl), timed beside the GEMM, never checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ceiling {
    /// The tiles stay in shared memory: multiply-adds, their reads and the barriers.
    Resident,
    /// The multiply-adds and their shared-memory reads alone.
    Inner,
    /// The global loads, shared stores and barriers alone.
    Staging,
}

impl Ceiling {
    pub const ALL: [Ceiling; 3] = [Ceiling::Resident, Ceiling::Inner, Ceiling::Staging];

    /// The first word of its bench row.
    pub fn label(self) -> &'static str {
        match self {
            Ceiling::Resident => "resident",
            Ceiling::Inner => "inner",
            Ceiling::Staging => "staging",
        }
    }

    fn define(self) -> u32 {
        match self {
            Ceiling::Resident => 1,
            Ceiling::Inner => 2,
            Ceiling::Staging => 3,
        }
    }
}

impl<'c> Gemm<'c> {
    /// Build `config` for `elem`, or say why the device cannot. `fault`: the `--inject-fault`
    /// defines for the problem the kernel will run (they depend on its shape).
    pub fn new(
        ctx: &'c Context,
        config: Config,
        elem: Elem,
        fault: Option<(&harness::CommonArgs, Shape)>,
    ) -> Result<Result<Self, String>> {
        Self::build(ctx, config, elem, fault, None)
    }

    /// The ceilings of a `register` f32 configuration (none for the others).
    pub fn ceilings(&self, ctx: &'c Context) -> Result<Vec<(Ceiling, Self)>> {
        if self.config.variant != Variant::Register || self.elem != Elem::F32 {
            return Ok(Vec::new());
        }
        let mut built = Vec::new();
        for kind in Ceiling::ALL {
            match Self::build(ctx, self.config, self.elem, None, Some(kind))? {
                Ok(ceiling) => built.push((kind, ceiling)),
                Err(why) => {
                    harness::out(format!("note: no {} ceiling for {}: {why}", kind.label(), self.config.name()))
                }
            }
        }
        Ok(built)
    }

    /// Bytes of A and B tiles the kernel loads over `shape` (see [`staged_bytes`]).
    pub fn staged_bytes(&self, shape: Shape) -> u64 {
        staged_bytes(shape, [self.config.bm, self.config.bn], self.config.bk, self.elem)
    }

    fn build(
        ctx: &'c Context,
        config: Config,
        elem: Elem,
        fault: Option<(&harness::CommonArgs, Shape)>,
        ceiling: Option<Ceiling>,
    ) -> Result<Result<Self, String>> {
        let subgroup = subgroup_size(ctx);
        if let Some(reason) = config.unsupported(ctx, elem, subgroup.map(|(s, _)| s)) {
            return Ok(Err(reason));
        }
        let (shader, tile_defines): (&str, Vec<(&str, u32)>) = match config.variant {
            Variant::Naive => ("06_gemm/naive.comp", vec![("T", config.bm)]),
            Variant::Shared => ("06_gemm/shared.comp", vec![("T", config.bm), ("PAD_A", config.pad)]),
            // register or subgroup (unsupported() refused the cooperative-matrix variants).
            _ => (
                if config.variant == Variant::Register { "06_gemm/register.comp" } else { "06_gemm/subgroup.comp" },
                vec![
                    ("BM", config.bm),
                    ("BN", config.bn),
                    ("BK", config.bk),
                    ("TM", config.tm),
                    ("TN", config.tn),
                    ("PAD_A", config.pad),
                ],
            ),
        };
        let mut tile_defines = tile_defines;
        if let Some((w, h)) = config.lanes {
            tile_defines.extend([("LANES_W", w), ("LANES_H", h)]);
        }
        if let Some(c) = ceiling {
            tile_defines.push(("CEILING", c.define()));
        }
        if config.split > 1 {
            tile_defines.push(("SPLIT_K", config.split));
        }
        if config.swizzle {
            tile_defines.push(("SWIZZLE_A", 1));
        }
        let buffers = if config.split > 1 { 5 } else { 4 };
        if config.texels != 0 {
            tile_defines.extend([("TEXEL_LOADS", config.texels), ("TEXEL_BINDING", buffers)]);
        }
        let mut defines = harness::numeric_defines(&tile_defines);
        if elem == Elem::F16 {
            defines.push(("INPUT_F16", "1".into()));
        }
        let mut required = None;
        if config.variant == Variant::Subgroup {
            if let Some((s, must_require)) = subgroup {
                defines.push(("SUBGROUP_SIZE", s.to_string()));
                required = must_require.then_some(s);
            }
        }
        if let Some((common, shape)) = fault {
            let site = FaultSite::of(shape);
            // The flat index over (slice, block row, block column) of the tile holding D[m][n]
            // and, with split-K, the slice holding k.
            let steps_per_slice = shape.k.div_ceil(config.bk).div_ceil(config.split);
            let slice = site.k / config.bk / steps_per_slice.max(1);
            let row = u64::from(slice) * u64::from(shape.m.div_ceil(config.bm)) + u64::from(site.m / config.bm);
            let tile = row * u64::from(shape.n.div_ceil(config.bn)) + u64::from(site.n / config.bn);
            defines.extend(common.fault_defines(site.element(shape), tile));
        }
        let reduce = if config.split > 1 {
            let desc = KernelDesc {
                shader: "06_gemm/split_reduce.comp",
                defines: harness::numeric_defines(&[("SPLIT_K", config.split)]),
                buffers,
                push_constant_bytes: std::mem::size_of::<Push>() as u32,
                workgroup_size: REDUCE_WORKGROUP,
                ..Default::default()
            };
            Some(Kernel::new(ctx, &desc)?)
        } else {
            None
        };
        let desc = KernelDesc {
            shader,
            defines,
            buffers,
            push_constant_bytes: std::mem::size_of::<Push>() as u32,
            workgroup_size: config.workgroup_size(),
            texel_buffers: if config.texels != 0 { 2 } else { 0 },
            constants: config.strategy.map(|s| vec![s as u32]).unwrap_or_default(),
            subgroup_size: required,
            ..Default::default()
        };
        Ok(Ok(Gemm { config, elem, kernel: Kernel::new(ctx, &desc)?, reduce }))
    }
}

impl<'c> Gemm<'c> {
    /// Elements of the split-K workspace for `shape` (0 without split-K).
    pub fn workspace_len(&self, shape: Shape) -> u64 {
        if self.config.split > 1 {
            u64::from(self.config.split) * u64::from(shape.m) * u64::from(shape.n)
        } else {
            0
        }
    }

    /// Record D = α·A·B + β·C_in over `shape`: one dispatch, one workgroup per BM×BN block
    /// (and per K slice). With split-K, `io.work` is the workspace of [`Gemm::workspace_len`]
    /// elements, and a second dispatch sums the slices into D.
    pub fn record<'r>(
        &'r self,
        rec: &mut Recorder<'_, 'r>,
        io: IoBindings<'r>,
        shape: Shape,
        alpha: f32,
        beta: f32,
    ) -> Result<()> {
        let block = [self.config.bm, self.config.bn];
        let mut bindings = io.abcd.to_vec();
        if self.reduce.is_some() {
            bindings.push(io.work.context("split-K needs a workspace")?);
        }
        let storage = bindings.len();
        if self.config.texels != 0 {
            bindings.extend(io.texels.context("texel loads need A and B as texel buffers")?);
        }
        record_blocks(rec, &self.kernel, &bindings, shape, (block, self.config.split), (alpha, beta))?;
        let Some(reduce) = &self.reduce else {
            return Ok(());
        };
        let bindings = &bindings[..storage];
        // The slices' partial blocks are in the workspace before the second pass sums them.
        rec.barrier(Barrier::ComputeToCompute);
        let elements = u64::from(shape.m) * u64::from(shape.n);
        let reduce_groups = elements.div_ceil(u64::from(REDUCE_WORKGROUP)).min(REDUCE_MAX_GROUPS) as u32;
        let push = Push { m: shape.m, n: shape.n, k: shape.k, alpha, beta };
        rec.dispatch(reduce, bindings, &push, [reduce_groups, 1, 1])
    }
}

/// What a GEMM dispatch binds: A, B, C_in and D, and where a configuration needs them, split-K's
/// workspace and A and B as texel buffers ([`texel_format`]).
#[derive(Clone, Copy)]
pub struct IoBindings<'r> {
    pub abcd: [Binding<'r>; 4],
    pub work: Option<Binding<'r>>,
    pub texels: Option<[Binding<'r>; 2]>,
}

/// The texel format of A and B's 4-vectors for texel loads (`texels`), where `elem` has one.
pub fn texel_format(elem: Elem) -> Option<vk::Format> {
    match elem {
        Elem::F32 => Some(vk::Format::R32G32B32A32_SFLOAT),
        Elem::F16 => Some(vk::Format::R16G16B16A16_SFLOAT),
        _ => None,
    }
}

/// Bytes of A and B tiles a kernel of BM×BN blocks and K steps of BK loads over `shape`:
/// every workgroup's tiles, every K step (what the L2 cache serves, however often DRAM is read).
pub fn staged_bytes(shape: Shape, [bm, bn]: [u32; 2], bk: u32, elem: Elem) -> u64 {
    let [bm, bn, bk] = [bm, bn, bk].map(u64::from);
    let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
    m.div_ceil(bm) * n.div_ceil(bn) * k.div_ceil(bk) * (bm + bn) * bk * elem.bytes()
}

/// Record one dispatch of a GEMM kernel over `shape`, one workgroup per BM×BN block of D (x
/// across N, y down M) and per K slice (z; 1 without split-K), with the push constants every
/// GEMM kernel shares.
pub fn record_blocks<'r>(
    rec: &mut Recorder<'_, 'r>,
    kernel: &'r Kernel<'_>,
    bindings: &[Binding<'r>],
    shape: Shape,
    ([bm, bn], slices): ([u32; 2], u32),
    (alpha, beta): (f32, f32),
) -> Result<()> {
    let groups = [shape.n.div_ceil(bn), shape.m.div_ceil(bm), slices];
    let push = Push { m: shape.m, n: shape.n, k: shape.k, alpha, beta };
    rec.dispatch(kernel, bindings, &push, groups)
}

/// Invocations per workgroup of split-K's second pass, and its most workgroups (it strides).
const REDUCE_WORKGROUP: u32 = 256;
const REDUCE_MAX_GROUPS: u64 = 4096;

/// The configurations `--tune` times (tile shapes × padding × strategy × workgroup size of
/// 256 or 512), and the order defaults are picked in: the first the device can run wins.
/// None for the cooperative-matrix variants, whose grids depend on the device (coopmat.rs).
pub fn grid(variant: Variant) -> Vec<Config> {
    use Variant::{Register as R, Subgroup as S};
    match variant {
        _ if variant.is_coopmat() => Vec::new(),
        Variant::Naive => vec![Config::square(Variant::Naive, 16, 0)],
        Variant::Shared => vec![Config::square(Variant::Shared, 16, 1), Config::square(Variant::Shared, 16, 0)],
        Variant::Register => vec![
            Config::tiled(R, (128, 128, 8), (8, 8), 4),
            Config::tiled(R, (128, 128, 8), (8, 8), 0),
            Config::tiled(R, (128, 128, 16), (8, 8), 4),
            Config::tiled(R, (128, 256, 8), (8, 8), 4),
            Config::tiled(R, (256, 128, 8), (8, 8), 4),
            Config::tiled(R, (128, 128, 8), (8, 4), 4),
            Config::tiled(R, (64, 128, 8), (8, 4), 4),
            Config::tiled(R, (64, 64, 16), (4, 4), 4),
            Config::tiled(R, (64, 64, 8), (4, 4), 4),
            // Lanes in 8×4 groups: fewer distinct shared-memory addresses per subgroup read.
            Config::tiled(R, (128, 128, 8), (8, 8), 4).lanes(8, 4),
            Config::tiled(R, (128, 128, 16), (8, 8), 4).lanes(8, 4),
            Config::tiled(R, (128, 256, 8), (8, 8), 4).lanes(8, 4),
            Config::tiled(R, (64, 128, 8), (8, 4), 4).lanes(8, 4),
            Config::tiled(R, (128, 64, 8), (8, 4), 4).lanes(4, 8),
            // Longer K steps (fewer barriers) and larger per-invocation tiles.
            Config::tiled(R, (128, 256, 16), (8, 8), 0),
            Config::tiled(R, (128, 256, 8), (16, 8), 4),
            Config::tiled(R, (256, 128, 8), (8, 16), 4),
            Config::tiled(R, (128, 128, 8), (8, 16), 4),
            // Split-K, for problems with too few output blocks to fill the device.
            Config::tiled(R, (64, 64, 16), (4, 4), 4).lanes(8, 4).split(4),
            Config::tiled(R, (64, 64, 16), (4, 4), 4).lanes(8, 4).split(8),
            Config::tiled(R, (64, 64, 32), (4, 4), 4).lanes(8, 4).split(4),
            Config::tiled(R, (64, 64, 16), (8, 4), 4).lanes(8, 4).split(4),
            Config::tiled(R, (64, 64, 16), (8, 4), 4).lanes(8, 4).split(8),
            Config::tiled(R, (128, 64, 16), (8, 8), 4).lanes(8, 4).split(4),
            Config::tiled(R, (128, 64, 16), (8, 8), 4).lanes(8, 4).split(8),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(4),
            Config::tiled(R, (128, 64, 8), (8, 4), 4).lanes(4, 8).split(8),
            Config::tiled(R, (128, 64, 8), (8, 4), 4).lanes(4, 8).split(16),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(2),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(3),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(6),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(8),
            Config::tiled(R, (64, 64, 16), (8, 4), 4).lanes(8, 4).split(2),
            Config::tiled(R, (64, 64, 16), (8, 4), 4).lanes(8, 4).split(3),
            Config::tiled(R, (256, 64, 16), (8, 8), 4).lanes(8, 4).split(2),
            Config::tiled(R, (256, 64, 16), (8, 8), 4).lanes(8, 4).split(4),
            // The A tile swizzled instead of padded: conflict-free stores where padding does not fit.
            Config::tiled(R, (128, 256, 16), (8, 8), 0).swizzled(),
            Config::tiled(R, (128, 128, 16), (8, 8), 0).swizzled(),
            Config::tiled(R, (128, 256, 8), (8, 8), 0).swizzled(),
            Config::tiled(R, (128, 64, 16), (8, 4), 0).lanes(8, 4).split(2).swizzled(),
            Config::tiled(R, (128, 64, 32), (8, 4), 0).lanes(8, 4).split(2).swizzled(),
            Config::tiled(R, (128, 64, 32), (8, 4), 0).lanes(8, 4).split(4).swizzled(),
            Config::tiled(R, (64, 64, 32), (8, 4), 0).lanes(8, 4).split(4).swizzled(),
            // A and B read through the texture path, away from the shared-memory reads' path.
            Config::tiled(R, (128, 256, 16), (8, 8), 0).texel_loads(3),
            Config::tiled(R, (128, 256, 16), (8, 8), 0).swizzled().texel_loads(3),
            Config::tiled(R, (128, 128, 8), (8, 8), 4).texel_loads(3),
            Config::tiled(R, (128, 128, 16), (8, 8), 0).swizzled().texel_loads(3),
            Config::tiled(R, (128, 256, 8), (8, 8), 4).texel_loads(3),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(2).texel_loads(3),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(4).texel_loads(3),
            Config::tiled(R, (128, 64, 32), (8, 4), 0).lanes(8, 4).split(2).swizzled().texel_loads(3),
            Config::tiled(R, (128, 256, 16), (8, 8), 0).texel_loads(1),
            Config::tiled(R, (128, 256, 16), (8, 8), 0).texel_loads(2),
            Config::tiled(R, (128, 256, 8), (8, 8), 4).texel_loads(1),
            Config::tiled(R, (128, 256, 8), (8, 8), 4).texel_loads(2),
            Config::tiled(R, (128, 256, 8), (8, 8), 4).lanes(8, 4).texel_loads(3),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(2).texel_loads(1),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(2).texel_loads(2),
            Config::tiled(R, (64, 64, 16), (8, 4), 4).lanes(8, 4).split(2).texel_loads(3),
            Config::tiled(R, (64, 64, 16), (8, 4), 4).lanes(8, 4).split(3).texel_loads(3),
            Config::tiled(R, (128, 256, 8), (8, 8), 0).swizzled().texel_loads(3),
            Config::tiled(R, (256, 128, 8), (8, 8), 4).texel_loads(3),
            Config::tiled(R, (128, 64, 16), (8, 4), 0).lanes(8, 4).split(2).swizzled().texel_loads(3),
            Config::tiled(R, (128, 64, 16), (8, 4), 4).lanes(8, 4).split(3).texel_loads(3),
            Config::tiled(R, (128, 64, 8), (8, 4), 4).lanes(4, 8).split(2).texel_loads(3),
            Config::tiled(R, (128, 64, 32), (8, 4), 0).lanes(8, 4).split(4).swizzled().texel_loads(3),
            Config::tiled(R, (64, 64, 32), (8, 4), 0).lanes(8, 4).split(2).swizzled().texel_loads(3),
            Config::tiled(R, (64, 64, 32), (8, 4), 0).lanes(8, 4).split(4).swizzled().texel_loads(3),
        ],
        _ => {
            let tiles = [
                ((64, 128, 8), (8, 4)),
                ((128, 128, 8), (8, 4)),
                ((64, 256, 8), (8, 8)),
                ((128, 256, 8), (8, 8)),
                ((64, 128, 16), (8, 4)),
                ((32, 256, 16), (4, 4)),
                ((16, 512, 8), (4, 4)),
            ];
            tiles
                .iter()
                .flat_map(|&(block, thread)| {
                    Strategy::value_variants().iter().map(move |&s| Config::tiled(S, block, thread, 4).with(s))
                })
                .collect()
        }
    }
}

/// The first configuration of `variant` (with `strategy`, if given) the device can run.
pub fn default_config(ctx: &Context, variant: Variant, elem: Elem, strategy: Option<Strategy>) -> Option<Config> {
    let subgroup = subgroup_size(ctx).map(|(s, _)| s);
    grid(variant)
        .into_iter()
        .filter(|c| strategy.is_none() || c.strategy == strategy)
        .find(|c| c.unsupported(ctx, elem, subgroup).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_names_parse_back() {
        for config in grid(Variant::Register).into_iter().chain(grid(Variant::Subgroup)) {
            assert_eq!(Config::parse(&config.name()), Some(config), "{}", config.name());
        }
        let swizzled = Config::parse("register 128x256x16 8x8 pad0 swizzle").expect("parses");
        assert!(swizzled.swizzle && swizzled.pad == 0);
    }
}
