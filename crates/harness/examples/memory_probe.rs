//! Diagnostic: how the copy kernel's bandwidth on one large buffer pair follows what the GPU did
//! just before — idling (`iMS`) or copying other buffers (`bMS`). On the H200 it showed the SM
//! clock's idle drop (docs/src/02_reduce.md, step 10). (Its first version also compared memory
//! types and dedicated allocations: no difference; removed with those options in session 5.)
//! `cargo run --release --example memory_probe -- --size 268435456 --schedule i0,i2000,b3000`

use anyhow::{Context as _, Result};
use clap::Parser;
use harness::{copy_between, warm_up_for, Timing};
use vk_compute::{Buffer, Context, ContextOptions};

#[derive(Parser)]
struct Args {
    /// Buffer size in 4-byte elements.
    #[arg(long, default_value_t = 268435456)]
    size: u64,
    /// Timed copies per measurement.
    #[arg(long, default_value_t = 10)]
    iters: u32,
    /// Time the pair after each step: `iMS` (the GPU idles MS milliseconds) or `bMS` (it copies
    /// other buffers for MS milliseconds).
    #[arg(long, value_delimiter = ',', default_value = "i0,i500,i1000,i2000,i4000,i0,b500,b1000,b3000")]
    schedule: Vec<String>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let timing = Timing { warmup: 3, iters: args.iters, batch: 1, prewarm: false };
    let ctx = Context::new(ContextOptions::default()).context("Vulkan context")?;
    let vec4s = (args.size / 4) as usize;
    let src = Buffer::<[u32; 4]>::new(&ctx, "probe src", vec4s).context("schedule buffers")?;
    let dst = Buffer::<[u32; 4]>::new(&ctx, "probe dst", vec4s).context("schedule buffers")?;
    warm_up_for(&ctx, std::time::Duration::from_secs(1)).context("warm-up")?;
    let start = std::time::Instant::now();
    for step in &args.schedule {
        let ms: u64 = step.get(1..).and_then(|v| v.parse().ok()).context("schedule steps are iMS or bMS")?;
        let duration = std::time::Duration::from_millis(ms);
        match step.chars().next() {
            Some('b') => drop(warm_up_for(&ctx, duration).context("busy step")?),
            Some('i') => std::thread::sleep(duration),
            _ => anyhow::bail!("schedule step `{step}`: not iMS or bMS"),
        }
        let row = copy_between(&ctx, &src, &dst, &timing).context("copy")?;
        let at = start.elapsed().as_secs_f64();
        println!(
            "[t={at:6.2} s, after {step}] n={}: median {:9.2} µs {:7.1} GB/s",
            vec4s * 4,
            row.median_ns / 1e3,
            row.gbps
        );
    }
    Ok(())
}
