//! Compute pipelines: shader module, descriptor set layout, pipeline layout, pipeline.

use crate::caps::DeviceCaps;
use crate::{compile_glsl_for, Context};
use anyhow::{Context as _, Result};
use ash::vk;

// ANCHOR: kernel_desc
/// What a [`Kernel`] is built from. Convention for shaders: storage buffers at set 0,
/// bindings 0..`buffers`, then any uniform texel buffers; `layout(local_size_x_id = 0) in;`
/// so the workgroup size is specialization constant 0; further constants from id 1. The
/// workgroup size is also the define `WORKGROUP_SIZE`: size shared arrays with it, not with
/// `gl_WorkGroupSize`.
#[derive(Clone, Debug, Default)]
pub struct KernelDesc<'a> {
    /// Path under `glsl/`, e.g. `"01_hello_subgroup/hello.comp"`.
    pub shader: &'a str,
    /// `#define`s, e.g. `("OP", "add".into())`.
    pub defines: Vec<(&'a str, String)>,
    /// Number of storage-buffer bindings.
    pub buffers: u32,
    /// Number of uniform texel buffer bindings (`samplerBuffer`), after the storage buffers:
    /// bindings `buffers..buffers + texel_buffers`.
    pub texel_buffers: u32,
    /// Size of the push-constant block in bytes (0: none).
    pub push_constant_bytes: u32,
    /// Workgroup size along x (specialization constant 0).
    pub workgroup_size: u32,
    /// Specialization constants from id 1 on.
    pub constants: Vec<u32>,
    /// Require this subgroup size; `None` uses the context's `--subgroup-size`, if any.
    pub subgroup_size: Option<u32>,
    /// Compile for SPIR-V 1.6 (target environment Vulkan 1.3) instead of 1.3: what
    /// GL_NV_cooperative_matrix2 needs. The device must offer Vulkan 1.3.
    pub spirv_1_6: bool,
}
// ANCHOR_END: kernel_desc

/// A compute pipeline and what it owns. Dropped in reverse creation order.
pub struct Kernel<'c> {
    ctx: &'c Context,
    /// The shader's path, for error messages.
    pub name: String,
    /// The subgroup size the pipeline was required to use, if any.
    pub required_subgroup_size: Option<u32>,
    pub workgroup_size: u32,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) set_layout: vk::DescriptorSetLayout,
    pub(crate) push_constant_bytes: u32,
    pub(crate) buffers: u32,
    pub(crate) texel_buffers: u32,
}

impl<'c> Kernel<'c> {
    pub fn new(ctx: &'c Context, desc: &KernelDesc<'_>) -> Result<Self> {
        let caps = &ctx.caps;
        check_workgroup_size(caps, desc.workgroup_size)?;
        let required = desc.subgroup_size.or(ctx.options.subgroup_size);
        if let Some(size) = required {
            crate::context::check_subgroup_size(caps, size)?;
            // VUID-VkPipelineShaderStageCreateInfo-pNext-02756: with a required size, a
            // workgroup holds at most maxComputeWorkgroupSubgroups subgroups of that size.
            let most = caps.size_control.as_ref().map_or(u32::MAX, |s| s.max_compute_workgroup_subgroups);
            if desc.workgroup_size > size.saturating_mul(most) {
                return crate::setup_error(format!(
                    "workgroup size {} needs more than {most} subgroups of the required size {size} ({}'s limit)",
                    desc.workgroup_size, caps.name
                ));
            }
        }
        // ANCHOR: workgroup_define
        // WORKGROUP_SIZE is also a define, for sizing shared arrays: Mesa 22.3's lavapipe sizes
        // a shared array declared with gl_WorkGroupSize.x from the specialization constant's
        // default (1), not its value, and the shader then writes past a heap block.
        let mut defines = desc.defines.clone();
        defines.push(("WORKGROUP_SIZE", desc.workgroup_size.to_string()));
        // ANCHOR_END: workgroup_define
        if desc.spirv_1_6 && caps.raw_api_version < ash::vk::API_VERSION_1_3 {
            return crate::setup_error(format!(
                "{}: SPIR-V 1.6 needs Vulkan 1.3; {} offers {}",
                desc.shader, caps.name, caps.api_version
            ));
        }
        let spirv = compile_glsl_for(desc.shader, &defines, desc.spirv_1_6)?;
        let mut kernel = Kernel {
            ctx,
            name: desc.shader.to_string(),
            required_subgroup_size: required,
            workgroup_size: desc.workgroup_size,
            pipeline: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            push_constant_bytes: desc.push_constant_bytes,
            buffers: desc.buffers,
            texel_buffers: desc.texel_buffers,
        };
        // Fill the handles one by one; Drop destroys whatever was created if a step fails.
        let bindings: Vec<_> = (0..desc.buffers + desc.texel_buffers)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(if b < desc.buffers {
                        vk::DescriptorType::STORAGE_BUFFER
                    } else {
                        vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                    })
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create info; destroyed in Drop.
        kernel.set_layout = unsafe { ctx.device.create_descriptor_set_layout(&set_info, None) }
            .context("create descriptor set layout")?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(desc.push_constant_bytes)];
        let set_layouts = [kernel.set_layout];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if desc.push_constant_bytes > 0 {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // SAFETY: valid create info; destroyed in Drop.
        kernel.layout =
            unsafe { ctx.device.create_pipeline_layout(&layout_info, None) }.context("create pipeline layout")?;

        let module_info = vk::ShaderModuleCreateInfo::default().code(&spirv);
        // SAFETY: `spirv` is a complete module from shaderc; destroyed right after use below.
        let module = unsafe { ctx.device.create_shader_module(&module_info, None) }.context("create shader module")?;
        // ANCHOR: stage
        let values: Vec<u32> = std::iter::once(desc.workgroup_size).chain(desc.constants.iter().copied()).collect();
        let entries: Vec<_> = (0..values.len() as u32)
            .map(|id| vk::SpecializationMapEntry::default().constant_id(id).offset(id * 4).size(4))
            .collect();
        let spec = vk::SpecializationInfo::default().map_entries(&entries).data(bytemuck::cast_slice(&values));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main")
            .specialization_info(&spec);
        let mut required_info = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
        if let Some(size) = required {
            required_info = required_info.required_subgroup_size(size);
            stage = stage.push_next(&mut required_info);
        }
        // Full subgroups: every subgroup of a workgroup has all its lanes (needs the
        // workgroup size to be a multiple of the largest size the pipeline may get).
        let full_size = required.unwrap_or(caps.subgroup_size_range().1);
        if caps.size_control.as_ref().is_some_and(|s| s.full_subgroups) && desc.workgroup_size.is_multiple_of(full_size)
        {
            stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
        }
        // ANCHOR_END: stage
        let mut info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(kernel.layout)];
        if ctx.executable_properties.is_some() {
            info[0] = info[0].flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
        }
        // SAFETY: module, layout and chained structures are alive; the features the flags
        // need were enabled at device creation (checked above).
        let pipelines = unsafe { ctx.device.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
        // SAFETY: the pipeline (if any) no longer needs the module.
        unsafe { ctx.device.destroy_shader_module(module, None) };
        kernel.pipeline =
            pipelines.map_err(|(_, e)| e).with_context(|| format!("create compute pipeline for {}", desc.shader))?[0];
        Ok(kernel)
    }
}

impl Kernel<'_> {
    /// The driver's statistics of this pipeline's executables (e.g. NVIDIA's register count),
    /// as (executable: name, value) pairs; empty unless the context was created with
    /// `pipeline_statistics` on a device offering VK_KHR_pipeline_executable_properties.
    pub fn statistics(&self) -> Result<Vec<(String, String)>> {
        let Some(loader) = &self.ctx.executable_properties else {
            return Ok(Vec::new());
        };
        let pipeline_info = vk::PipelineInfoKHR::default().pipeline(self.pipeline);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS by this device, and the
        // feature was enabled.
        let executables = unsafe { loader.get_pipeline_executable_properties(&pipeline_info) }
            .context("get pipeline executable properties")?;
        let mut out = Vec::new();
        for (index, executable) in executables.iter().enumerate() {
            let name = executable.name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let info = vk::PipelineExecutableInfoKHR::default().pipeline(self.pipeline).executable_index(index as u32);
            // SAFETY: as above; `index` is below the executable count just returned.
            let stats = unsafe { loader.get_pipeline_executable_statistics(&info) }
                .context("get pipeline executable statistics")?;
            for stat in stats {
                let key = stat.name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                // SAFETY: `format` says which union member the driver wrote.
                let value = unsafe {
                    match stat.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (stat.value.b32 != 0).to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => stat.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => stat.value.u64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => stat.value.f64.to_string(),
                        _ => "?".into(),
                    }
                };
                out.push((format!("{name}: {key}"), value));
            }
        }
        Ok(out)
    }
}

fn check_workgroup_size(caps: &DeviceCaps, size: u32) -> Result<()> {
    if size == 0 {
        return crate::setup_error("a workgroup needs at least one invocation (size 0 given)");
    }
    if size > caps.max_workgroup_size[0] || size > caps.max_workgroup_invocations {
        return crate::setup_error(format!(
            "workgroup size {size} is beyond {}'s limits (x ≤ {}, invocations ≤ {})",
            caps.name, caps.max_workgroup_size[0], caps.max_workgroup_invocations
        ));
    }
    Ok(())
}

impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        if self.ctx.hung.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        // SAFETY: every submission using the pipeline was waited for; null handles are ignored.
        unsafe {
            self.ctx.device.destroy_pipeline(self.pipeline, None);
            self.ctx.device.destroy_pipeline_layout(self.layout, None);
            self.ctx.device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}
