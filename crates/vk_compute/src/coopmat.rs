//! What ash 0.38 (Vulkan headers 1.3.281) predates and the cooperative-matrix samples need:
//! VK_NV_cooperative_matrix2 (workgroup-scope matrices, tensor addressing, flexible
//! dimensions) and VK_KHR_shader_bfloat16 (bf16 components of cooperative matrices).
//!
//! Every value below is copied from the Vulkan registry (`vk.xml`, as generated into
//! KhronosGroup/Vulkan-Headers `include/vulkan/vulkan_core.h`); each structure mirrors the C
//! declaration there field by field, `#[repr(C)]`, so that it can sit in a `pNext` chain.

use ash::vk;
use std::ffi::{c_void, CStr};

/// `VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME`.
pub const NV_COOPERATIVE_MATRIX2_NAME: &CStr = c"VK_NV_cooperative_matrix2";
/// `VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME`.
pub const KHR_SHADER_BFLOAT16_NAME: &CStr = c"VK_KHR_shader_bfloat16";

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV` (vk.xml: extension
/// number 594, offset 0 → 1000593000).
const COOPERATIVE_MATRIX_2_FEATURES_NV: vk::StructureType = vk::StructureType::from_raw(1_000_593_000);
/// `VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV` (offset 1).
const COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV: vk::StructureType =
    vk::StructureType::from_raw(1_000_593_001);
/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV` (offset 2).
const COOPERATIVE_MATRIX_2_PROPERTIES_NV: vk::StructureType = vk::StructureType::from_raw(1_000_593_002);
/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR` (vk.xml: extension
/// number 142, offset 0 → 1000141000).
const SHADER_BFLOAT16_FEATURES_KHR: vk::StructureType = vk::StructureType::from_raw(1_000_141_000);
/// `VK_COMPONENT_TYPE_BFLOAT16_KHR` (vk.xml: VK_KHR_shader_bfloat16 extends
/// VkComponentTypeKHR with offset 0 → 1000141000).
pub const COMPONENT_TYPE_BFLOAT16_KHR: vk::ComponentTypeKHR = vk::ComponentTypeKHR::from_raw(1_000_141_000);

/// The first validation-layer versions whose headers define the extensions: a layer older
/// than the headers reports an unknown structure in a `pNext` chain as an error, so under
/// `--validate` the features are enabled only with a layer at least this new.
/// VK_KHR_cooperative_matrix first appeared in headers 1.3.255.
pub const LAYER_KNOWS_KHR_COOPERATIVE_MATRIX: u32 = vk::make_api_version(0, 1, 3, 255);
/// VK_KHR_shader_bfloat16 first appeared in headers 1.4.311, after VK_NV_cooperative_matrix2.
pub const LAYER_KNOWS_NV2_AND_BFLOAT16: u32 = vk::make_api_version(0, 1, 4, 311);

/// `VkPhysicalDeviceCooperativeMatrix2FeaturesNV`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CooperativeMatrix2FeaturesNV {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub cooperative_matrix_workgroup_scope: vk::Bool32,
    pub cooperative_matrix_flexible_dimensions: vk::Bool32,
    pub cooperative_matrix_reductions: vk::Bool32,
    pub cooperative_matrix_conversions: vk::Bool32,
    pub cooperative_matrix_per_element_operations: vk::Bool32,
    pub cooperative_matrix_tensor_addressing: vk::Bool32,
    pub cooperative_matrix_block_loads: vk::Bool32,
}

impl Default for CooperativeMatrix2FeaturesNV {
    fn default() -> Self {
        Self {
            s_type: COOPERATIVE_MATRIX_2_FEATURES_NV,
            p_next: std::ptr::null_mut(),
            cooperative_matrix_workgroup_scope: 0,
            cooperative_matrix_flexible_dimensions: 0,
            cooperative_matrix_reductions: 0,
            cooperative_matrix_conversions: 0,
            cooperative_matrix_per_element_operations: 0,
            cooperative_matrix_tensor_addressing: 0,
            cooperative_matrix_block_loads: 0,
        }
    }
}

// SAFETY: the structure starts with sType and pNext like every Vulkan structure, and the
// specification lists it as extending VkPhysicalDeviceFeatures2 and VkDeviceCreateInfo.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for CooperativeMatrix2FeaturesNV {}
// SAFETY: as above.
unsafe impl vk::ExtendsDeviceCreateInfo for CooperativeMatrix2FeaturesNV {}

/// `VkPhysicalDeviceCooperativeMatrix2PropertiesNV`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CooperativeMatrix2PropertiesNV {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub cooperative_matrix_workgroup_scope_max_workgroup_size: u32,
    pub cooperative_matrix_flexible_dimensions_max_dimension: u32,
    pub cooperative_matrix_workgroup_scope_reserved_shared_memory: u32,
}

impl Default for CooperativeMatrix2PropertiesNV {
    fn default() -> Self {
        Self {
            s_type: COOPERATIVE_MATRIX_2_PROPERTIES_NV,
            p_next: std::ptr::null_mut(),
            cooperative_matrix_workgroup_scope_max_workgroup_size: 0,
            cooperative_matrix_flexible_dimensions_max_dimension: 0,
            cooperative_matrix_workgroup_scope_reserved_shared_memory: 0,
        }
    }
}

// SAFETY: sType/pNext first; the specification lists it as extending VkPhysicalDeviceProperties2.
unsafe impl vk::ExtendsPhysicalDeviceProperties2 for CooperativeMatrix2PropertiesNV {}

/// `VkCooperativeMatrixFlexibleDimensionsPropertiesNV`: one entry of
/// `vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CooperativeMatrixFlexibleDimensionsPropertiesNV {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub m_granularity: u32,
    pub n_granularity: u32,
    pub k_granularity: u32,
    pub a_type: vk::ComponentTypeKHR,
    pub b_type: vk::ComponentTypeKHR,
    pub c_type: vk::ComponentTypeKHR,
    pub result_type: vk::ComponentTypeKHR,
    pub saturating_accumulation: vk::Bool32,
    pub scope: vk::ScopeKHR,
    pub workgroup_invocations: u32,
}

impl Default for CooperativeMatrixFlexibleDimensionsPropertiesNV {
    fn default() -> Self {
        Self {
            s_type: COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV,
            p_next: std::ptr::null_mut(),
            m_granularity: 0,
            n_granularity: 0,
            k_granularity: 0,
            a_type: vk::ComponentTypeKHR::FLOAT16,
            b_type: vk::ComponentTypeKHR::FLOAT16,
            c_type: vk::ComponentTypeKHR::FLOAT16,
            result_type: vk::ComponentTypeKHR::FLOAT16,
            saturating_accumulation: 0,
            scope: vk::ScopeKHR::SUBGROUP,
            workgroup_invocations: 0,
        }
    }
}

/// `PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV`.
type GetFlexibleDimensionsProperties = unsafe extern "system" fn(
    vk::PhysicalDevice,
    *mut u32,
    *mut CooperativeMatrixFlexibleDimensionsPropertiesNV,
) -> vk::Result;

/// `VkPhysicalDeviceShaderBfloat16FeaturesKHR`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ShaderBfloat16FeaturesKHR {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub shader_bfloat16_type: vk::Bool32,
    pub shader_bfloat16_dot_product: vk::Bool32,
    pub shader_bfloat16_cooperative_matrix: vk::Bool32,
}

impl Default for ShaderBfloat16FeaturesKHR {
    fn default() -> Self {
        Self {
            s_type: SHADER_BFLOAT16_FEATURES_KHR,
            p_next: std::ptr::null_mut(),
            shader_bfloat16_type: 0,
            shader_bfloat16_dot_product: 0,
            shader_bfloat16_cooperative_matrix: 0,
        }
    }
}

// SAFETY: sType/pNext first; the specification lists it as extending VkPhysicalDeviceFeatures2
// and VkDeviceCreateInfo.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for ShaderBfloat16FeaturesKHR {}
// SAFETY: as above.
unsafe impl vk::ExtendsDeviceCreateInfo for ShaderBfloat16FeaturesKHR {}

/// The workgroup-scope shapes of VK_NV_cooperative_matrix2, through the instance-level command
/// ash does not load. `pd` must come from `instance` and offer the extension.
pub(crate) fn flexible_dimensions(
    entry: &ash::Entry,
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
) -> anyhow::Result<Vec<CooperativeMatrixFlexibleDimensionsPropertiesNV>> {
    let name = c"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV";
    // SAFETY: a live instance and a NUL-terminated name.
    let raw = unsafe { entry.get_instance_proc_addr(instance.handle(), name.as_ptr()) };
    let Some(raw) = raw else {
        anyhow::bail!("the loader does not know {}", name.to_string_lossy());
    };
    // SAFETY: the loader returned this command's entry point, whose C signature the type
    // above mirrors.
    let get: GetFlexibleDimensionsProperties = unsafe { std::mem::transmute(raw) };
    let mut count = 0u32;
    // SAFETY: a count query (null array) on a device that offers the extension.
    unsafe { get(pd, &mut count, std::ptr::null_mut()) }.result()?;
    let mut props = vec![CooperativeMatrixFlexibleDimensionsPropertiesNV::default(); count as usize];
    // SAFETY: `props` holds `count` initialised structures with their sType set.
    let result = unsafe { get(pd, &mut count, props.as_mut_ptr()) };
    if result != vk::Result::SUCCESS && result != vk::Result::INCOMPLETE {
        return Err(anyhow::Error::new(result));
    }
    props.truncate(count as usize);
    Ok(props)
}
