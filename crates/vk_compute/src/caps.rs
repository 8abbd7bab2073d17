//! What a physical device offers, read once and consulted by every sample.

use ash::vk;
use std::ffi::CStr;

/// `VkSubgroupFeatureFlags` with names, including bits newer than ash's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SubgroupOps(pub u32);

impl SubgroupOps {
    pub const BASIC: u32 = 0x1;
    pub const VOTE: u32 = 0x2;
    pub const ARITHMETIC: u32 = 0x4;
    pub const BALLOT: u32 = 0x8;
    pub const SHUFFLE: u32 = 0x10;
    pub const SHUFFLE_RELATIVE: u32 = 0x20;
    pub const CLUSTERED: u32 = 0x40;
    pub const QUAD: u32 = 0x80;
    pub const PARTITIONED_NV: u32 = 0x100;
    pub const ROTATE: u32 = 0x200;
    pub const ROTATE_CLUSTERED: u32 = 0x400;

    const NAMES: [(u32, &'static str); 11] = [
        (Self::BASIC, "Basic"),
        (Self::VOTE, "Vote"),
        (Self::ARITHMETIC, "Arithmetic"),
        (Self::BALLOT, "Ballot"),
        (Self::SHUFFLE, "Shuffle"),
        (Self::SHUFFLE_RELATIVE, "ShuffleRelative"),
        (Self::CLUSTERED, "Clustered"),
        (Self::QUAD, "Quad"),
        (Self::ROTATE, "Rotate"),
        (Self::ROTATE_CLUSTERED, "RotateClustered"),
        (Self::PARTITIONED_NV, "PartitionedNV"),
    ];

    pub fn has(self, bits: u32) -> bool {
        self.0 & bits == bits
    }

    /// Names of the set bits, in the order of the specification.
    pub fn names(self) -> Vec<&'static str> {
        Self::NAMES.iter().filter(|(bit, _)| self.0 & bit != 0).map(|(_, name)| *name).collect()
    }

    /// The bit of a family named like `names()` prints it (case-insensitive).
    pub fn from_name(name: &str) -> Option<u32> {
        Self::NAMES.iter().find(|(_, n)| n.eq_ignore_ascii_case(name.trim())).map(|(bit, _)| *bit)
    }

    /// The names of `bits` that are missing here, for SKIP reasons.
    pub fn missing(self, bits: u32) -> Vec<&'static str> {
        SubgroupOps(bits & !self.0).names()
    }
}

/// `VK_EXT_subgroup_size_control` (core in 1.3) as this device supports it.
#[derive(Clone, Debug)]
pub struct SizeControl {
    pub min_size: u32,
    pub max_size: u32,
    pub max_compute_workgroup_subgroups: u32,
    /// Whether compute pipelines may require a size.
    pub compute_can_require: bool,
    /// The `computeFullSubgroups` feature.
    pub full_subgroups: bool,
}

/// The component types and scope of one listed cooperative-matrix entry: A × B + C → result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoopMatTypes {
    pub a: String,
    pub b: String,
    pub c: String,
    pub result: String,
    pub saturating: bool,
    pub scope: String,
}

impl CoopMatTypes {
    /// The types of an entry as the driver lists them (component types and scope by name).
    pub(crate) fn listed(
        [a, b, c, result]: [vk::ComponentTypeKHR; 4],
        saturating: vk::Bool32,
        scope: vk::ScopeKHR,
    ) -> Self {
        CoopMatTypes {
            a: component_type_name(a),
            b: component_type_name(b),
            c: component_type_name(c),
            result: component_type_name(result),
            saturating: saturating != 0,
            scope: scope_name(scope),
        }
    }

    /// `A f16 x B f16 + C f32 -> f32  subgroup scope` (and `, saturating`).
    pub fn describe(&self) -> String {
        let saturating = if self.saturating { ", saturating" } else { "" };
        format!("A {} x B {} + C {} -> {}  {} scope{saturating}", self.a, self.b, self.c, self.result, self.scope)
    }
}

/// One `VkCooperativeMatrixPropertiesKHR` entry: A (M×K) × B (K×N) + C (M×N).
#[derive(Clone, Debug)]
pub struct CoopMatShape {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub types: CoopMatTypes,
}

/// One `VkCooperativeMatrixFlexibleDimensionsPropertiesNV` entry (VK_NV_cooperative_matrix2):
/// matrices of any multiple of the granularities, in workgroups of `workgroup_invocations`
/// when the scope is a workgroup.
#[derive(Clone, Debug)]
pub struct CoopMatFlexShape {
    pub m_granularity: u32,
    pub n_granularity: u32,
    pub k_granularity: u32,
    pub types: CoopMatTypes,
    pub workgroup_invocations: u32,
}

/// VK_NV_cooperative_matrix2 as the device offers it: its features, limits and shapes.
#[derive(Clone, Debug, Default)]
pub struct CoopMat2 {
    /// `cooperativeMatrixWorkgroupScope`: matrices owned by a whole workgroup.
    pub workgroup_scope: bool,
    /// `cooperativeMatrixFlexibleDimensions`: any multiple of the listed granularities.
    pub flexible_dimensions: bool,
    /// `cooperativeMatrixTensorAddressing`: loads and stores through tensor layouts.
    pub tensor_addressing: bool,
    /// `cooperativeMatrixPerElementOperations`: a function applied to every element.
    pub per_element_operations: bool,
    /// `cooperativeMatrixConversions`: accumulator to A/B conversions.
    pub conversions: bool,
    pub(crate) reductions: bool,
    pub(crate) block_loads: bool,
    /// `cooperativeMatrixWorkgroupScopeMaxWorkgroupSize`.
    pub max_workgroup_size: u32,
    /// `cooperativeMatrixFlexibleDimensionsMaxDimension`.
    pub max_dimension: u32,
    /// `cooperativeMatrixWorkgroupScopeReservedSharedMemory`: bytes of shared memory the
    /// driver keeps for staging workgroup-scope matrices.
    pub reserved_shared_memory: u32,
    pub flexible_shapes: Vec<CoopMatFlexShape>,
}

/// Everything the samples need to know about one physical device.
#[derive(Clone, Debug)]
pub struct DeviceCaps {
    pub index: usize,
    pub name: String,
    pub device_type: String,
    pub api_version: String,
    pub driver_name: String,
    pub driver_info: String,
    pub vendor_id: u32,
    pub subgroup_size: u32,
    pub subgroup_stages: String,
    pub subgroup_ops: SubgroupOps,
    pub quad_ops_in_all_stages: bool,
    pub size_control: Option<SizeControl>,
    pub max_workgroup_size: [u32; 3],
    pub max_workgroup_invocations: u32,
    pub max_workgroup_count: [u32; 3],
    pub max_shared_memory_bytes: u32,
    pub max_storage_buffer_range: u64,
    /// `maxTexelBufferElements`: the most texels one texel-buffer view may hold.
    pub max_texel_buffer_elements: u32,
    /// Which of R32_SFLOAT, R16G16B16A16_SFLOAT and R32G32B32A32_SFLOAT the device offers
    /// for uniform texel buffers (see [`crate::Buffer::texel_binding`]).
    pub uniform_texel_formats: Vec<ash::vk::Format>,
    /// `nonCoherentAtomSize`: flushes and invalidations of mapped memory that is not
    /// host-coherent cover whole multiples of it.
    pub non_coherent_atom_size: u64,
    pub max_push_constants_bytes: u32,
    pub timestamp_period_ns: f32,
    pub shader_float16: bool,
    pub storage_buffer_16bit: bool,
    pub subgroup_extended_types: bool,
    pub vulkan_memory_model: bool,
    pub(crate) vulkan_memory_model_device_scope: bool,
    /// `shaderInt64`: 64-bit integers in shaders (enabled when offered).
    pub shader_int64: bool,
    /// `shaderBufferInt64Atomics`: 64-bit atomics on storage buffers (enabled when offered).
    pub buffer_int64_atomics: bool,
    /// `shaderBufferFloat32AtomicAdd` (VK_EXT_shader_atomic_float): `atomicAdd` on floats in
    /// storage buffers (enabled when offered).
    pub buffer_float32_atomic_add: bool,
    /// VK_KHR_pipeline_executable_properties: the driver can report per-pipeline statistics
    /// (registers, spills, …); enabled only with [`crate::ContextOptions::pipeline_statistics`].
    pub pipeline_executable_info: bool,
    /// VK_KHR_shader_maximal_reconvergence with its `shaderMaximalReconvergence` feature:
    /// shaders may ask that diverged invocations reconverge where the source says (see
    /// [`crate::Context::maximal_reconvergence`] for whether it was enabled).
    pub maximal_reconvergence: bool,
    /// The `cooperativeMatrix` feature (shapes alone do not say it is enabled-able).
    pub(crate) cooperative_matrix_feature: bool,
    pub coop_mat_shapes: Vec<CoopMatShape>,
    /// `shaderInt8`: 8-bit integers in shaders (the int8 cooperative matrices' components).
    pub shader_int8: bool,
    /// VK_KHR_shader_bfloat16 with `shaderBFloat16Type` and `shaderBFloat16CooperativeMatrix`:
    /// bf16 components of cooperative matrices.
    pub bfloat16_cooperative_matrix: bool,
    /// VK_NV_cooperative_matrix2, where offered.
    pub coop_mat2: Option<CoopMat2>,
    pub(crate) raw_api_version: u32,
    pub(crate) extensions: Vec<String>,
}

impl DeviceCaps {
    /// A CPU implementation (lavapipe, SwiftShader).
    pub fn is_cpu(&self) -> bool {
        self.device_type == device_type_name(vk::PhysicalDeviceType::CPU)
    }

    /// 64-bit integers in shaders with atomics on storage buffers (both features enabled).
    pub fn has_int64_buffer_atomics(&self) -> bool {
        self.shader_int64 && self.buffer_int64_atomics
    }

    /// The device's ordinary subgroup size plus the range a pipeline may require.
    pub fn subgroup_size_range(&self) -> (u32, u32) {
        match &self.size_control {
            Some(sc) => (sc.min_size, sc.max_size),
            None => (self.subgroup_size, self.subgroup_size),
        }
    }

    /// Subgroup sizes a compute pipeline can be required to use (powers of two in the range).
    pub fn requirable_subgroup_sizes(&self) -> Vec<u32> {
        match &self.size_control {
            Some(sc) if sc.compute_can_require => {
                (0..8).map(|p| 1u32 << p).filter(|s| (sc.min_size..=sc.max_size).contains(s)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The smallest subgroup size any pipeline may run with: size shared arrays for this.
    pub fn min_subgroup_size(&self) -> u32 {
        self.subgroup_size_range().0.min(self.subgroup_size)
    }

    /// Whether the device (with the instance the suite asks for) offers Vulkan 1.1.
    pub fn supports_vulkan_1_1(&self) -> bool {
        self.raw_api_version >= ash::vk::API_VERSION_1_1
    }

    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.iter().any(|e| e == name)
    }

    /// A one-line `subgroup size=8 ops={ Basic | Vote | ... }` summary.
    pub fn subgroup_summary(&self) -> String {
        format!("subgroup size={} ops={{ {} }}", self.subgroup_size, self.subgroup_ops.names().join(" | "))
    }
}

pub(crate) fn version_string(v: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v))
}

pub(crate) fn device_type_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
        vk::PhysicalDeviceType::CPU => "CPU",
        _ => "other",
    }
}

/// Lower is preferred: discrete > integrated > virtual > cpu > other.
pub(crate) fn device_type_rank(t: vk::PhysicalDeviceType) -> u32 {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

pub(crate) fn component_type_name(t: vk::ComponentTypeKHR) -> String {
    match t {
        vk::ComponentTypeKHR::FLOAT16 => "f16".into(),
        vk::ComponentTypeKHR::FLOAT32 => "f32".into(),
        vk::ComponentTypeKHR::FLOAT64 => "f64".into(),
        vk::ComponentTypeKHR::SINT8 => "s8".into(),
        vk::ComponentTypeKHR::SINT16 => "s16".into(),
        vk::ComponentTypeKHR::SINT32 => "s32".into(),
        vk::ComponentTypeKHR::SINT64 => "s64".into(),
        vk::ComponentTypeKHR::UINT8 => "u8".into(),
        vk::ComponentTypeKHR::UINT16 => "u16".into(),
        vk::ComponentTypeKHR::UINT32 => "u32".into(),
        vk::ComponentTypeKHR::UINT64 => "u64".into(),
        // VK_COMPONENT_TYPE_BFLOAT16_KHR is newer than ash's headers.
        crate::coopmat::COMPONENT_TYPE_BFLOAT16_KHR => "bf16".into(),
        other => format!("type#{}", other.as_raw()),
    }
}

pub(crate) fn scope_name(s: vk::ScopeKHR) -> String {
    match s {
        vk::ScopeKHR::SUBGROUP => "subgroup".into(),
        vk::ScopeKHR::WORKGROUP => "workgroup".into(),
        vk::ScopeKHR::DEVICE => "device".into(),
        vk::ScopeKHR::QUEUE_FAMILY => "queue family".into(),
        other => format!("scope#{}", other.as_raw()),
    }
}

pub(crate) fn cstr_field(bytes: &[std::ffi::c_char]) -> String {
    // Vulkan fixed-size strings are NUL-terminated within the array.
    CStr::from_bytes_until_nul(bytemuck_cast(bytes)).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
}

fn bytemuck_cast(chars: &[std::ffi::c_char]) -> &[u8] {
    bytemuck::cast_slice(chars)
}
