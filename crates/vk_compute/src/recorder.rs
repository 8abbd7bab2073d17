//! One command buffer: record fills, copies, dispatches, barriers and timestamps, then submit
//! and wait with a timeout.

use crate::{setup_error, Buffer, Context, Kernel};
use anyhow::{Context as _, Result};
use ash::vk;
use bytemuck::Pod;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;

// ANCHOR: barrier
/// The dependencies the samples need, each a global memory barrier. Global barriers are as
/// fast as buffer barriers on current drivers and cannot miss a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// Shader and fill/copy writes of earlier commands → shader and fill/copy accesses of later
    /// ones (read-after-write, and write-after-read/write between passes, fills that reset a
    /// buffer between passes, and bench repeats).
    ComputeToCompute,
    /// Fill/copy writes (poisoning, uploads) → shader reads and writes.
    TransferToCompute,
    /// Shader writes → copy reads (download through staging).
    ComputeToTransfer,
    /// Shader and copy writes → host reads after the fence wait.
    ToHost,
}
// ANCHOR_END: barrier

// ANCHOR: barrier_masks
impl Barrier {
    fn masks(self) -> (vk::PipelineStageFlags, vk::AccessFlags, vk::PipelineStageFlags, vk::AccessFlags) {
        use vk::{AccessFlags as A, PipelineStageFlags as S};
        let shader_rw = A::SHADER_READ | A::SHADER_WRITE;
        match self {
            Barrier::ComputeToCompute => (
                S::COMPUTE_SHADER | S::TRANSFER,
                A::SHADER_WRITE | A::TRANSFER_WRITE,
                S::COMPUTE_SHADER | S::TRANSFER,
                shader_rw | A::TRANSFER_READ | A::TRANSFER_WRITE,
            ),
            Barrier::TransferToCompute => (S::TRANSFER, A::TRANSFER_WRITE, S::COMPUTE_SHADER, shader_rw),
            Barrier::ComputeToTransfer => (S::COMPUTE_SHADER, A::SHADER_WRITE, S::TRANSFER, A::TRANSFER_READ),
            Barrier::ToHost => {
                (S::COMPUTE_SHADER | S::TRANSFER, A::SHADER_WRITE | A::TRANSFER_WRITE, S::HOST, A::HOST_READ)
            }
        }
    }
}
// ANCHOR_END: barrier_masks

/// A buffer as a descriptor: what [`Recorder::dispatch`] binds. It borrows the buffer, so the
/// buffer outlives every recorder it is bound in. From [`Buffer::binding_for`] it also states
/// how many elements the dispatch reads or writes, and the dispatch checks that the buffer
/// holds them. From [`Buffer::texel_binding`] it is a uniform texel buffer instead of a
/// storage buffer.
#[derive(Clone, Copy, Debug)]
pub struct Binding<'b> {
    raw: vk::Buffer,
    /// The texel view of a uniform texel buffer; null for a storage buffer.
    view: vk::BufferView,
    /// Elements in the buffer.
    len: usize,
    /// Elements the dispatch uses (0..used); 0 when the binding states none.
    used: usize,
    _buffer: PhantomData<&'b ()>,
}

impl<T: Pod> Buffer<'_, T> {
    /// The whole buffer, bound with no stated use (the kernel guards its own indices).
    pub fn binding(&self) -> Binding<'_> {
        Binding { raw: self.raw, view: vk::BufferView::null(), len: self.len(), used: 0, _buffer: PhantomData }
    }

    /// The buffer, bound for a dispatch that reads or writes its elements `0..n`:
    /// [`Recorder::dispatch`] fails, before recording anything, unless the buffer holds them.
    pub fn binding_for(&self, n: usize) -> Binding<'_> {
        Binding { used: n, ..self.binding() }
    }
}

impl Binding<'_> {
    /// A uniform texel buffer binding of `view`, a view of `raw`.
    pub(crate) fn texels(raw: vk::Buffer, view: vk::BufferView) -> Self {
        Binding { raw, view, len: 0, used: 0, _buffer: PhantomData }
    }

    fn is_texels(&self) -> bool {
        self.view != vk::BufferView::null()
    }
}

/// GPU timestamps read back after a submission, in nanoseconds from an arbitrary origin.
#[derive(Clone, Debug, Default)]
pub struct Timestamps(pub Vec<f64>);

impl Timestamps {
    /// Nanoseconds between timestamps `start` and `end` (indices returned by `timestamp()`).
    pub fn between(&self, start: u32, end: u32) -> f64 {
        self.0[end as usize] - self.0[start as usize]
    }
}

const SETS_PER_POOL: u32 = 256;
const BUFFERS_PER_SET: u32 = 8;

/// Records one primary command buffer. Descriptor sets are allocated per (kernel, buffers)
/// and reused, so a bench loop of thousands of dispatches needs only a few. `'r` is the borrow
/// of every kernel and buffer recorded: none can be dropped before the recorder is submitted
/// (or dropped unsubmitted):
///
/// ```compile_fail,E0597
/// # fn f(ctx: &vk_compute::Context, kernel: &vk_compute::Kernel) -> anyhow::Result<()> {
/// let mut rec = vk_compute::Recorder::new(ctx)?;
/// {
///     let buffer = vk_compute::Buffer::<u32>::new(ctx, "b", 4)?;
///     rec.dispatch(kernel, &[buffer.binding()], &(), [1, 1, 1])?;
/// } // `buffer` would be destroyed while `rec` still uses it: rejected at compile time
/// rec.submit_and_wait()?;
/// # Ok(()) }
/// ```
pub struct Recorder<'c, 'r> {
    ctx: &'c Context,
    cmd: vk::CommandBuffer,
    pools: Vec<vk::DescriptorPool>,
    sets_left: u32,
    sets: HashMap<(vk::DescriptorSetLayout, Vec<(vk::Buffer, vk::BufferView)>), vk::DescriptorSet>,
    query_pool: vk::QueryPool,
    query_capacity: u32,
    queries_used: u32,
    _recorded: PhantomData<&'r ()>,
}

impl<'c, 'r> Recorder<'c, 'r> {
    /// Begin recording. Use [`Recorder::with_timestamps`] to time.
    pub fn new(ctx: &'c Context) -> Result<Self> {
        Self::with_timestamps(ctx, 0)
    }

    /// Begin recording with room for `capacity` timestamps.
    pub fn with_timestamps(ctx: &'c Context, capacity: u32) -> Result<Self> {
        if capacity > 0 && !ctx.has_timestamps() {
            return Err(crate::Unsupported(format!("{}'s compute queue has no timestamps", ctx.caps.name)).into());
        }
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(ctx.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool belongs to this device and is used from this thread only.
        let cmd = unsafe { ctx.device.allocate_command_buffers(&info) }.context("allocate a command buffer")?[0];
        let mut rec = Recorder {
            ctx,
            cmd,
            pools: Vec::new(),
            sets_left: 0,
            sets: HashMap::new(),
            query_pool: vk::QueryPool::null(),
            query_capacity: capacity,
            queries_used: 0,
            _recorded: PhantomData,
        };
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a freshly allocated command buffer in the initial state.
        unsafe { ctx.device.begin_command_buffer(cmd, &begin) }.context("begin a command buffer")?;
        if capacity > 0 {
            let qinfo = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(capacity);
            // SAFETY: valid create info; destroyed in Drop.
            rec.query_pool =
                unsafe { ctx.device.create_query_pool(&qinfo, None) }.context("create timestamp query pool")?;
            // SAFETY: recording; queries must be reset before they are written.
            unsafe { ctx.device.cmd_reset_query_pool(cmd, rec.query_pool, 0, capacity) };
        }
        Ok(rec)
    }

    /// Record a dependency; see [`Barrier`] for what each orders.
    pub fn barrier(&mut self, barrier: Barrier) {
        let (src_stage, src_access, dst_stage, dst_access) = barrier.masks();
        let memory = [vk::MemoryBarrier::default().src_access_mask(src_access).dst_access_mask(dst_access)];
        // SAFETY: recording state; stages and accesses are valid for a compute queue.
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(
                self.cmd,
                src_stage,
                dst_stage,
                vk::DependencyFlags::empty(),
                &memory,
                &[],
                &[],
            )
        };
    }

    /// Fill the whole buffer with a 32-bit pattern (poisoning outputs before a run).
    pub fn fill<T: Pod>(&mut self, buffer: &'r Buffer<'_, T>, pattern: u32) {
        // SAFETY: recording; the buffer has TRANSFER_DST usage and a size that is a multiple of 4.
        unsafe { self.ctx.device.cmd_fill_buffer(self.cmd, buffer.raw, 0, vk::WHOLE_SIZE, pattern) };
    }

    /// Fill elements `first..first + count` with a 32-bit pattern (`T` a multiple of 4 bytes).
    pub fn fill_range<T: Pod>(
        &mut self,
        buffer: &'r Buffer<'_, T>,
        first: usize,
        count: usize,
        pattern: u32,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>() as u64;
        anyhow::ensure!(
            size.is_multiple_of(4) && count > 0 && first + count <= buffer.len(),
            "fill of elements {first}..{} in a buffer of {}",
            first + count,
            buffer.len()
        );
        // SAFETY: recording; TRANSFER_DST usage; offset and size are non-zero multiples of 4
        // inside the buffer (checked above).
        unsafe {
            self.ctx.device.cmd_fill_buffer(self.cmd, buffer.raw, first as u64 * size, count as u64 * size, pattern)
        };
        Ok(())
    }

    /// Copy `bytes` from the start of `src` to the start of `dst`: an error, with nothing
    /// recorded, unless both buffers hold `bytes` (more than 0), `src` allows transfer reads,
    /// `dst` transfer writes, and they are two buffers (the ranges would overlap).
    pub fn copy<A: Pod, B: Pod>(&mut self, src: &'r Buffer<'_, A>, dst: &'r Buffer<'_, B>, bytes: u64) -> Result<()> {
        anyhow::ensure!(
            bytes > 0 && bytes <= src.byte_size() && bytes <= dst.byte_size(),
            "copy of {bytes} bytes from a buffer of {} bytes into one of {}",
            src.byte_size(),
            dst.byte_size()
        );
        anyhow::ensure!(
            src.usage.contains(vk::BufferUsageFlags::TRANSFER_SRC)
                && dst.usage.contains(vk::BufferUsageFlags::TRANSFER_DST),
            "copy from a buffer without TRANSFER_SRC usage or into one without TRANSFER_DST"
        );
        anyhow::ensure!(src.raw != dst.raw, "copy of a buffer onto itself (the ranges overlap)");
        let region = [vk::BufferCopy::default().size(bytes)];
        // SAFETY: recording; the source allows transfer reads and the destination transfer
        // writes, both hold at least `bytes` (> 0) from offset 0, and they are distinct buffers
        // (checked above).
        unsafe { self.ctx.device.cmd_copy_buffer(self.cmd, src.raw, dst.raw, &region) };
        Ok(())
    }

    fn descriptor_set(&mut self, kernel: &Kernel<'_>, buffers: &[Binding<'r>]) -> Result<vk::DescriptorSet> {
        let key = (kernel.set_layout, buffers.iter().map(|b| (b.raw, b.view)).collect::<Vec<_>>());
        if let Some(&set) = self.sets.get(&key) {
            return Ok(set);
        }
        if self.sets_left == 0 {
            let sizes = [vk::DescriptorType::STORAGE_BUFFER, vk::DescriptorType::UNIFORM_TEXEL_BUFFER]
                .map(|ty| vk::DescriptorPoolSize::default().ty(ty).descriptor_count(SETS_PER_POOL * BUFFERS_PER_SET));
            let info = vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_POOL).pool_sizes(&sizes);
            // SAFETY: valid create info; destroyed in Drop.
            let pool =
                unsafe { self.ctx.device.create_descriptor_pool(&info, None) }.context("create descriptor pool")?;
            self.pools.push(pool);
            self.sets_left = SETS_PER_POOL;
        }
        let layouts = [kernel.set_layout];
        let pool = *self.pools.last().context("descriptor pool")?;
        let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        // SAFETY: the pool has room (sets_left) for one more set of ≤ BUFFERS_PER_SET buffers of
        // either type.
        let set = unsafe { self.ctx.device.allocate_descriptor_sets(&info) }.context("allocate descriptor set")?[0];
        self.sets_left -= 1;
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> =
            buffers.iter().map(|b| [vk::DescriptorBufferInfo::default().buffer(b.raw).range(vk::WHOLE_SIZE)]).collect();
        let views: Vec<[vk::BufferView; 1]> = buffers.iter().map(|b| [b.view]).collect();
        let writes: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let write = vk::WriteDescriptorSet::default().dst_set(set).dst_binding(i as u32);
                if b.is_texels() {
                    write.descriptor_type(vk::DescriptorType::UNIFORM_TEXEL_BUFFER).texel_buffer_view(&views[i])
                } else {
                    write.descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(&infos[i])
                }
            })
            .collect();
        // SAFETY: the set is not in use by any pending command buffer yet.
        unsafe { self.ctx.device.update_descriptor_sets(&writes, &[]) };
        self.sets.insert(key, set);
        Ok(set)
    }

    /// Bind `kernel` with `buffers` at bindings 0.., push `push` and dispatch `groups` workgroups.
    /// Fails, with nothing recorded, when the buffers or push constants do not match the
    /// kernel, `groups` exceeds the device's maxComputeWorkGroupCount, or a binding from
    /// [`Buffer::binding_for`] states more elements than its buffer holds.
    pub fn dispatch<P: Pod>(
        &mut self,
        kernel: &'r Kernel<'_>,
        buffers: &[Binding<'r>],
        push: &P,
        groups: [u32; 3],
    ) -> Result<()> {
        let texels = buffers.iter().filter(|b| b.is_texels()).count() as u32;
        anyhow::ensure!(
            buffers.len() as u32 == kernel.buffers + kernel.texel_buffers
                && buffers.iter().take(kernel.buffers as usize).all(|b| !b.is_texels())
                && texels == kernel.texel_buffers
                && buffers.len() as u32 <= BUFFERS_PER_SET,
            "{} takes {} storage buffers then {} texel buffers, got {} bindings of which {texels} texel buffers",
            kernel.name,
            kernel.buffers,
            kernel.texel_buffers,
            buffers.len()
        );
        let push_bytes: &[u8] = bytemuck::bytes_of(push);
        anyhow::ensure!(
            push_bytes.len() as u32 == kernel.push_constant_bytes,
            "{} takes {} push-constant bytes, got {}",
            kernel.name,
            kernel.push_constant_bytes,
            push_bytes.len()
        );
        if let Some((i, b)) = buffers.iter().enumerate().find(|(_, b)| b.used > b.len) {
            anyhow::bail!(
                "{}: binding {i} is used for {} elements but its buffer holds {}",
                kernel.name,
                b.used,
                b.len
            );
        }
        let max = self.ctx.caps.max_workgroup_count;
        if groups.iter().zip(max).any(|(&g, m)| g > m) {
            return setup_error(format!("{}: {groups:?} workgroups exceed this device's maximum {max:?}", kernel.name));
        }
        let set = self.descriptor_set(kernel, buffers)?;
        // SAFETY: recording; the pipeline, layout and set are alive and compatible; the push
        // range matches the layout's (checked above).
        unsafe {
            let d = &self.ctx.device;
            d.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, kernel.pipeline);
            d.cmd_bind_descriptor_sets(self.cmd, vk::PipelineBindPoint::COMPUTE, kernel.layout, 0, &[set], &[]);
            if !push_bytes.is_empty() {
                d.cmd_push_constants(self.cmd, kernel.layout, vk::ShaderStageFlags::COMPUTE, 0, push_bytes);
            }
            if groups.iter().all(|&g| g > 0) {
                d.cmd_dispatch(self.cmd, groups[0], groups[1], groups[2]);
            }
        }
        Ok(())
    }

    /// Write a timestamp when all earlier commands have completed; returns its index.
    pub fn timestamp(&mut self) -> Result<u32> {
        anyhow::ensure!(
            self.queries_used < self.query_capacity,
            "more timestamps than the {} reserved",
            self.query_capacity
        );
        let index = self.queries_used;
        // SAFETY: recording; the query was reset at the start of this command buffer.
        unsafe {
            self.ctx.device.cmd_write_timestamp(
                self.cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                self.query_pool,
                index,
            )
        };
        self.queries_used += 1;
        Ok(index)
    }

    /// End, submit, wait (with the context's timeout) and read the timestamps.
    pub fn submit_and_wait(self) -> Result<Timestamps> {
        let ctx = self.ctx;
        let device = &ctx.device;
        // SAFETY: recording state, no open scopes.
        unsafe { device.end_command_buffer(self.cmd) }.context("end the command buffer")?;
        // SAFETY: valid create info; destroyed below.
        let fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }.context("create a fence")?;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: the command buffer is executable; the queue is used from this thread only.
        let submitted = unsafe { device.queue_submit(ctx.queue, &submit, fence) }.context("submit to the queue");
        if let Err(e) = submitted {
            // SAFETY: the fence was never submitted.
            unsafe { device.destroy_fence(fence, None) };
            return Err(e);
        }
        let timeout = ctx.options.fence_timeout;
        // SAFETY: the fence belongs to this device.
        let waited = unsafe { device.wait_for_fences(&[fence], true, timeout.as_nanos() as u64) };
        match waited {
            Ok(()) => {}
            Err(vk::Result::TIMEOUT) => {
                ctx.hung.store(true, Ordering::SeqCst);
                anyhow::bail!("GPU work did not finish within {:?}: a hung or far too slow kernel", timeout);
            }
            Err(e) => {
                ctx.hung.store(true, Ordering::SeqCst);
                return Err(anyhow::Error::new(e).context("wait for the GPU"));
            }
        }
        // SAFETY: the fence signalled, so it is no longer in use.
        unsafe { device.destroy_fence(fence, None) };
        let mut stamps = Timestamps::default();
        if self.queries_used > 0 {
            let mut raw = vec![0u64; self.queries_used as usize];
            // SAFETY: all queries up to queries_used were written by the finished submission.
            unsafe {
                device.get_query_pool_results(
                    self.query_pool,
                    0,
                    &mut raw,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .context("read timestamps")?;
            let bits = ctx.timestamp_valid_bits;
            let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let period = f64::from(ctx.caps.timestamp_period_ns);
            // Unwrap around the valid-bit range relative to the first stamp.
            let first = raw[0] & mask;
            stamps.0 = raw.iter().map(|&t| ((t & mask).wrapping_sub(first) & mask) as f64 * period).collect();
        }
        Ok(stamps)
    }
}

impl Drop for Recorder<'_, '_> {
    fn drop(&mut self) {
        if self.ctx.hung.load(Ordering::SeqCst) {
            return;
        }
        // SAFETY: submit_and_wait waited for the fence, or the buffer was never submitted;
        // nothing uses the command buffer, pools or queries any more.
        unsafe {
            let d = &self.ctx.device;
            d.free_command_buffers(self.ctx.command_pool, &[self.cmd]);
            for &pool in &self.pools {
                d.destroy_descriptor_pool(pool, None);
            }
            d.destroy_query_pool(self.query_pool, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContextOptions, KernelDesc};

    fn context() -> Context {
        Context::new(ContextOptions { validate: true, ..Default::default() })
            .expect("a Vulkan device with the validation layer (lavapipe in CI)")
    }

    #[test]
    fn copies_are_checked_against_both_buffers() {
        let ctx = context();
        let counter = ctx.validation_counter();
        {
            let small = Buffer::<u32>::from_slice(&ctx, "small", &[1, 2, 3, 4]).expect("buffer");
            let large = Buffer::<u32>::from_slice(&ctx, "large", &[7; 64]).expect("buffer");
            let mut rec = Recorder::new(&ctx).expect("recorder");
            assert!(rec.copy(&large, &small, large.byte_size()).is_err(), "more than the destination holds");
            assert!(rec.copy(&small, &large, small.byte_size() + 4).is_err(), "more than the source holds");
            assert!(rec.copy(&small, &large, 0).is_err(), "an empty copy");
            assert!(rec.copy(&large, &large, 16).is_err(), "a buffer onto itself");
            rec.copy(&small, &large, small.byte_size()).expect("a copy that fits");
            rec.barrier(Barrier::ToHost);
            rec.submit_and_wait().expect("submit");
            let mut large = large;
            let got = large.download().expect("download");
            assert_eq!(&got[..4], &[1, 2, 3, 4]);
            assert!(got[4..].iter().all(|&x| x == 7));
        }
        drop(ctx);
        assert_eq!(counter.count(), 0, "validation messages");
    }

    #[test]
    fn dispatches_are_checked_against_bound_lengths_and_grid_limits() {
        let ctx = context();
        let counter = ctx.validation_counter();
        {
            let desc = KernelDesc {
                shader: "common/copy.comp",
                buffers: 2,
                push_constant_bytes: 4,
                workgroup_size: 64,
                ..Default::default()
            };
            let kernel = Kernel::new(&ctx, &desc).expect("kernel");
            let src = Buffer::<u32>::from_slice(&ctx, "src", &[5; 256]).expect("buffer");
            let dst = Buffer::<u32>::new(&ctx, "dst", 128).expect("buffer");
            let mut rec = Recorder::new(&ctx).expect("recorder");
            // 256 elements read, 256 written: the destination holds 128.
            let err = rec
                .dispatch(&kernel, &[src.binding_for(256), dst.binding_for(256)], &64u32, [1, 1, 1])
                .expect_err("a destination too small");
            assert!(err.to_string().contains("binding 1 is used for 256 elements but its buffer holds 128"), "{err}");
            let max = ctx.caps().max_workgroup_count;
            assert!(rec.dispatch(&kernel, &[src.binding(), dst.binding()], &32u32, [max[0] + 1, 1, 1]).is_err());
            // 128 elements (32 uvec4s) fit both.
            rec.dispatch(&kernel, &[src.binding_for(128), dst.binding_for(128)], &32u32, [1, 1, 1]).expect("fits");
            rec.barrier(Barrier::ToHost);
            rec.submit_and_wait().expect("submit");
            let mut dst = dst;
            assert_eq!(dst.download().expect("download"), vec![5; 128]);
        }
        drop(ctx);
        assert_eq!(counter.count(), 0, "validation messages");
    }

    #[test]
    fn texel_bindings_read_the_buffer_and_must_sit_after_the_storage_buffers() {
        let ctx = context();
        let counter = ctx.validation_counter();
        {
            let desc = KernelDesc {
                shader: "common/texel_copy.comp",
                buffers: 1,
                texel_buffers: 1,
                push_constant_bytes: 4,
                workgroup_size: 64,
                ..Default::default()
            };
            let kernel = Kernel::new(&ctx, &desc).expect("kernel");
            let values: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 3.0).collect();
            let src = Buffer::<f32>::from_slice(&ctx, "src", &values).expect("buffer");
            let dst = Buffer::<f32>::new(&ctx, "dst", 64).expect("buffer");
            let texels = src.texel_binding(vk::Format::R32G32B32A32_SFLOAT).expect("texel view");
            assert!(src.texel_binding(vk::Format::R8_UNORM).is_err(), "a format not offered");
            let mut rec = Recorder::new(&ctx).expect("recorder");
            // A storage binding where the texel buffer belongs, and the other way round.
            assert!(rec.dispatch(&kernel, &[dst.binding(), src.binding()], &16u32, [1, 1, 1]).is_err());
            assert!(rec.dispatch(&kernel, &[texels, dst.binding()], &16u32, [1, 1, 1]).is_err());
            rec.fill(&dst, 0xDEAD_BEEF);
            rec.barrier(Barrier::TransferToCompute);
            rec.dispatch(&kernel, &[dst.binding(), texels], &16u32, [1, 1, 1]).expect("dispatch");
            rec.barrier(Barrier::ToHost);
            rec.submit_and_wait().expect("submit");
            let mut dst = dst;
            assert_eq!(dst.download().expect("download"), values);
        }
        drop(ctx);
        assert_eq!(counter.count(), 0, "validation messages");
    }
}
