//! Diagnostic: does a large buffer's bandwidth depend on how its memory was allocated?
//!
//! For each memory type that is DEVICE_LOCAL, pooled (gpu-allocator's 256 MiB blocks) and
//! dedicated, allocates `--pairs` pairs of buffers of each size, keeps them all alive (so every
//! pair lands somewhere new) and times the copy kernel on each pair.
//! `cargo run --release --example memory_probe -- --sizes 67108864,268435456`

use anyhow::{Context as _, Result};
use clap::Parser;
use harness::{copy_between, warm_up_for, Timing};
use vk_compute::{Buffer, Context, ContextOptions};

#[derive(Parser)]
struct Args {
    /// Buffer sizes in 4-byte elements.
    #[arg(long, value_delimiter = ',', default_value = "67108864,134217728,268435456")]
    sizes: Vec<u64>,
    /// Buffer pairs per size and configuration.
    #[arg(long, default_value_t = 3)]
    pairs: usize,
    /// Timed copies per pair.
    #[arg(long, default_value_t = 10)]
    iters: u32,
    /// Finally: time one pair of the largest size after each step: `iMS` (the GPU idles MS
    /// milliseconds) or `bMS` (it copies other buffers for MS milliseconds).
    #[arg(long, value_delimiter = ',', default_value = "i0,i500,i1000,i2000,i4000,i0,b500,b1000,b3000")]
    schedule: Vec<String>,
    /// Skip the per-memory-type part.
    #[arg(long)]
    schedule_only: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let types = Context::new(ContextOptions::default()).context("Vulkan context")?.memory_types();
    for line in &types {
        println!("{line}");
    }
    let device_local = types.iter().enumerate().filter(|(_, t)| t.contains("DEVICE_LOCAL")).map(|(i, _)| i as u32);
    let timing = Timing { warmup: 3, iters: args.iters, batch: 1, prewarm: false };
    for memory_type in device_local.filter(|_| !args.schedule_only) {
        for dedicated in [false, true] {
            let options =
                ContextOptions { memory_type: Some(memory_type), dedicated_memory: dedicated, ..Default::default() };
            let ctx = Context::new(options).with_context(|| format!("context with memory type {memory_type}"))?;
            let label = format!("type {memory_type} {}", if dedicated { "dedicated" } else { "pooled" });
            warm_up_for(&ctx, std::time::Duration::from_secs(1)).context("warm-up")?;
            let mut kept = Vec::new();
            for &n in &args.sizes {
                for pair in 0..args.pairs {
                    let vec4s = (n / 4) as usize;
                    let made = Buffer::<[u32; 4]>::new(&ctx, "probe src", vec4s)
                        .and_then(|src| Ok((src, Buffer::<[u32; 4]>::new(&ctx, "probe dst", vec4s)?)));
                    let (src, dst) = match made {
                        Ok(pair) => pair,
                        // Memory runs out (or the type does not suit buffers): report, next size.
                        Err(e) => {
                            println!("[{label}] n={n}: {e:#}");
                            break;
                        }
                    };
                    let row = copy_between(&ctx, &src, &dst, &timing).context("copy")?;
                    println!(
                        "[{label}] n={n} pair {pair}: median {:9.2} µs {:7.1} GB/s",
                        row.median_ns / 1e3,
                        row.gbps
                    );
                    kept.push((src, dst));
                }
            }
        }
    }
    let ctx = Context::new(ContextOptions::default()).context("Vulkan context")?;
    let vec4s = (args.sizes.iter().copied().max().unwrap_or(0) / 4) as usize;
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
