//! GLSL → SPIR-V with shaderc, for target env Vulkan 1.1 (SPIR-V 1.3: the first version with
//! subgroup operations; the default target fails with "requires SPIR-V 1.3"), or on request
//! Vulkan 1.3 (SPIR-V 1.6, which GL_NV_cooperative_matrix2 needs).

use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Where the `glsl/` folder is: `$SUBGROUP_GLSL_DIR`, else `glsl/` beside or above the
/// executable (a carried bundle), else the source tree this crate was built from.
pub fn glsl_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SUBGROUP_GLSL_DIR") {
        return PathBuf::from(dir);
    }
    if let Ok(exe) = std::env::current_exe() {
        for up in exe.ancestors().skip(1).take(2) {
            let candidate = up.join("glsl");
            if candidate.join("include").is_dir() {
                return candidate;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../glsl")
}

/// Compile `glsl/<relative>` with `#define NAME VALUE` for each of `defines`. `#include "x.glsl"`
/// resolves beside the including file, then in `glsl/include/`. Errors name file and line.
pub fn compile_glsl(relative: &str, defines: &[(&str, String)]) -> Result<Vec<u32>> {
    compile_glsl_for(relative, defines, false)
}

/// [`compile_glsl`], for SPIR-V 1.6 (target environment Vulkan 1.3) where `spirv_1_6`:
/// GL_NV_cooperative_matrix2 is not accepted for an older SPIR-V.
pub fn compile_glsl_for(relative: &str, defines: &[(&str, String)], spirv_1_6: bool) -> Result<Vec<u32>> {
    let root = glsl_root();
    let path = root.join(relative);
    let source = std::fs::read_to_string(&path).with_context(|| format!("read shader {}", path.display()))?;
    let compiler = shaderc::Compiler::new().context("start the shaderc compiler")?;
    let mut options = shaderc::CompileOptions::new().context("create shaderc options")?;
    if spirv_1_6 {
        options.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_3 as u32);
        options.set_target_spirv(shaderc::SpirvVersion::V1_6);
    } else {
        options.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_1 as u32);
        options.set_target_spirv(shaderc::SpirvVersion::V1_3);
    }
    options.set_optimization_level(shaderc::OptimizationLevel::Performance);
    for (name, value) in defines {
        options.add_macro_definition(name, Some(value));
    }
    let include_dir = root.join("include");
    options.set_include_callback(move |requested, _kind, requester, _depth| {
        let beside = Path::new(requester).parent().map(|p| p.join(requested));
        let candidates = beside.into_iter().chain(std::iter::once(include_dir.join(requested)));
        for candidate in candidates {
            if let Ok(content) = std::fs::read_to_string(&candidate) {
                return Ok(shaderc::ResolvedInclude { resolved_name: candidate.display().to_string(), content });
            }
        }
        Err(format!("cannot find include \"{requested}\" (looked beside {requester} and in {})", include_dir.display()))
    });
    let display_name = path.display().to_string();
    let artifact = compiler
        .compile_into_spirv(&source, shaderc::ShaderKind::Compute, &display_name, "main", Some(&options))
        .map_err(|e| anyhow::anyhow!("{}", e.to_string().trim_end()))
        .with_context(|| format!("compile {relative}"))?;
    Ok(artifact.as_binary().to_vec())
}
