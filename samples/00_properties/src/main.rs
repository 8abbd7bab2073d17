//! 00_properties — what does this device offer for subgroup work?
//!
//! For every Vulkan device: name, type, driver, API version; the subgroup size, the size-control
//! range, the stages and operation families (`subgroup size=8 ops={ Basic | Vote | ... }`);
//! cooperative-matrix shapes; the limits a compute programmer needs. Then, beyond what
//! `vulkaninfo` shows: a tiny shader is dispatched at every subgroup size the device lets a
//! pipeline require (and once without a requirement), and the `gl_SubgroupSize` the shader
//! really observed is printed and checked.
//!
//! Run: `cargo run --release --bin 00_properties [-- --json]`

use anyhow::{Context as _, Result};
use clap::Parser;
use harness::{out, serde_json::json, Check, Report};
use std::process::ExitCode;
use vk_compute::{Buffer, Context, DeviceCaps, Kernel, KernelDesc, Recorder};

#[derive(Parser, Debug)]
#[command(about = "Print every device's subgroup properties and the subgroup size shaders observe")]
struct Args {
    #[command(flatten)]
    common: harness::CommonArgs,
}

harness::sample_args!(Args);

fn main() -> ExitCode {
    harness::run_plain::<Args>("00_properties", run)
}

/// Visit every device (or the one chosen with `--device`).
fn run(args: &Args, report: &mut Report) -> Result<()> {
    args.common.reject_bench_options("00_properties")?;
    if args.common.subgroup_size.is_some() {
        return vk_compute::setup_error(
            "00_properties requires every subgroup size a pipeline can require, one by one: --subgroup-size not accepted",
        );
    }
    let all = vk_compute::list_devices()?;
    let indices: Vec<usize> = match args.common.device {
        Some(i) => vec![i], // Context::new gives the clear error if it does not exist
        None => (0..all.len()).collect(),
    };
    let mut devices_json = Vec::new();
    for index in indices {
        if let Some(caps) = all.get(index).filter(|c| !c.supports_vulkan_1_1()) {
            report.skip(&format!("device {index}"), &format!("{} offers only Vulkan {}", caps.name, caps.api_version));
            continue;
        }
        // Cooperative matrix on, to check the device accepts it — except under validation:
        // Debian 12's layer (1.3.239) does not know the extension and reports it.
        let options = vk_compute::ContextOptions {
            device_index: Some(index),
            cooperative_matrix: !args.common.validate,
            subgroup_size: None, // this sample requires each size itself, pipeline by pipeline
            ..args.common.context_options()?
        };
        let ctx = Context::new(options)?;
        let validation = ctx.validation_counter();
        print_properties(ctx.caps());
        let observed = observe_subgroup_sizes(&ctx, report)?;
        devices_json.push(properties_json(ctx.caps(), &observed));
        drop(ctx); // leaks are reported while the device is destroyed
        report.validation_messages += validation.count();
    }
    report.extra = json!({ "devices": devices_json });
    Ok(())
}

// ANCHOR: print
fn print_properties(c: &DeviceCaps) {
    out(format!("\n== device {}: {} ({})", c.index, c.name, c.device_type));
    out(format!(
        "   Vulkan {}, driver {} ({}), vendor 0x{:04x}",
        c.api_version, c.driver_name, c.driver_info, c.vendor_id
    ));
    out(format!("   {}", c.subgroup_summary()));
    out(format!("   subgroup stages: {}; quadOperationsInAllStages: {}", c.subgroup_stages, c.quad_ops_in_all_stages));
    match &c.size_control {
        Some(sc) => out(format!(
            "   size control: min {} max {}, maxComputeWorkgroupSubgroups {}, compute may require a size: {}, computeFullSubgroups: {}",
            sc.min_size, sc.max_size, sc.max_compute_workgroup_subgroups, sc.compute_can_require, sc.full_subgroups
        )),
        None => out("   size control: not supported (VK_EXT_subgroup_size_control absent)"),
    }
    // Features beyond subgroup operations, and the samples that need them.
    let features = [
        (
            "shaderInt64 + shaderBufferInt64Atomics",
            c.has_int64_buffer_atomics(),
            "02 fast (flagged partials); 03 and 04 single-pass use a 32-bit look-back without it",
        ),
        ("shaderBufferFloat32AtomicAdd", c.buffer_float32_atomic_add, "02 fast (f32 atomic result)"),
        ("16-bit storage", c.storage_buffer_16bit, "06 f16 inputs"),
        ("shaderFloat16", c.shader_float16, ""),
        ("subgroup extended types", c.subgroup_extended_types, ""),
        ("Vulkan memory model", c.vulkan_memory_model, ""),
        ("cooperative matrix", !c.coop_mat_shapes.is_empty(), "06 coopmat"),
        (
            "bf16 cooperative matrices (VK_KHR_shader_bfloat16)",
            c.bfloat16_cooperative_matrix,
            "06 bf16 on matrix units",
        ),
        ("cooperative matrix 2 (VK_NV_cooperative_matrix2)", c.coop_mat2.is_some(), "06 coopmat2"),
        (
            "subgroup partitioned (NV)",
            c.subgroup_ops.has(vk_compute::SubgroupOps::PARTITIONED_NV),
            "05 histogram partition-nv",
        ),
    ];
    for (feature, has, needed_by) in features {
        let who =
            if needed_by.is_empty() { "no sample needs it yet".to_string() } else { format!("needed by {needed_by}") };
        out(format!("   {feature}: {} ({who})", if has { "yes" } else { "no" }));
    }
    if c.coop_mat_shapes.is_empty() {
        out("   cooperative matrix: none");
    }
    for s in &c.coop_mat_shapes {
        out(format!("   cooperative matrix: {}x{}x{} (MxNxK)  {}", s.m, s.n, s.k, s.types.describe()));
    }
    if let Some(c2) = &c.coop_mat2 {
        out(format!(
            "   cooperative matrix 2: workgroup scope {}, flexible dimensions {} (≤ {}), tensor addressing {}, per-element operations {}, workgroups ≤ {} invocations, {} bytes of shared memory reserved",
            c2.workgroup_scope,
            c2.flexible_dimensions,
            c2.max_dimension,
            c2.tensor_addressing,
            c2.per_element_operations,
            c2.max_workgroup_size,
            c2.reserved_shared_memory
        ));
        for s in &c2.flexible_shapes {
            let invocations = if s.types.scope == "workgroup" {
                format!(", {} invocations", s.workgroup_invocations)
            } else {
                String::new()
            };
            out(format!(
                "   cooperative matrix 2: granularity {}x{}x{}  {}{invocations}",
                s.m_granularity,
                s.n_granularity,
                s.k_granularity,
                s.types.describe()
            ));
        }
    }
    let [wx, wy, wz] = c.max_workgroup_size;
    let [gx, gy, gz] = c.max_workgroup_count;
    out(format!(
        "   workgroup: size ≤ ({wx}, {wy}, {wz}), invocations ≤ {}, count ≤ ({gx}, {gy}, {gz})",
        c.max_workgroup_invocations
    ));
    out(format!(
        "   shared memory ≤ {} KiB, storage buffer range ≤ {} MiB, push constants ≤ {} B, timestamp period {} ns",
        c.max_shared_memory_bytes / 1024,
        c.max_storage_buffer_range >> 20,
        c.max_push_constants_bytes,
        c.timestamp_period_ns
    ));
}
// ANCHOR_END: print

// ANCHOR: observe
/// Dispatch `observe_size.comp` once per requirable size (and once with no requirement) and
/// check that the shader saw the size it was promised.
fn observe_subgroup_sizes(ctx: &Context, report: &mut Report) -> Result<Vec<(Option<u32>, u32)>> {
    let caps = ctx.caps();
    let requests: Vec<Option<u32>> =
        std::iter::once(None).chain(caps.requirable_subgroup_sizes().into_iter().map(Some)).collect();
    // 128 invocations: the smallest maxComputeWorkGroupInvocations Vulkan allows, and a
    // multiple of every subgroup size (4..128), so full subgroups can be required.
    let workgroup_size = 128;
    let mut observed = Vec::new();
    for request in requests {
        let desc = KernelDesc {
            shader: "00_properties/observe_size.comp",
            buffers: 1,
            workgroup_size,
            subgroup_size: request,
            ..Default::default()
        };
        let label = request.map(|s| format!("required {s}")).unwrap_or_else(|| "no requirement".into());
        let kernel = match Kernel::new(ctx, &desc) {
            Ok(k) => k,
            // e.g. 128 invocations need more than maxComputeWorkgroupSubgroups at a small size
            Err(e) if e.downcast_ref::<vk_compute::SetupError>().is_some() => {
                report.skip(&format!("device {} {label}", caps.index), &format!("{e:#}"));
                continue;
            }
            Err(e) => return Err(e),
        };
        let mut result = Buffer::from_slice(ctx, "observed", &[u32::MAX, 0, u32::MAX])?;
        let mut rec = Recorder::new(ctx)?;
        rec.dispatch(&kernel, &[result.binding()], &(), [1, 1, 1])?;
        rec.submit_and_wait().context("observe subgroup size")?;
        let [min_seen, max_seen, subgroups] =
            <[u32; 3]>::try_from(result.download()?).map_err(|_| anyhow::anyhow!("3 words"))?;
        let (lo, hi) = caps.subgroup_size_range();
        let ok = match request {
            Some(size) => min_seen == size && max_seen == size,
            None => (lo..=hi).contains(&min_seen) && (lo..=hi).contains(&max_seen),
        };
        out(format!(
            "   observed gl_SubgroupSize = {min_seen} (max {max_seen}), gl_NumSubgroups = {subgroups} [{label}]"
        ));
        let check = Check {
            compared: 1,
            mismatches: usize::from(!ok),
            first: if ok {
                vec![]
            } else {
                vec![format!("expected {label} within [{lo}, {hi}], saw {min_seen}..{max_seen}")]
            },
            rule: format!("observed size {min_seen} matches {label}"),
        };
        report.check(&format!("device {} {label}", caps.index), None, &check);
        observed.push((request, min_seen));
    }
    if caps.requirable_subgroup_sizes().is_empty() {
        out("   (this device cannot require subgroup sizes; only the default was observed)");
    }
    Ok(observed)
}
// ANCHOR_END: observe

fn properties_json(c: &DeviceCaps, observed: &[(Option<u32>, u32)]) -> harness::serde_json::Value {
    json!({
        "index": c.index, "name": c.name, "type": c.device_type, "api_version": c.api_version,
        "driver_name": c.driver_name, "driver_info": c.driver_info, "vendor_id": c.vendor_id,
        "subgroup_size": c.subgroup_size, "subgroup_stages": c.subgroup_stages,
        "subgroup_operations": c.subgroup_ops.names(), "quad_operations_in_all_stages": c.quad_ops_in_all_stages,
        "size_control": c.size_control.as_ref().map(|s| json!({
            "min": s.min_size, "max": s.max_size, "max_compute_workgroup_subgroups": s.max_compute_workgroup_subgroups,
            "compute_can_require": s.compute_can_require, "full_subgroups": s.full_subgroups })),
        "atomics": { "shader_int64": c.shader_int64, "buffer_int64_atomics": c.buffer_int64_atomics,
            "buffer_float32_atomic_add": c.buffer_float32_atomic_add },
        "cooperative_matrix": c.coop_mat_shapes.iter().map(|s| with_types(json!({ "m": s.m, "n": s.n, "k": s.k }), &s.types))
            .collect::<Vec<_>>(),
        "bfloat16_cooperative_matrix": c.bfloat16_cooperative_matrix,
        "cooperative_matrix2": c.coop_mat2.as_ref().map(|c2| json!({
            "workgroup_scope": c2.workgroup_scope, "flexible_dimensions": c2.flexible_dimensions,
            "tensor_addressing": c2.tensor_addressing, "per_element_operations": c2.per_element_operations,
            "max_workgroup_size": c2.max_workgroup_size, "max_dimension": c2.max_dimension,
            "reserved_shared_memory": c2.reserved_shared_memory,
            "flexible_shapes": c2.flexible_shapes.iter().map(|s| with_types(json!({
                "m_granularity": s.m_granularity, "n_granularity": s.n_granularity, "k_granularity": s.k_granularity,
                "workgroup_invocations": s.workgroup_invocations }), &s.types)).collect::<Vec<_>>() })),
        "limits": { "max_workgroup_size": c.max_workgroup_size, "max_workgroup_invocations": c.max_workgroup_invocations,
            "max_workgroup_count": c.max_workgroup_count, "max_shared_memory_bytes": c.max_shared_memory_bytes,
            "max_storage_buffer_range": c.max_storage_buffer_range, "timestamp_period_ns": c.timestamp_period_ns },
        "observed_subgroup_size": observed.iter().map(|(req, seen)| json!({ "required": req, "observed": seen })).collect::<Vec<_>>(),
    })
}

/// `shape` (a JSON object) with a cooperative-matrix entry's types and scope added to it.
fn with_types(mut shape: harness::serde_json::Value, t: &vk_compute::CoopMatTypes) -> harness::serde_json::Value {
    if let Some(fields) = shape.as_object_mut() {
        for (key, value) in [("a", &t.a), ("b", &t.b), ("c", &t.c), ("result", &t.result), ("scope", &t.scope)] {
            fields.insert(key.into(), json!(value));
        }
        fields.insert("saturating".into(), json!(t.saturating));
    }
    shape
}
