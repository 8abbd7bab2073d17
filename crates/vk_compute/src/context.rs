//! Instance, device choice, queue, allocator and validation messenger.
//!
//! Drop order (see `impl Drop for Context`): wait idle → allocator → command pool → device →
//! messenger → instance. Buffers, kernels and recorders borrow the context, so the borrow
//! checker guarantees they are gone before it.

use crate::caps::{self, CoopMat2, CoopMatFlexShape, CoopMatShape, CoopMatTypes, DeviceCaps, SizeControl, SubgroupOps};
use crate::coopmat;
use crate::{setup_error, SetupError};
use anyhow::{Context as _, Result};
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use std::ffi::{c_void, CStr};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// How to build a [`Context`].
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Index into the physical-device list; `None` picks discrete > integrated > virtual > cpu.
    pub device_index: Option<usize>,
    /// Enable the Khronos validation layer with synchronization validation.
    pub validate: bool,
    /// A subgroup size every [`crate::Kernel`] requires unless its description says otherwise.
    pub subgroup_size: Option<u32>,
    /// How long a submission may run before it counts as hung.
    pub fence_timeout: Duration,
    /// Enable VK_KHR_cooperative_matrix where offered, with VK_NV_cooperative_matrix2,
    /// VK_KHR_shader_bfloat16 and `shaderInt8` where offered too. Off unless a sample needs it:
    /// the validation layer Debian 12 ships (1.3.239) does not know these extensions and reports
    /// their feature structures as errors, so under `--validate` each is enabled only with a
    /// layer that knows it (see [`Context::cooperative_matrix_unavailable`]).
    pub cooperative_matrix: bool,
    /// Ask the driver for each pipeline's statistics (VK_KHR_pipeline_executable_properties,
    /// where offered): see [`crate::Kernel::statistics`].
    pub pipeline_statistics: bool,
    /// Subgroup operation families ([`SubgroupOps`] bits) to pretend the device lacks, so that
    /// fallbacks and SKIP paths can be exercised on a device that has them: see
    /// [`Context::subgroup_ops`]. The capabilities themselves stay as the device reported them.
    pub hidden_ops: u32,
    /// Pretend the device lacks `shaderBufferInt64Atomics`: the feature is neither reported in
    /// [`Context::caps`] nor enabled, so the paths for devices without it run (and the
    /// validation layer reports any use of it).
    pub hide_int64_atomics: bool,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            device_index: None,
            validate: false,
            subgroup_size: None,
            fence_timeout: Duration::from_secs(60),
            cooperative_matrix: false,
            pipeline_statistics: false,
            hidden_ops: 0,
            hide_int64_atomics: false,
        }
    }
}

/// Counts the validation layer's warnings and errors. It outlives the [`Context`], so that the
/// messages sent while the device is destroyed (leaked objects) are counted too.
#[derive(Clone, Debug, Default)]
pub struct ValidationCounter(Arc<AtomicU32>);

impl ValidationCounter {
    pub fn count(&self) -> u32 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The Vulkan objects every sample needs. Single-threaded use only.
pub struct Context {
    /// The capabilities of the chosen device, read once; read-only (see [`Context::caps`]).
    pub(crate) caps: DeviceCaps,
    /// What [`ContextOptions`] asked for.
    pub options: ContextOptions,
    /// Sub-allocates device memory; dropped before the device (ManuallyDrop, see Drop).
    pub(crate) allocator: ManuallyDrop<Mutex<Allocator>>,
    /// Command buffers for every [`crate::Recorder`] come from here.
    pub(crate) command_pool: vk::CommandPool,
    /// The one compute queue all work is submitted to.
    pub(crate) queue: vk::Queue,
    /// Valid bits of the queue's timestamps (0: no timestamps).
    pub(crate) timestamp_valid_bits: u32,
    pub(crate) device: ash::Device,
    /// Loaded when pipeline statistics were asked for and the device offers them.
    pub(crate) executable_properties: Option<ash::khr::pipeline_executable_properties::Device>,
    /// VK_KHR_shader_maximal_reconvergence is enabled (see [`Context::maximal_reconvergence`]).
    maximal_reconvergence: bool,
    /// Which cooperative-matrix extensions are enabled (see [`Context::cooperative_matrix_unavailable`]).
    coop_mat: CoopMatPlan,
    /// Set when a fence wait timed out: the GPU may still run, so nothing is destroyed.
    pub(crate) hung: AtomicBool,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    validation: ValidationCounter,
    pub(crate) instance: ash::Instance,
    _entry: ash::Entry,
    /// Not Sync: the command pool and queue need external synchronization.
    _single_thread: std::marker::PhantomData<std::cell::Cell<()>>,
}

fn load_entry() -> Result<ash::Entry> {
    // SAFETY: loading libvulkan runs its initialisers; the loader is a well-behaved library.
    unsafe { ash::Entry::load() }.map_err(|e| {
        SetupError(format!(
            "no Vulkan loader found ({e}): install one, e.g. `sudo apt-get install libvulkan1 mesa-vulkan-drivers`"
        ))
        .into()
    })
}

unsafe extern "system" fn on_validation_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: `user` is the AtomicU32 inside the context's ValidationCounter, alive as long as
    // the messenger; `data` and its message are valid for the duration of the callback.
    unsafe {
        let counter = &*(user as *const AtomicU32);
        // Only what the layer found in our use of Vulkan counts: validation and performance
        // messages. General ones are notes about the layer itself (e.g. that it was also
        // enabled through VK_INSTANCE_LAYERS): shown, not counted.
        let counted = types
            .intersects(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE);
        if counted {
            counter.fetch_add(1, Ordering::SeqCst);
        }
        let kind = if counted { "validation" } else { "layer note" };
        let message = if data.is_null() || (*data).p_message.is_null() {
            std::borrow::Cow::Borrowed("(no message)")
        } else {
            CStr::from_ptr((*data).p_message).to_string_lossy()
        };
        eprintln!("[{kind} {severity:?}] {message}");
    }
    vk::FALSE
}

struct Instance {
    entry: ash::Entry,
    instance: ash::Instance,
    api_version: u32,
}

fn create_instance(
    validate: bool,
    counter: &ValidationCounter,
    messenger_info: &mut vk::DebugUtilsMessengerCreateInfoEXT<'_>,
) -> Result<Instance> {
    let entry = load_entry()?;
    // SAFETY: plain query on a loaded entry.
    let loader_version = unsafe { entry.try_enumerate_instance_version() }
        .context("query the Vulkan loader's version")?
        .unwrap_or(vk::API_VERSION_1_0);
    // Ask for 1.3 where the loader has it: features promoted to 1.2/1.3 are then core.
    let api_version = loader_version.min(vk::API_VERSION_1_3);
    if api_version < vk::API_VERSION_1_1 {
        return setup_error("the Vulkan loader only offers 1.0; the suite needs Vulkan 1.1 (subgroup operations)");
    }
    let app = vk::ApplicationInfo::default()
        .application_name(c"subgroup-suite")
        .engine_name(c"vk_compute")
        .api_version(api_version);
    let mut layers = Vec::new();
    let mut extensions = Vec::new();
    if validate {
        // SAFETY: plain query on a loaded entry.
        let available = unsafe { entry.enumerate_instance_layer_properties() }.context("list Vulkan layers")?;
        if !available.iter().any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER)) {
            return setup_error(
                "--validate needs the Khronos validation layer: install it, e.g. `sudo apt-get install vulkan-validationlayers`",
            );
        }
        layers.push(VALIDATION_LAYER.as_ptr());
        extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        // The layer implements VK_EXT_validation_features (the synchronization validation switch).
        extensions.push(ash::ext::validation_features::NAME.as_ptr());
    }
    let enabled_features = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_features);
    let mut info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    if validate {
        // The messenger in pNext also reports what happens inside vkCreate/DestroyInstance.
        messenger_info.p_user_data = Arc::as_ptr(&counter.0) as *mut c_void;
        info = info.push_next(&mut features).push_next(messenger_info);
    }
    // SAFETY: every pointer in `info` refers to locals alive across the call.
    let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => anyhow::Error::new(SetupError(
            "no Vulkan driver found: install one, e.g. `sudo apt-get install mesa-vulkan-drivers` (lavapipe)".into(),
        )),
        vk::Result::ERROR_LAYER_NOT_PRESENT => anyhow::Error::new(SetupError(
            "the validation layer failed to load: reinstall `vulkan-validationlayers`".into(),
        )),
        other => anyhow::Error::new(other).context("create the Vulkan instance"),
    })?;
    Ok(Instance { entry, instance, api_version })
}

fn messenger_create_info<'a>() -> vk::DebugUtilsMessengerCreateInfoEXT<'a> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_validation_message))
}

/// Physical devices with their index in enumeration order.
fn physical_devices(instance: &ash::Instance) -> Result<Vec<vk::PhysicalDevice>> {
    // SAFETY: `instance` is a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }.context("enumerate Vulkan devices")?;
    if devices.is_empty() {
        return setup_error(
            "no Vulkan device found: install a driver, e.g. `sudo apt-get install mesa-vulkan-drivers` (lavapipe)",
        );
    }
    Ok(devices)
}

/// The capabilities of every device, for `--list-devices` and 00_properties.
pub fn list_devices() -> Result<Vec<DeviceCaps>> {
    let counter = ValidationCounter::default();
    let mut messenger = messenger_create_info();
    let inst = create_instance(false, &counter, &mut messenger)?;
    let result = physical_devices(&inst.instance).and_then(|devices| {
        devices
            .iter()
            .enumerate()
            .map(|(index, &pd)| query_caps(&inst.entry, &inst.instance, inst.api_version, pd, (index, None)))
            .collect()
    });
    // SAFETY: nothing created from this instance is alive.
    unsafe { inst.instance.destroy_instance(None) };
    result
}

fn device_extensions(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Result<Vec<String>> {
    // SAFETY: `pd` comes from `instance`.
    let props = unsafe { instance.enumerate_device_extension_properties(pd) }.context("list device extensions")?;
    Ok(props
        .iter()
        .filter_map(|p| p.extension_name_as_c_str().ok().map(|s| s.to_string_lossy().into_owned()))
        .collect())
}

/// `layer`: the version of the validation layer in use, if any. A layer older than an
/// extension's headers reports that extension's properties structure as an error, so those
/// queries are left out under such a layer (features structures it lets through).
fn query_caps(
    entry: &ash::Entry,
    instance: &ash::Instance,
    instance_api: u32,
    pd: vk::PhysicalDevice,
    (index, layer): (usize, Option<u32>),
) -> Result<DeviceCaps> {
    let extensions = device_extensions(instance, pd)?;
    let has = |name: &CStr| extensions.iter().any(|e| e.as_bytes() == name.to_bytes());
    // SAFETY: `pd` comes from `instance`.
    let base = unsafe { instance.get_physical_device_properties(pd) };
    let api = base.api_version.min(instance_api);
    let v12 = api >= vk::API_VERSION_1_2;
    let v13 = api >= vk::API_VERSION_1_3;

    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let uniform_texel_formats: Vec<vk::Format> =
        [vk::Format::R32_SFLOAT, vk::Format::R16G16B16A16_SFLOAT, vk::Format::R32G32B32A32_SFLOAT]
            .into_iter()
            .filter(|&format| {
                // SAFETY: `pd` comes from `instance`.
                let props = unsafe { instance.get_physical_device_format_properties(pd, format) };
                props.buffer_features.contains(vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER)
            })
            .collect();
    if api < vk::API_VERSION_1_1 {
        // Properties2/Features2 chains of 1.1 structures are not defined for this device.
        return Ok(DeviceCaps { uniform_texel_formats, ..minimal_caps(&base, api, index, extensions) });
    }
    let has_driver_props = v12 || has(ash::khr::driver_properties::NAME);
    let has_size_control = v13 || has(ash::ext::subgroup_size_control::NAME);
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
    if has_driver_props {
        props2 = props2.push_next(&mut driver);
    }
    if has_size_control {
        props2 = props2.push_next(&mut size_control);
    }
    // SAFETY: the chain only holds structures of core 1.1 or extensions the device offers.
    unsafe { instance.get_physical_device_properties2(pd, &mut props2) };

    let mut f16 = vk::PhysicalDevice16BitStorageFeatures::default();
    let mut f16i8 = vk::PhysicalDeviceShaderFloat16Int8Features::default();
    let mut ext_types = vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures::default();
    let mut mem_model = vk::PhysicalDeviceVulkanMemoryModelFeatures::default();
    let mut size_ctl_features = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    let mut coop_features = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
    let mut atomic64 = vk::PhysicalDeviceShaderAtomicInt64Features::default();
    let mut executable = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut atomic_float = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
    let mut reconvergence = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default();
    let mut bfloat16 = coopmat::ShaderBfloat16FeaturesKHR::default();
    let mut coop2_features = coopmat::CooperativeMatrix2FeaturesNV::default();
    let mut feats2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f16);
    if v12 || has(ash::khr::shader_float16_int8::NAME) {
        feats2 = feats2.push_next(&mut f16i8);
    }
    if v12 || has(ash::khr::shader_subgroup_extended_types::NAME) {
        feats2 = feats2.push_next(&mut ext_types);
    }
    if v12 || has(ash::khr::vulkan_memory_model::NAME) {
        feats2 = feats2.push_next(&mut mem_model);
    }
    if has_size_control {
        feats2 = feats2.push_next(&mut size_ctl_features);
    }
    if has(ash::khr::cooperative_matrix::NAME) {
        feats2 = feats2.push_next(&mut coop_features);
    }
    if v12 || has(ash::khr::shader_atomic_int64::NAME) {
        feats2 = feats2.push_next(&mut atomic64);
    }
    if has(ash::khr::pipeline_executable_properties::NAME) {
        feats2 = feats2.push_next(&mut executable);
    }
    if has(ash::ext::shader_atomic_float::NAME) {
        feats2 = feats2.push_next(&mut atomic_float);
    }
    if has(ash::khr::shader_maximal_reconvergence::NAME) {
        feats2 = feats2.push_next(&mut reconvergence);
    }
    if has(coopmat::KHR_SHADER_BFLOAT16_NAME) {
        feats2 = feats2.push_next(&mut bfloat16);
    }
    let has_coop2 = has(coopmat::NV_COOPERATIVE_MATRIX2_NAME) && has(ash::khr::cooperative_matrix::NAME);
    if has_coop2 {
        feats2 = feats2.push_next(&mut coop2_features);
    }
    // SAFETY: as above, only structures the device knows.
    unsafe { instance.get_physical_device_features2(pd, &mut feats2) };
    let shader_int64 = feats2.features.shader_int64 != 0;

    let mut coop_mat_shapes = Vec::new();
    if has(ash::khr::cooperative_matrix::NAME) {
        let coop = ash::khr::cooperative_matrix::Instance::new(entry, instance);
        // SAFETY: the device offers VK_KHR_cooperative_matrix.
        let shapes = unsafe { coop.get_physical_device_cooperative_matrix_properties(pd) }
            .context("query cooperative-matrix shapes")?;
        coop_mat_shapes = shapes
            .iter()
            .map(|p| CoopMatShape {
                m: p.m_size,
                n: p.n_size,
                k: p.k_size,
                types: CoopMatTypes::listed(
                    [p.a_type, p.b_type, p.c_type, p.result_type],
                    p.saturating_accumulation,
                    p.scope,
                ),
            })
            .collect();
    }
    let layer_knows_coop2 = layer.is_none_or(|v| v >= coopmat::LAYER_KNOWS_NV2_AND_BFLOAT16);
    let coop_mat2 = if has_coop2 && layer_knows_coop2 {
        Some(query_coop_mat2(entry, instance, pd, &coop2_features)?)
    } else {
        None
    };

    Ok(DeviceCaps {
        driver_name: if has_driver_props { caps::cstr_field(&driver.driver_name) } else { "unknown".into() },
        driver_info: if has_driver_props { caps::cstr_field(&driver.driver_info) } else { String::new() },
        subgroup_size: subgroup.subgroup_size,
        subgroup_stages: format!("{:?}", subgroup.supported_stages),
        subgroup_ops: SubgroupOps(subgroup.supported_operations.as_raw()),
        quad_ops_in_all_stages: subgroup.quad_operations_in_all_stages != 0,
        size_control: has_size_control.then(|| SizeControl {
            min_size: size_control.min_subgroup_size,
            max_size: size_control.max_subgroup_size,
            max_compute_workgroup_subgroups: size_control.max_compute_workgroup_subgroups,
            compute_can_require: size_ctl_features.subgroup_size_control != 0
                && size_control.required_subgroup_size_stages.contains(vk::ShaderStageFlags::COMPUTE),
            full_subgroups: size_ctl_features.compute_full_subgroups != 0,
        }),
        shader_float16: f16i8.shader_float16 != 0,
        storage_buffer_16bit: f16.storage_buffer16_bit_access != 0,
        subgroup_extended_types: ext_types.shader_subgroup_extended_types != 0,
        vulkan_memory_model: mem_model.vulkan_memory_model != 0,
        vulkan_memory_model_device_scope: mem_model.vulkan_memory_model_device_scope != 0,
        cooperative_matrix_feature: coop_features.cooperative_matrix != 0,
        shader_int64,
        buffer_int64_atomics: atomic64.shader_buffer_int64_atomics != 0,
        buffer_float32_atomic_add: atomic_float.shader_buffer_float32_atomic_add != 0,
        pipeline_executable_info: executable.pipeline_executable_info != 0,
        maximal_reconvergence: reconvergence.shader_maximal_reconvergence != 0,
        coop_mat_shapes,
        shader_int8: f16i8.shader_int8 != 0,
        bfloat16_cooperative_matrix: bfloat16.shader_bfloat16_type != 0
            && bfloat16.shader_bfloat16_cooperative_matrix != 0,
        coop_mat2,
        // Name, type, version and limits: what a 1.0 query already gives.
        uniform_texel_formats,
        ..minimal_caps(&base, api, index, extensions)
    })
}

/// VK_NV_cooperative_matrix2's limits and workgroup-scope shapes; `features` as queried.
fn query_coop_mat2(
    entry: &ash::Entry,
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    features: &coopmat::CooperativeMatrix2FeaturesNV,
) -> Result<CoopMat2> {
    let mut props = coopmat::CooperativeMatrix2PropertiesNV::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
    // SAFETY: the device offers VK_NV_cooperative_matrix2, which defines the chained structure.
    unsafe { instance.get_physical_device_properties2(pd, &mut props2) };
    let shapes = coopmat::flexible_dimensions(entry, instance, pd)
        .context("query VK_NV_cooperative_matrix2's flexible dimensions")?;
    Ok(CoopMat2 {
        workgroup_scope: features.cooperative_matrix_workgroup_scope != 0,
        flexible_dimensions: features.cooperative_matrix_flexible_dimensions != 0,
        tensor_addressing: features.cooperative_matrix_tensor_addressing != 0,
        per_element_operations: features.cooperative_matrix_per_element_operations != 0,
        conversions: features.cooperative_matrix_conversions != 0,
        reductions: features.cooperative_matrix_reductions != 0,
        block_loads: features.cooperative_matrix_block_loads != 0,
        max_workgroup_size: props.cooperative_matrix_workgroup_scope_max_workgroup_size,
        max_dimension: props.cooperative_matrix_flexible_dimensions_max_dimension,
        reserved_shared_memory: props.cooperative_matrix_workgroup_scope_reserved_shared_memory,
        flexible_shapes: shapes
            .iter()
            .map(|p| CoopMatFlexShape {
                m_granularity: p.m_granularity,
                n_granularity: p.n_granularity,
                k_granularity: p.k_granularity,
                types: CoopMatTypes::listed(
                    [p.a_type, p.b_type, p.c_type, p.result_type],
                    p.saturating_accumulation,
                    p.scope,
                ),
                workgroup_invocations: p.workgroup_invocations,
            })
            .collect(),
    })
}

/// What a Vulkan 1.0 query gives (all a 1.0 device gets; the suite will not use it), and the
/// base that `query_caps` fills in.
fn minimal_caps(base: &vk::PhysicalDeviceProperties, api: u32, index: usize, extensions: Vec<String>) -> DeviceCaps {
    let limits = base.limits;
    DeviceCaps {
        index,
        name: caps::cstr_field(&base.device_name),
        device_type: caps::device_type_name(base.device_type).into(),
        api_version: caps::version_string(base.api_version),
        driver_name: "unknown".into(),
        driver_info: String::new(),
        vendor_id: base.vendor_id,
        subgroup_size: 1,
        subgroup_stages: "none (Vulkan 1.0)".into(),
        subgroup_ops: SubgroupOps(0),
        quad_ops_in_all_stages: false,
        size_control: None,
        max_workgroup_size: limits.max_compute_work_group_size,
        max_workgroup_invocations: limits.max_compute_work_group_invocations,
        max_workgroup_count: limits.max_compute_work_group_count,
        max_shared_memory_bytes: limits.max_compute_shared_memory_size,
        max_storage_buffer_range: u64::from(limits.max_storage_buffer_range),
        max_texel_buffer_elements: limits.max_texel_buffer_elements,
        uniform_texel_formats: Vec::new(),
        non_coherent_atom_size: limits.non_coherent_atom_size,
        max_push_constants_bytes: limits.max_push_constants_size,
        timestamp_period_ns: limits.timestamp_period,
        shader_float16: false,
        storage_buffer_16bit: false,
        subgroup_extended_types: false,
        vulkan_memory_model: false,
        vulkan_memory_model_device_scope: false,
        cooperative_matrix_feature: false,
        shader_int64: false,
        buffer_int64_atomics: false,
        buffer_float32_atomic_add: false,
        pipeline_executable_info: false,
        maximal_reconvergence: false,
        coop_mat_shapes: Vec::new(),
        shader_int8: false,
        bfloat16_cooperative_matrix: false,
        coop_mat2: None,
        raw_api_version: api,
        extensions,
    }
}

fn pick_device(all: &[DeviceCaps], index: Option<usize>) -> Result<usize> {
    match index {
        Some(i) if i < all.len() => Ok(i),
        Some(i) => {
            let list: Vec<String> =
                all.iter().map(|c| format!("{}: {} ({})", c.index, c.name, c.device_type)).collect();
            setup_error(format!("no Vulkan device with index {i}; the devices are: {}", list.join(", ")))
        }
        None => all
            .iter()
            .filter(|c| c.raw_api_version >= vk::API_VERSION_1_1)
            .min_by_key(|c| (device_type_rank(c), c.index))
            .map(|c| c.index)
            .ok_or_else(|| SetupError("no Vulkan 1.1 device found; the suite needs Vulkan 1.1".into()).into()),
    }
}

fn device_type_rank(c: &DeviceCaps) -> u32 {
    let t = match c.device_type.as_str() {
        "discrete GPU" => vk::PhysicalDeviceType::DISCRETE_GPU,
        "integrated GPU" => vk::PhysicalDeviceType::INTEGRATED_GPU,
        "virtual GPU" => vk::PhysicalDeviceType::VIRTUAL_GPU,
        "CPU" => vk::PhysicalDeviceType::CPU,
        _ => vk::PhysicalDeviceType::OTHER,
    };
    caps::device_type_rank(t)
}

impl Context {
    /// Create the instance, pick a device, enable what it offers that the samples use.
    pub fn new(options: ContextOptions) -> Result<Self> {
        let validation = ValidationCounter::default();
        let mut messenger_info = messenger_create_info();
        let inst = create_instance(options.validate, &validation, &mut messenger_info)?;
        // From here on, an early return must destroy the instance: wrap the rest.
        // The instance's pNext messenger points at the counter: keep it alive until the
        // instance is destroyed on the error path below.
        let counter = validation.clone();
        match Self::with_instance(inst.entry.clone(), inst.instance.clone(), inst.api_version, options, counter) {
            Ok(ctx) => Ok(ctx),
            Err((e, messenger)) => {
                // SAFETY: nothing else created from this instance is alive (with_instance
                // cleaned up its own objects before returning the error).
                unsafe {
                    if let Some((utils, m)) = messenger {
                        utils.destroy_debug_utils_messenger(m, None);
                    }
                    inst.instance.destroy_instance(None);
                }
                Err(e)
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn with_instance(
        entry: ash::Entry,
        instance: ash::Instance,
        api_version: u32,
        options: ContextOptions,
        validation: ValidationCounter,
    ) -> std::result::Result<Self, (anyhow::Error, Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>)>
    {
        let mut messenger = None;
        if options.validate {
            let utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let mut info = messenger_create_info();
            info.p_user_data = Arc::as_ptr(&validation.0) as *mut c_void;
            // SAFETY: the callback's user data (the counter) outlives the messenger.
            match unsafe { utils.create_debug_utils_messenger(&info, None) } {
                Ok(m) => messenger = Some((utils, m)),
                Err(e) => return Err((anyhow::Error::new(e).context("create the validation messenger"), None)),
            }
        }
        let layer = if options.validate { validation_layer_version(&entry) } else { None };
        let result = (|| -> Result<_> {
            let devices = physical_devices(&instance)?;
            let all: Vec<DeviceCaps> = devices
                .iter()
                .enumerate()
                .map(|(i, &pd)| query_caps(&entry, &instance, api_version, pd, (i, layer)))
                .collect::<Result<_>>()?;
            let index = pick_device(&all, options.device_index)?;
            let mut caps = all[index].clone();
            if options.hide_int64_atomics {
                caps.buffer_int64_atomics = false;
            }
            if caps.raw_api_version < vk::API_VERSION_1_1 {
                return setup_error(format!(
                    "device {} ({}) only offers Vulkan {}; the suite needs 1.1",
                    index, caps.name, caps.api_version
                ));
            }
            if let Some(size) = options.subgroup_size {
                check_subgroup_size(&caps, size)?;
            }
            Ok((devices[index], caps))
        })();
        let (physical_device, caps) = match result {
            Ok(v) => v,
            Err(e) => return Err((e, messenger)),
        };
        let reconvergence = caps.maximal_reconvergence
            && (!options.validate || layer.is_some_and(|v| v >= vk::HEADER_VERSION_COMPLETE));
        let coop_mat = CoopMatPlan::new(&caps, &options, layer);
        let device = match create_device(&instance, physical_device, &caps, &options, reconvergence, &coop_mat) {
            Ok(d) => d,
            Err(e) => return Err((e, messenger)),
        };
        let (device, queue_family, timestamp_valid_bits, executable_info) = device;
        let executable_properties =
            executable_info.then(|| ash::khr::pipeline_executable_properties::Device::new(&instance, &device));
        // SAFETY: the queue family was requested with one queue at device creation.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        let rest = (|| -> Result<_> {
            // SAFETY: `device` is live; the pool is destroyed in Drop.
            let command_pool =
                unsafe { device.create_command_pool(&pool_info, None) }.context("create the command pool")?;
            let allocator = Allocator::new(&AllocatorCreateDesc {
                instance: instance.clone(),
                device: device.clone(),
                physical_device,
                debug_settings: Default::default(),
                buffer_device_address: false,
                allocation_sizes: Default::default(),
            });
            match allocator {
                Ok(a) => Ok((command_pool, a)),
                Err(e) => {
                    // SAFETY: the pool is unused.
                    unsafe { device.destroy_command_pool(command_pool, None) };
                    Err(anyhow::Error::new(e).context("create the memory allocator"))
                }
            }
        })();
        let (command_pool, allocator) = match rest {
            Ok(v) => v,
            Err(e) => {
                // SAFETY: nothing was created from the device.
                unsafe { device.destroy_device(None) };
                return Err((e, messenger));
            }
        };
        Ok(Context {
            caps,
            options,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            command_pool,
            queue,
            timestamp_valid_bits,
            device,
            executable_properties,
            maximal_reconvergence: reconvergence,
            coop_mat,
            hung: AtomicBool::new(false),
            messenger,
            validation,
            instance,
            _entry: entry,
            _single_thread: std::marker::PhantomData,
        })
    }

    /// The device's capabilities as it reported them.
    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }

    /// The subgroup operation families kernels may use: the device's, less those hidden by
    /// [`ContextOptions::hidden_ops`].
    pub fn subgroup_ops(&self) -> SubgroupOps {
        SubgroupOps(self.caps.subgroup_ops.0 & !self.options.hidden_ops)
    }

    /// Why a kernel that needs the subgroup operation families `needs` cannot run here, if it
    /// cannot: the families the device lacks (the ones hidden with `--without-ops` too).
    pub fn missing_subgroup_ops(&self, needs: u32) -> Option<String> {
        let ops = self.subgroup_ops();
        (!ops.has(needs)).then(|| format!("the device lacks subgroup operations {:?}", ops.missing(needs)))
    }

    // ANCHOR: grid
    /// A dispatch grid of at least `groups` workgroups that respects the device's limits:
    /// `[x, y, 1]` with x ≤ maxComputeWorkGroupCount[0] and y as needed (Vulkan guarantees only
    /// 65535 per dimension). Shaders take their flat workgroup index from
    /// `glsl/include/grid.glsl` and return at once when it is past the work.
    pub fn grid(&self, groups: u32) -> Result<[u32; 3]> {
        let [max_x, max_y, _] = self.caps.max_workgroup_count;
        // As few rows as fit, then rows as short as that allows: at most y - 1 idle workgroups.
        let groups = groups.max(1);
        let y = groups.div_ceil(max_x);
        let x = groups.div_ceil(y);
        if y > max_y {
            return setup_error(format!(
                "{groups} workgroups do not fit a {max_x} × {max_y} grid on {}",
                self.caps.name
            ));
        }
        Ok([x, y, 1])
    }
    // ANCHOR_END: grid

    /// Whether shaders may declare `[[maximally_reconverges]]` (GL_EXT_maximal_reconvergence):
    /// the device offers VK_KHR_shader_maximal_reconvergence and it is enabled. Not under
    /// `--validate` with a validation layer older than the headers the suite is built with
    /// (ash's): such a layer may not know the extension and reports its feature structure as
    /// an error.
    pub fn maximal_reconvergence(&self) -> bool {
        self.maximal_reconvergence
    }

    /// Why kernels may not use VK_KHR_cooperative_matrix here, if they may not: the device lacks
    /// it, the context was made without [`ContextOptions::cooperative_matrix`], or `--validate`
    /// runs with a validation layer that predates it. `None`: enabled, with `shaderInt8` where
    /// offered.
    pub fn cooperative_matrix_unavailable(&self) -> Option<&str> {
        self.coop_mat.khr.as_deref()
    }

    /// Why kernels may not use VK_NV_cooperative_matrix2 here, if they may not (as
    /// [`Self::cooperative_matrix_unavailable`]; it also needs workgroup scope, tensor addressing
    /// and flexible dimensions, and Vulkan 1.3 for its SPIR-V 1.6).
    pub fn cooperative_matrix2_unavailable(&self) -> Option<&str> {
        self.coop_mat.nv2.as_deref()
    }

    /// Why kernels may not use bf16 cooperative matrices (VK_KHR_shader_bfloat16) here, if they
    /// may not.
    pub fn bfloat16_unavailable(&self) -> Option<&str> {
        self.coop_mat.bf16.as_deref()
    }

    /// Counts validation messages; keep a clone to read it after the context is dropped.
    pub fn validation_counter(&self) -> ValidationCounter {
        self.validation.clone()
    }

    /// Whether GPU timestamps can be taken on this context's queue.
    pub fn has_timestamps(&self) -> bool {
        self.timestamp_valid_bits > 0
    }

    /// Why a kernel that uses the subgroup operations `needs` in workgroups of `workgroup_size`
    /// cannot run here, if it cannot: operations the device lacks ([`Self::missing_subgroup_ops`])
    /// or, for a kernel that uses any, a partial subgroup ([`Self::partial_subgroups`]).
    pub fn subgroup_kernel_unsupported(&self, needs: u32, workgroup_size: u32) -> Option<String> {
        self.missing_subgroup_ops(needs).or_else(|| self.partial_subgroups(workgroup_size).filter(|_| needs != 0))
    }

    /// Why a workgroup of `workgroup_size` invocations may hold a subgroup with fewer active
    /// lanes than `gl_SubgroupSize` here, if it may: a fixed size that does not divide the
    /// workgroup, or a size that may vary on a device that cannot require full subgroups.
    /// Kernels that give each lane a slot by subgroup ID (scans, shuffles) must not run then.
    pub fn partial_subgroups(&self, workgroup_size: u32) -> Option<String> {
        if let Some(size) = self.fixed_subgroup_size() {
            return (!workgroup_size.is_multiple_of(size))
                .then(|| format!("workgroups of {workgroup_size} would end in a partial subgroup of size {size}"));
        }
        let (min, max) = self.caps.subgroup_size_range();
        let full = self.caps.size_control.as_ref().is_some_and(|s| s.full_subgroups);
        match (full, workgroup_size.is_multiple_of(max)) {
            (true, true) => None,
            (true, false) => {
                Some(format!("workgroups of {workgroup_size} are no multiple of the largest subgroup size {max}"))
            }
            (false, _) => {
                Some(format!("subgroup sizes vary ({min}..={max}) and the device cannot require full subgroups"))
            }
        }
    }

    /// The subgroup size a kernel built without an explicit request will see, if it is fixed.
    pub fn fixed_subgroup_size(&self) -> Option<u32> {
        let (min, max) = self.caps.subgroup_size_range();
        self.options.subgroup_size.or((min == max).then_some(min))
    }
}

/// A clear error when `size` cannot be required of this device's compute pipelines.
pub(crate) fn check_subgroup_size(caps: &DeviceCaps, size: u32) -> Result<()> {
    let allowed = caps.requirable_subgroup_sizes();
    if allowed.is_empty() {
        return setup_error(format!(
            "--subgroup-size {size}: {} cannot require a subgroup size for compute (no subgroup size control); its size is {}",
            caps.name, caps.subgroup_size
        ));
    }
    if !allowed.contains(&size) {
        return setup_error(format!("--subgroup-size {size}: {} can require only {:?}", caps.name, allowed));
    }
    Ok(())
}

/// The installed validation layer's version (the headers it was built with). A layer older
/// than an extension reports that extension's feature structures as errors, so features newer
/// than the layer are left out under `--validate`: VK_KHR_shader_maximal_reconvergence (in the
/// headers the suite is built with, ash's) and the cooperative-matrix ones ([`CoopMatPlan`]).
fn validation_layer_version(entry: &ash::Entry) -> Option<u32> {
    // SAFETY: plain query on a loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
    layers.iter().find(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER)).map(|l| l.spec_version)
}

/// Which cooperative-matrix extensions the device is created with: `None` where enabled, else
/// why not (said by the samples' SKIP lines).
#[derive(Clone, Debug)]
pub(crate) struct CoopMatPlan {
    /// VK_KHR_cooperative_matrix (subgroup-scope matrices), with `shaderInt8`.
    khr: Option<String>,
    /// VK_NV_cooperative_matrix2 (workgroup scope, tensor addressing, flexible dimensions).
    nv2: Option<String>,
    /// VK_KHR_shader_bfloat16's bf16 cooperative matrices.
    bf16: Option<String>,
}

impl CoopMatPlan {
    fn new(caps: &DeviceCaps, options: &ContextOptions, layer: Option<u32>) -> Self {
        let name = &caps.name;
        let too_old = |known: u32, what: &str| -> Option<String> {
            let v = layer?;
            (v < known).then(|| {
                format!(
                    "under --validate: the validation layer ({}) predates {what} ({}) and reports its feature structure as an error; run without --validate",
                    caps::version_string(v),
                    caps::version_string(known)
                )
            })
        };
        // ANCHOR: coop_plan
        let khr = if !options.cooperative_matrix {
            Some("cooperative matrices were not asked for when the device was created".to_string())
        } else if !caps.has_extension(&ash::khr::cooperative_matrix::NAME.to_string_lossy()) {
            Some(format!("{name} lacks VK_KHR_cooperative_matrix"))
        } else if !caps.cooperative_matrix_feature {
            Some(format!("{name} offers VK_KHR_cooperative_matrix without its cooperativeMatrix feature"))
        } else {
            too_old(coopmat::LAYER_KNOWS_KHR_COOPERATIVE_MATRIX, "VK_KHR_cooperative_matrix")
        };
        // ANCHOR_END: coop_plan
        let nv2 = match (&khr, &caps.coop_mat2) {
            (Some(why), _) => Some(why.clone()),
            (None, None) => Some(format!("{name} lacks VK_NV_cooperative_matrix2")),
            (None, Some(c)) if !(c.workgroup_scope && c.tensor_addressing && c.flexible_dimensions) => Some(format!(
                "{name} offers VK_NV_cooperative_matrix2 without workgroup scope, tensor addressing or flexible dimensions"
            )),
            (None, Some(_)) if caps.raw_api_version < vk::API_VERSION_1_3 => {
                Some(format!("VK_NV_cooperative_matrix2's shaders are SPIR-V 1.6, which needs Vulkan 1.3; {name} offers {}", caps.api_version))
            }
            (None, Some(_)) => too_old(coopmat::LAYER_KNOWS_NV2_AND_BFLOAT16, "VK_NV_cooperative_matrix2"),
        };
        let bf16 = if let Some(why) = &khr {
            Some(why.clone())
        } else if !caps.has_extension(&coopmat::KHR_SHADER_BFLOAT16_NAME.to_string_lossy()) {
            Some(format!("{name} lacks VK_KHR_shader_bfloat16"))
        } else if !caps.bfloat16_cooperative_matrix {
            Some(format!("{name} offers VK_KHR_shader_bfloat16 without bf16 cooperative matrices"))
        } else {
            too_old(coopmat::LAYER_KNOWS_NV2_AND_BFLOAT16, "VK_KHR_shader_bfloat16")
        };
        CoopMatPlan { khr, nv2, bf16 }
    }
}

fn create_device(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    caps: &DeviceCaps,
    options: &ContextOptions,
    reconvergence: bool,
    coop_plan: &CoopMatPlan,
) -> Result<(ash::Device, u32, u32, bool)> {
    // SAFETY: `pd` comes from `instance`.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
    let compute = |f: &vk::QueueFamilyProperties| f.queue_flags.contains(vk::QueueFlags::COMPUTE);
    let family = families
        .iter()
        .position(|f| compute(f) && f.timestamp_valid_bits > 0)
        .or_else(|| families.iter().position(compute))
        .ok_or_else(|| SetupError(format!("{} has no compute queue", caps.name)))?;
    let timestamp_valid_bits = families[family].timestamp_valid_bits;

    let v12 = caps.raw_api_version >= vk::API_VERSION_1_2;
    let v13 = caps.raw_api_version >= vk::API_VERSION_1_3;
    let mut extensions: Vec<&CStr> = Vec::new();
    let mut want = |name: &'static CStr, core: bool| {
        let offered = caps.has_extension(&name.to_string_lossy());
        if !core && offered {
            extensions.push(name);
        }
        core || offered
    };
    let size_control = want(ash::ext::subgroup_size_control::NAME, v13);
    let float16 = want(ash::khr::shader_float16_int8::NAME, v12);
    let ext_types = want(ash::khr::shader_subgroup_extended_types::NAME, v12);
    let mem_model = want(ash::khr::vulkan_memory_model::NAME, v12);
    let coop_mat = coop_plan.khr.is_none() && want(ash::khr::cooperative_matrix::NAME, false);
    let coop_mat2 = coop_plan.nv2.is_none() && want(coopmat::NV_COOPERATIVE_MATRIX2_NAME, false);
    let bfloat16 = coop_plan.bf16.is_none() && want(coopmat::KHR_SHADER_BFLOAT16_NAME, false);
    let atomic_int64 = want(ash::khr::shader_atomic_int64::NAME, v12);
    let atomic_float = caps.buffer_float32_atomic_add && want(ash::ext::shader_atomic_float::NAME, false);
    // subgroupPartitionNV (05_atomics): its SPIR-V capability needs the extension enabled.
    want(ash::nv::shader_subgroup_partitioned::NAME, false);
    // [[maximally_reconverges]] (05_atomics' histogram): its SPIR-V execution mode needs the
    // extension and its feature enabled.
    let reconvergence = reconvergence && want(ash::khr::shader_maximal_reconvergence::NAME, false);
    let executable_info = options.pipeline_statistics
        && caps.pipeline_executable_info
        && want(ash::khr::pipeline_executable_properties::NAME, false);

    // Enable exactly what was queried as supported (caps) and the samples use.
    let sc = caps.size_control.clone();
    let mut size_ctl = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
        .subgroup_size_control(sc.as_ref().is_some_and(|s| s.compute_can_require))
        .compute_full_subgroups(sc.as_ref().is_some_and(|s| s.full_subgroups));
    let mut storage16 =
        vk::PhysicalDevice16BitStorageFeatures::default().storage_buffer16_bit_access(caps.storage_buffer_16bit);
    // 8-bit integers only with cooperative matrices (their int8 components).
    let mut f16i8 = vk::PhysicalDeviceShaderFloat16Int8Features::default()
        .shader_float16(caps.shader_float16)
        .shader_int8(coop_mat && caps.shader_int8);
    let mut types = vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures::default()
        .shader_subgroup_extended_types(caps.subgroup_extended_types);
    let mut memory_model = vk::PhysicalDeviceVulkanMemoryModelFeatures::default()
        .vulkan_memory_model(caps.vulkan_memory_model)
        .vulkan_memory_model_device_scope(caps.vulkan_memory_model_device_scope);
    let mut coop =
        vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default().cooperative_matrix(caps.cooperative_matrix_feature);
    let offered2 = caps.coop_mat2.clone().unwrap_or_default();
    let mut coop2 = coopmat::CooperativeMatrix2FeaturesNV {
        cooperative_matrix_workgroup_scope: offered2.workgroup_scope.into(),
        cooperative_matrix_flexible_dimensions: offered2.flexible_dimensions.into(),
        cooperative_matrix_reductions: offered2.reductions.into(),
        cooperative_matrix_conversions: offered2.conversions.into(),
        cooperative_matrix_per_element_operations: offered2.per_element_operations.into(),
        cooperative_matrix_tensor_addressing: offered2.tensor_addressing.into(),
        cooperative_matrix_block_loads: offered2.block_loads.into(),
        ..Default::default()
    };
    let mut bf16 = coopmat::ShaderBfloat16FeaturesKHR {
        shader_bfloat16_type: vk::TRUE,
        shader_bfloat16_cooperative_matrix: vk::TRUE,
        ..Default::default()
    };
    let mut atomic64 =
        vk::PhysicalDeviceShaderAtomicInt64Features::default().shader_buffer_int64_atomics(caps.buffer_int64_atomics);
    let mut executable =
        vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
    let mut maximal_reconvergence =
        vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default().shader_maximal_reconvergence(true);
    let mut float_atomics =
        vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default().shader_buffer_float32_atomic_add(true);
    // SAFETY: `pd` comes from `instance`.
    let core = unsafe { instance.get_physical_device_features(pd) };
    let core_features = vk::PhysicalDeviceFeatures::default()
        .shader_int64(core.shader_int64 != 0)
        .shader_int16(core.shader_int16 != 0)
        .shader_float64(core.shader_float64 != 0);

    let priorities = [1.0f32];
    let queue_info =
        [vk::DeviceQueueCreateInfo::default().queue_family_index(family as u32).queue_priorities(&priorities)];
    let ext_ptrs: Vec<*const std::ffi::c_char> = extensions.iter().map(|e| e.as_ptr()).collect();
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_info)
        .enabled_extension_names(&ext_ptrs)
        .enabled_features(&core_features)
        .push_next(&mut storage16);
    if size_control {
        info = info.push_next(&mut size_ctl);
    }
    if float16 {
        info = info.push_next(&mut f16i8);
    }
    if ext_types {
        info = info.push_next(&mut types);
    }
    if mem_model {
        info = info.push_next(&mut memory_model);
    }
    if coop_mat {
        info = info.push_next(&mut coop);
    }
    if coop_mat2 {
        info = info.push_next(&mut coop2);
    }
    if bfloat16 {
        info = info.push_next(&mut bf16);
    }
    if atomic_int64 {
        info = info.push_next(&mut atomic64);
    }
    if executable_info {
        info = info.push_next(&mut executable);
    }
    if atomic_float {
        info = info.push_next(&mut float_atomics);
    }
    if reconvergence {
        info = info.push_next(&mut maximal_reconvergence);
    }
    // SAFETY: every structure in the chain is core at the device's version or its extension
    // is enabled; all pointers refer to locals alive across the call.
    let device = unsafe { instance.create_device(pd, &info, None) }
        .with_context(|| format!("create a Vulkan device on {}", caps.name))?;
    Ok((device, family as u32, timestamp_valid_bits, executable_info))
}

// ANCHOR: context_drop
impl Drop for Context {
    fn drop(&mut self) {
        if self.hung.load(Ordering::SeqCst) {
            // A submission never finished: destroying objects it uses would be undefined
            // behaviour and waiting could hang forever. Leak them; the process is ending.
            eprintln!("note: GPU work timed out, Vulkan objects were not destroyed");
            return;
        }
        // SAFETY: all child objects (buffers, kernels, recorders) borrow the context and are
        // gone; after wait-idle the GPU uses nothing. Order: allocator, pool, device,
        // messenger, instance.
        unsafe {
            let _ = self.device.device_wait_idle();
            ManuallyDrop::drop(&mut self.allocator);
            self.device.destroy_command_pool(self.command_pool, None);
            self.device.destroy_device(None);
            if let Some((utils, messenger)) = self.messenger.take() {
                utils.destroy_debug_utils_messenger(messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}
// ANCHOR_END: context_drop
