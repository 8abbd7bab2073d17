//! The thin ash layer of the subgroup suite: the only crate with `unsafe` code.
//!
//! - [`Context`]: instance (optionally with validation), device choice, queue, allocator, and
//!   the device's subgroup capabilities ([`DeviceCaps`]).
//! - [`Buffer`]: a typed storage buffer with upload and download.
//! - [`Kernel`]: GLSL → SPIR-V (shaderc) → compute pipeline with bindings, push constants,
//!   specialization constants and an optional required subgroup size.
//! - [`Recorder`]: one command buffer: fills, dispatches, explained barriers, timestamps,
//!   submission with a fence timeout.
//!
//! Errors that are the user's or the machine's fault (bad input, missing loader, missing feature)
//! are typed ([`SetupError`], [`Unsupported`]) so the harness can map them to exit codes.

mod buffer;
mod caps;
mod context;
mod coopmat;
mod kernel;
mod recorder;
mod shader;

pub use ash::vk;
pub use buffer::Buffer;
pub use caps::{CoopMat2, CoopMatFlexShape, CoopMatShape, CoopMatTypes, DeviceCaps, SizeControl, SubgroupOps};
pub use context::{list_devices, Context, ContextOptions, ValidationCounter};
pub use kernel::{Kernel, KernelDesc};
pub use recorder::{Barrier, Binding, Recorder, Timestamps};
pub use shader::{compile_glsl, compile_glsl_for, glsl_root};

use std::fmt;

/// Something about the input or the machine prevents the run: bad arguments, no Vulkan loader,
/// no device, a size the device cannot hold. The harness maps it to exit code 2.
#[derive(Debug)]
pub struct SetupError(pub String);

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SetupError {}

/// The device lacks a feature the work needs. The harness maps it to SKIP (exit code 77).
#[derive(Debug)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Unsupported {}

/// Shorthand for `Err(SetupError(..).into())`.
pub fn setup_error<T>(msg: impl Into<String>) -> anyhow::Result<T> {
    Err(SetupError(msg.into()).into())
}
