//! What the binary cache of parsed graphs saves: reads a graph file by parsing it, then
//! through a fresh cache twice (the first read parses and writes the binary form, the
//! second loads it), checks the three graphs are the same, and prints each time.
//! `--generate` writes the file first, from a generator, so that a graph of any size can be
//! measured without downloading one.
//!
//!     cargo run --release -p wsdsl-graph --example load_graph -- data/graphs/p2p-Gnutella31.txt.gz
//!     cargo run --release -p wsdsl-graph --example load_graph -- /tmp/rmat22.el --generate rmat:22
//!     cargo run --release -p wsdsl-graph --example load_graph -- /tmp/road.gr --generate road:24000000

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl::graph::{self, Geometric, GraphCache, GraphOptions, Loaded, Pairs, Rmat};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: load_graph FILE [--generate rmat:SCALE|road:VERTICES] [--symmetrize]";
    let file = PathBuf::from(args.next().ok_or(usage)?);
    let (mut generate, mut symmetrize) = (None, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--generate" => generate = Some(args.next().ok_or(usage)?),
            "--symmetrize" => symmetrize = true,
            _ => return Err(format!("`{arg}`: {usage}")),
        }
    }
    let opts = GraphOptions { symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: true };
    if let Some(what) = generate {
        let started = Instant::now();
        let (kind, size) = what.split_once(':').ok_or(usage)?;
        let size: u32 = size.parse().map_err(|e| format!("`{size}`: {e}"))?;
        let g = match kind {
            "rmat" => Rmat { scale: size, edge_factor: 16, seed: 1, weighted: false }.generate(&opts),
            // Road-like: points in the unit square, joined to about 2.4 neighbours each (the
            // USA road network's 58 M arcs over 24 M vertices), weighted by length.
            "road" => Geometric { vertices: size, degree: 2.4, seed: 1, weighted: true }.generate(),
            _ => return Err(format!("`{kind}`: {usage}")),
        }
        .map_err(|e| e.to_string())?;
        graph::write(&g, &file, Pairs::All).map_err(|e| e.to_string())?;
        println!("wrote {}: {} vertices, {} edges, in {:.1} s", file.display(), g.vertices(), g.edges(), started.elapsed().as_secs_f64());
    }
    let bytes = std::fs::metadata(&file).map_err(|e| format!("{}: {e}", file.display()))?.len();
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let parsed = graph::read(&file, &opts).map_err(|e| e.to_string())?;
    let parse = started.elapsed();
    println!("{}: {} bytes, {} vertices, {} edges", file.display(), bytes, parsed.vertices(), parsed.edges());
    println!("parse:                      {:8.3} s ({:.2} s of CPU)", parse.as_secs_f64(), cpu_seconds() - cpu);
    // A cache of its own, so that the first read cannot find an entry an earlier run left.
    let dir = std::env::temp_dir().join(format!("wsdsl-load-graph-{}", std::process::id()));
    let cache = GraphCache::in_dir(&dir);
    // The cache trusts no entry written within a second of its file's last change.
    let settled = std::fs::metadata(&file).and_then(|m| m.modified()).map(|t| t.elapsed().unwrap_or_default()).unwrap_or_default();
    std::thread::sleep(std::time::Duration::from_millis(1100).saturating_sub(settled));
    let mut times = Vec::new();
    let mut cpu = Vec::new();
    for want in [Loaded::Parsed, Loaded::Cached, Loaded::Cached] {
        let (started, before) = (Instant::now(), cpu_seconds());
        let (g, loaded) = cache.read(&file, &opts).map_err(|e| e.to_string())?;
        times.push(started.elapsed());
        cpu.push(cpu_seconds() - before);
        if loaded != want || g != parsed {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!("read {}: {loaded:?} (expected {want:?}), the same graph: {}", times.len(), g == parsed));
        }
    }
    let entry = cache.entry_path(&file, &opts)?;
    let entry_bytes = std::fs::metadata(&entry).map(|m| m.len()).unwrap_or(0);
    println!("parse and write the cache:  {:8.3} s ({:.2} s of CPU; {entry_bytes} bytes)", times[0].as_secs_f64(), cpu[0]);
    println!(
        "load the cache:             {:8.3} s ({:.2} s of CPU), again {:.3} s ({:.2}): {:.0}x faster than the parse",
        times[1].as_secs_f64(),
        cpu[1],
        times[2].as_secs_f64(),
        cpu[2],
        parse.as_secs_f64() / times[1].as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The CPU time this process has used, every thread's, in seconds (from `/proc/self/stat`,
/// in ticks of 10 ms; 0 where there is no such file): on a machine shared with other work,
/// what a phase cost apart from the waits for a core.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's name (which is in parentheses and may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks = |k: usize| fields.get(k).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are the 14th and 15th fields of the line, the 12th and 13th after the name.
    (ticks(11) + ticks(12)) / 100.0
}
