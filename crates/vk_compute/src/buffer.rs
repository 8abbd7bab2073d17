//! Typed storage buffers through gpu-allocator.

use crate::{setup_error, Barrier, Binding, Context, Recorder};
use anyhow::{Context as _, Result};
use ash::vk;
use bytemuck::Pod;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::cell::RefCell;
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
    /// What the buffer may be used for (a copy checks its transfer usages).
    pub(crate) usage: vk::BufferUsageFlags,
    /// Texel views made by [`Buffer::texel_binding`], one per format, destroyed with the buffer.
    views: RefCell<Vec<(vk::Format, vk::BufferView)>>,
    _elem: PhantomData<T>,
}

/// How [`Buffer::upload`] and [`Buffer::download`] move the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostPath {
    /// Through the buffer's own mapping where its memory is host-visible and coherent (and
    /// cached, for reads), else through a staging buffer.
    Auto,
    /// Through a staging buffer whose memory is treated as not host-coherent, flushed after
    /// the host writes it and invalidated before the host reads it, even where the memory is
    /// coherent (flushing coherent memory is allowed and does nothing): the path that
    /// non-coherent memory takes, on any device (tests).
    #[cfg(test)]
    StagingNonCoherent,
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
            | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        Self::with_location(ctx, name, len, bytes, usage, MemoryLocation::GpuOnly, false)
    }

    /// A device buffer holding a copy of `data`.
    pub fn from_slice(ctx: &'c Context, name: &str, data: &[T]) -> Result<Self> {
        let mut buffer = Self::new(ctx, name, data.len())?;
        buffer.upload(data).with_context(|| format!("upload `{name}`"))?;
        Ok(buffer)
    }
    // ANCHOR_END: buffer_new

    /// A buffer in memory from `location`; `dedicated`: in a memory object of its own, so that
    /// ranges widened to nonCoherentAtomSize stay inside memory it owns (staging).
    fn with_location(
        ctx: &'c Context,
        name: &str,
        len: usize,
        bytes: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        dedicated: bool,
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
                allocation_scheme: if dedicated {
                    AllocationScheme::DedicatedBuffer(raw)
                } else {
                    AllocationScheme::GpuAllocatorManaged
                },
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
        let buffer = Buffer {
            ctx,
            raw,
            allocation: Some(allocation),
            len,
            bytes,
            usage,
            views: RefCell::new(Vec::new()),
            _elem: PhantomData,
        };
        bound.with_context(|| format!("bind memory of buffer `{name}`"))?;
        Ok(buffer)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer as a uniform texel buffer of `format` (`samplerBuffer` in GLSL, read with
    /// `texelFetch`): the whole buffer in texels, through a view made on first use and kept
    /// until the buffer is dropped. Takes R32_SFLOAT, R32G32B32A32_SFLOAT and
    /// R16G16B16A16_SFLOAT; fails with a setup error where the device does not offer the
    /// format for uniform texel buffers, or the buffer holds more texels than its
    /// `maxTexelBufferElements`.
    pub fn texel_binding(&self, format: vk::Format) -> Result<Binding<'_>> {
        if let Some(&(_, view)) = self.views.borrow().iter().find(|(f, _)| *f == format) {
            return Ok(Binding::texels(self.raw, view));
        }
        let texel_bytes: u64 = match format {
            vk::Format::R32_SFLOAT => 4,
            vk::Format::R16G16B16A16_SFLOAT => 8,
            vk::Format::R32G32B32A32_SFLOAT => 16,
            other => anyhow::bail!("texel views of {other:?} are not offered"),
        };
        if !self.ctx.caps.uniform_texel_formats.contains(&format) {
            return setup_error(format!("{} does not offer {format:?} for uniform texel buffers", self.ctx.caps.name));
        }
        let texels = self.bytes / texel_bytes;
        let most = self.ctx.caps.max_texel_buffer_elements;
        if texels > u64::from(most) {
            return setup_error(format!(
                "a texel view of {texels} {format:?} texels is beyond {}'s maxTexelBufferElements of {most}",
                self.ctx.caps.name
            ));
        }
        let info = vk::BufferViewCreateInfo::default().buffer(self.raw).format(format).range(texels * texel_bytes);
        // SAFETY: the buffer is live, has UNIFORM_TEXEL_BUFFER usage, the device offers the
        // format for it, and the range holds at most maxTexelBufferElements texels inside the
        // buffer; the view is destroyed in Drop, before the buffer.
        let view = unsafe { self.ctx.device.create_buffer_view(&info, None) }.context("create texel view")?;
        self.views.borrow_mut().push((format, view));
        Ok(Binding::texels(self.raw, view))
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
        self.upload_by(data, HostPath::Auto)
    }

    pub(crate) fn upload_by(&mut self, data: &[T], path: HostPath) -> Result<()> {
        anyhow::ensure!(data.len() <= self.len, "upload of {} elements into a buffer of {}", data.len(), self.len);
        let src: &[u8] = bytemuck::cast_slice(data);
        if src.is_empty() {
            return Ok(());
        }
        if path == HostPath::Auto {
            if let Some(dst) = self.host_slice(false) {
                // vkQueueSubmit makes host writes made before it visible to the device.
                dst[..src.len()].copy_from_slice(src);
                return Ok(());
            }
        }
        let mut staging = Buffer::<u8>::with_location(
            self.ctx,
            "upload staging",
            src.len(),
            src.len().div_ceil(16) as u64 * 16,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
            true,
        )?;
        let allocation = staging.allocation.as_mut().context("staging allocation")?;
        let mapped = allocation.mapped_slice_mut().context("staging memory is not host-visible")?;
        mapped[..src.len()].copy_from_slice(src);
        // Non-coherent memory: the host writes reach the device only once flushed (vkQueueSubmit
        // then makes them visible to the copy).
        staging.sync_mapping(path, 0, src.len() as u64, Mapped::Flush)?;
        let mut rec = Recorder::new(self.ctx)?;
        rec.copy(&staging, self, src.len() as u64)?;
        // Order the copy's write before any later shader access to the buffer.
        rec.barrier(Barrier::TransferToCompute);
        rec.submit_and_wait().context("upload through staging")?;
        Ok(())
    }

    /// Whether the memory is host-coherent (or `path` says to treat it as if it were not).
    fn coherent(&self, path: HostPath) -> bool {
        path == HostPath::Auto
            && self
                .allocation
                .as_ref()
                .is_some_and(|a| a.memory_properties().contains(vk::MemoryPropertyFlags::HOST_COHERENT))
    }

    /// For memory that is not host-coherent: flush bytes `offset..offset + len` of the mapping
    /// after host writes, or invalidate them before host reads. Nothing for coherent memory.
    fn sync_mapping(&self, path: HostPath, offset: u64, len: u64, op: Mapped) -> Result<()> {
        if self.coherent(path) {
            return Ok(());
        }
        let allocation = self.allocation.as_ref().context("staging allocation")?;
        // Staging buffers own their memory object (dedicated), so the widened range below stays
        // inside memory no other buffer uses.
        anyhow::ensure!(allocation.offset() == 0, "a non-coherent mapping must be a dedicated allocation");
        let (start, size) = atom_range(offset, len, self.ctx.caps.non_coherent_atom_size, allocation.size());
        // SAFETY: the memory object belongs to this allocation, which is alive and mapped by
        // the allocator.
        let memory = unsafe { allocation.memory() };
        let range = [vk::MappedMemoryRange::default().memory(memory).offset(start).size(size)];
        let device = &self.ctx.device;
        match op {
            Mapped::Flush => {
                // SAFETY: the range is mapped, aligned to nonCoherentAtomSize (or reaches the
                // end of the memory object) and inside it (atom_range).
                unsafe { device.flush_mapped_memory_ranges(&range) }.context("flush staging memory")
            }
            Mapped::Invalidate => {
                // SAFETY: as for the flush; the device finished writing (the fence was waited
                // for).
                unsafe { device.invalidate_mapped_memory_ranges(&range) }.context("invalidate staging memory")
            }
        }
    }

    /// Read the first `len()` elements back to the host.
    pub fn download(&mut self) -> Result<Vec<T>> {
        self.download_by(HostPath::Auto)
    }

    pub(crate) fn download_by(&mut self, path: HostPath) -> Result<Vec<T>> {
        let bytes = self.len * std::mem::size_of::<T>();
        let mut out = vec![T::zeroed(); self.len];
        if bytes == 0 {
            return Ok(out);
        }
        let ctx = self.ctx;
        if path == HostPath::Auto && self.host_slice(true).is_some() {
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
            true,
        )?;
        let mut rec = Recorder::new(ctx)?;
        // Order earlier shader writes before the copy reads them.
        rec.barrier(Barrier::ComputeToTransfer);
        rec.copy(self, &staging, bytes as u64)?;
        // Make the copy's writes visible to host reads after the fence.
        rec.barrier(Barrier::ToHost);
        rec.submit_and_wait().context("download through staging")?;
        // Non-coherent memory: the host sees the device's writes only once invalidated.
        staging.sync_mapping(path, 0, bytes as u64, Mapped::Invalidate)?;
        let allocation = staging.allocation.as_mut().context("staging allocation")?;
        let src = allocation.mapped_slice().context("staging memory is not host-visible")?;
        bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(&src[..bytes]);
        Ok(out)
    }
}

/// What [`Buffer::sync_mapping`] does to a mapped range.
#[derive(Clone, Copy, Debug)]
enum Mapped {
    Flush,
    Invalidate,
}

/// The range (offset, size) to flush or invalidate for bytes `offset..offset + len` of a
/// memory object of `memory_size` bytes: the start rounded down and the end up to multiples
/// of `atom` (nonCoherentAtomSize), as VkMappedMemoryRange requires, and VK_WHOLE_SIZE where
/// the rounded end would pass the end of the memory.
fn atom_range(offset: u64, len: u64, atom: u64, memory_size: u64) -> (u64, u64) {
    let atom = atom.max(1);
    let start = offset / atom * atom;
    let end = (offset + len).div_ceil(atom) * atom;
    if end >= memory_size {
        (start, vk::WHOLE_SIZE)
    } else {
        (start, end - start)
    }
}

impl<T: Pod> Drop for Buffer<'_, T> {
    fn drop(&mut self) {
        if self.ctx.hung.load(std::sync::atomic::Ordering::SeqCst) {
            return; // the GPU may still use it; see Context::drop
        }
        // SAFETY: every submission that used the buffer or its views was waited for (Recorder
        // submits and waits), so the device no longer uses them; views go first.
        unsafe {
            for &(_, view) in self.views.borrow().iter() {
                self.ctx.device.destroy_buffer_view(view, None);
            }
            self.ctx.device.destroy_buffer(self.raw, None);
        }
        if let (Some(allocation), Ok(mut allocator)) = (self.allocation.take(), self.ctx.allocator.lock()) {
            let _ = allocator.free(allocation);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContextOptions;

    #[test]
    fn flushed_ranges_cover_whole_atoms_inside_the_memory() {
        // Start rounded down, end rounded up to the atom.
        assert_eq!(atom_range(0, 10, 64, 4096), (0, 64));
        assert_eq!(atom_range(70, 10, 64, 4096), (64, 64));
        assert_eq!(atom_range(60, 10, 64, 4096), (0, 128));
        assert_eq!(atom_range(128, 128, 64, 4096), (128, 128));
        // An end past the memory's last whole atom: to the end of the memory.
        assert_eq!(atom_range(0, 100, 64, 100), (0, vk::WHOLE_SIZE));
        assert_eq!(atom_range(64, 30, 64, 120), (64, vk::WHOLE_SIZE));
        // An atom of 1 (or a device reporting 0) changes nothing.
        assert_eq!(atom_range(3, 5, 1, 100), (3, 5));
        assert_eq!(atom_range(3, 5, 0, 100), (3, 5));
    }

    /// Uploads and downloads through staging memory treated as not host-coherent (flushed
    /// and invalidated in ranges of nonCoherentAtomSize), under the validation layer, on the
    /// default device (lavapipe in CI): the data comes back unchanged and the layer reports
    /// nothing.
    #[test]
    fn staging_treated_as_non_coherent_round_trips() {
        let ctx = Context::new(ContextOptions { validate: true, ..Default::default() })
            .expect("a Vulkan device with the validation layer (lavapipe in CI)");
        let counter = ctx.validation_counter();
        assert!(ctx.caps().non_coherent_atom_size >= 1);
        for n in [1usize, 3, 17, 1000, 65_537] {
            let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            let mut buffer = Buffer::<u32>::new(&ctx, "round trip", n).expect("buffer");
            buffer.upload_by(&data, HostPath::StagingNonCoherent).expect("upload");
            assert_eq!(buffer.download_by(HostPath::StagingNonCoherent).expect("download"), data, "n={n}");
            // Either way round with the ordinary path.
            assert_eq!(buffer.download().expect("download"), data, "n={n}");
            let other: Vec<u32> = data.iter().map(|x| !x).collect();
            buffer.upload(&other).expect("upload");
            assert_eq!(buffer.download_by(HostPath::StagingNonCoherent).expect("download"), other, "n={n}");
        }
        drop(ctx);
        assert_eq!(counter.count(), 0, "validation messages");
    }
}
