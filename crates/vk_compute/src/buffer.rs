//! Typed storage buffers through gpu-allocator.

use crate::{setup_error, Barrier, Context, Recorder};
use anyhow::{Context as _, Result};
use ash::vk;
use bytemuck::Pod;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::marker::PhantomData;

/// A storage buffer of `len` elements of `T`, owning its memory. Sizes are rounded up to 16
/// bytes so shaders may read whole `uvec4`s at the tail (they must still guard the index).
pub struct Buffer<'c, T: Pod> {
    ctx: &'c Context,
    pub(crate) raw: vk::Buffer,
    /// `Some` until Drop hands it back to the allocator.
    allocation: Option<Allocation>,
    len: usize,
    bytes: u64,
    _elem: PhantomData<T>,
}

impl<'c, T: Pod> Buffer<'c, T> {
    // ANCHOR: buffer_new
    /// A device-local storage buffer with undefined contents (poison it with [`Recorder::fill`]).
    pub fn new(ctx: &'c Context, name: &str, len: usize) -> Result<Self> {
        let bytes = (len.max(1) * std::mem::size_of::<T>()) as u64;
        let bytes = bytes.div_ceil(16) * 16;
        if bytes > ctx.caps.max_storage_buffer_range {
            return setup_error(format!(
                "buffer `{name}` needs {bytes} bytes ({len} elements), beyond this device's maxStorageBufferRange of {} bytes",
                ctx.caps.max_storage_buffer_range
            ));
        }
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        Self::with_location(ctx, name, len, bytes, usage, MemoryLocation::GpuOnly)
    }

    /// A device buffer holding a copy of `data`.
    pub fn from_slice(ctx: &'c Context, name: &str, data: &[T]) -> Result<Self> {
        let mut buffer = Self::new(ctx, name, data.len())?;
        buffer.upload(data).with_context(|| format!("upload `{name}`"))?;
        Ok(buffer)
    }
    // ANCHOR_END: buffer_new

    fn with_location(
        ctx: &'c Context,
        name: &str,
        len: usize,
        bytes: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Self> {
        let info = vk::BufferCreateInfo::default().size(bytes).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info; the buffer is destroyed in Drop (or below on error).
        let raw =
            unsafe { ctx.device.create_buffer(&info, None) }.with_context(|| format!("create buffer `{name}`"))?;
        // SAFETY: `raw` is a live buffer of this device.
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        let allocation = ctx.allocator.lock().map_err(|_| anyhow::anyhow!("allocator lock poisoned"))?.allocate(
            &AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            },
        );
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the buffer has no memory bound and is unused.
                unsafe { ctx.device.destroy_buffer(raw, None) };
                return setup_error(format!(
                    "cannot allocate {bytes} bytes for buffer `{name}` on {}: {e}",
                    ctx.caps.name
                ));
            }
        };
        // SAFETY: memory from the allocator satisfies `requirements`; bound once.
        let bound = unsafe { ctx.device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) };
        let buffer = Buffer { ctx, raw, allocation: Some(allocation), len, bytes, _elem: PhantomData };
        bound.with_context(|| format!("bind memory of buffer `{name}`"))?;
        Ok(buffer)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes allocated (≥ len × size_of::<T>(), a multiple of 16).
    pub fn byte_size(&self) -> u64 {
        self.bytes
    }

    /// Mapped memory the CPU can use directly and quickly: coherent and, for reads, cached
    /// (reading write-combined device memory over PCIe is very slow).
    fn host_slice(&mut self, for_reading: bool) -> Option<&mut [u8]> {
        let allocation = self.allocation.as_mut()?;
        let props = allocation.memory_properties();
        let coherent = props.contains(vk::MemoryPropertyFlags::HOST_COHERENT);
        let cached = props.contains(vk::MemoryPropertyFlags::HOST_CACHED);
        if !coherent || (for_reading && !cached) {
            return None;
        }
        allocation.mapped_slice_mut()
    }

    /// Copy `data` into the buffer (directly if mapped, else through a staging buffer).
    pub fn upload(&mut self, data: &[T]) -> Result<()> {
        anyhow::ensure!(data.len() <= self.len, "upload of {} elements into a buffer of {}", data.len(), self.len);
        let src: &[u8] = bytemuck::cast_slice(data);
        if src.is_empty() {
            return Ok(());
        }
        if let Some(dst) = self.host_slice(false) {
            // vkQueueSubmit makes host writes made before it visible to the device.
            dst[..src.len()].copy_from_slice(src);
            return Ok(());
        }
        let mut staging = Buffer::<u8>::with_location(
            self.ctx,
            "upload staging",
            src.len(),
            src.len().div_ceil(16) as u64 * 16,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        let mapped = staging.host_slice(false).context("staging memory is not host-visible and coherent")?;
        mapped[..src.len()].copy_from_slice(src);
        let mut rec = Recorder::new(self.ctx)?;
        rec.copy(&staging, self, src.len() as u64);
        // Order the copy's write before any later shader access to the buffer.
        rec.barrier(Barrier::TransferToCompute);
        rec.submit_and_wait().context("upload through staging")?;
        Ok(())
    }

    /// Read the first `len()` elements back to the host.
    pub fn download(&mut self) -> Result<Vec<T>> {
        let bytes = self.len * std::mem::size_of::<T>();
        let mut out = vec![T::zeroed(); self.len];
        if bytes == 0 {
            return Ok(out);
        }
        let ctx = self.ctx;
        if self.host_slice(true).is_some() {
            let mut rec = Recorder::new(ctx)?;
            // Make earlier shader and transfer writes visible to host reads after the fence.
            rec.barrier(Barrier::ToHost);
            rec.submit_and_wait().context("download barrier")?;
            let src = self.host_slice(true).context("mapping vanished")?;
            bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(&src[..bytes]);
            return Ok(out);
        }
        let mut staging = Buffer::<u8>::with_location(
            ctx,
            "download staging",
            bytes,
            bytes.div_ceil(16) as u64 * 16,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let mut rec = Recorder::new(ctx)?;
        // Order earlier shader writes before the copy reads them.
        rec.barrier(Barrier::ComputeToTransfer);
        rec.copy(self, &staging, bytes as u64);
        // Make the copy's writes visible to host reads after the fence.
        rec.barrier(Barrier::ToHost);
        rec.submit_and_wait().context("download through staging")?;
        let allocation = staging.allocation.as_mut().context("staging allocation")?;
        let src = allocation.mapped_slice().context("staging memory is not host-visible")?;
        if !allocation.memory_properties().contains(vk::MemoryPropertyFlags::HOST_COHERENT) {
            // Non-coherent memory would need vkInvalidateMappedMemoryRanges; gpu-allocator
            // picks coherent memory for GpuToCpu on every driver we know.
            anyhow::bail!("staging memory is not host-coherent");
        }
        bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(&src[..bytes]);
        Ok(out)
    }
}

impl<T: Pod> Drop for Buffer<'_, T> {
    fn drop(&mut self) {
        if self.ctx.hung.load(std::sync::atomic::Ordering::SeqCst) {
            return; // the GPU may still use it; see Context::drop
        }
        // SAFETY: every submission that used the buffer was waited for (Recorder submits and
        // waits), so the device no longer uses it.
        unsafe { self.ctx.device.destroy_buffer(self.raw, None) };
        if let (Some(allocation), Ok(mut allocator)) = (self.allocation.take(), self.ctx.allocator.lock()) {
            let _ = allocator.free(allocation);
        }
    }
}
