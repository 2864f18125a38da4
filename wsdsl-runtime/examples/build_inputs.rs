//! What building a large input costs: an array of 2^28 `u32` (1 GiB; `--log2 K` for 2^K) made
//! as a `ReadOnly` and as a `Buffer` by each constructor, beside the bodies the `from_vec`
//! constructors had before they took the vector's memory as it is (a copy into an `Arc<[T]>`;
//! a pass on one thread into atomics), with the time each takes and the process's peak
//! resident memory while it runs, in units of the array's size.
//!
//! ```text
//! cargo run --release -p wsdsl-runtime --example build_inputs [-- --log2 28 --rounds 5]
//! ```
//!
//! The variants alternate within each round, so that the machine's load falls on all of them
//! alike, and the medians are printed. The peak is the process's resident high-water mark
//! (`VmHWM`, reset before each variant through `/proc/self/clear_refs`: Linux only): for a
//! constructor that takes a vector, the vector is resident before it starts, so a peak of
//! 1.0x means no second copy and 2.0x one. That vector is made before the clock starts (its
//! own cost, on one thread, is a row of its own). Every array built is checked element by
//! element against the values asked for (and `from_vec`'s against the vector's address: no
//! copy); a wrong one, or a `from_vec` that copied, makes the exit status 1.

use rayon::prelude::*;
use std::cell::UnsafeCell;
use std::hint::black_box;
use std::mem::MaybeUninit;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wsdsl_runtime::{Buffer, ReadOnly};

/// A field of `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux: /proc/self/status");
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("{field} in /proc/self/status"));
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("a size in kB") * 1024
}

/// Element `i` of every array: a hash, so that a misplaced piece shows.
fn f(i: usize) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761) ^ (i >> 32) as u32
}

/// The input a vector constructor takes, written as a program's own vector would be.
fn input(n: usize) -> Vec<u32> {
    (0..n).into_par_iter().map(f).collect()
}

/// What one variant built, kept until it is checked.
enum Built {
    ReadOnly(ReadOnly<u32>),
    Buffer(Buffer<u32>),
    /// An array and, for `from_slice`, the vector it copied (alive throughout, as in a
    /// program that keeps using it, and checked to be as it was).
    Copied(Box<Built>, Vec<u32>),
    /// The old `ReadOnly::from_vec`'s elements.
    Shared(Arc<[u32]>),
    /// The old `Buffer::from_vec`'s cells.
    Cells(Box<[UnsafeCell<MaybeUninit<AtomicU32>>]>),
    /// A vector, made by the program itself.
    Vector(Vec<u32>),
    /// A buffer of zeros.
    Zeroed(Buffer<u32>),
}

impl Built {
    /// Whether element `i` is `f(i)` (zero for `Zeroed`) for each of the `n`, and where the
    /// elements are, taking the array (a `Buffer` says where by `into_vec`, which moves
    /// nothing).
    fn check(self, n: usize) -> (bool, usize) {
        fn all(len: usize, n: usize, get: impl Fn(usize) -> u32 + Sync) -> bool {
            len == n && (0..n).into_par_iter().all(|i| get(i) == f(i))
        }
        match self {
            Built::ReadOnly(a) => (all(a.len(), n, |i| a.get(i)), a.as_slice().as_ptr() as usize),
            Built::Buffer(b) => {
                let right = all(b.len(), n, |i| b.get(i));
                let values = b.into_vec();
                (right, values.as_ptr() as usize)
            }
            Built::Copied(built, vector) => {
                let (right, at) = built.check(n);
                (right && all(vector.len(), n, |i| vector[i]), at)
            }
            Built::Shared(a) => (all(a.len(), n, |i| a[i]), a.as_ptr() as usize),
            Built::Cells(cells) => {
                // SAFETY: every cell was initialised by the conversion (`old_buffer_from_vec`),
                // and a cell has its atomic's layout (`UnsafeCell`, `MaybeUninit`: transparent).
                let atoms = unsafe { Box::from_raw(Box::into_raw(cells) as *mut [AtomicU32]) };
                (all(atoms.len(), n, |i| atoms[i].load(Relaxed)), atoms.as_ptr() as usize)
            }
            Built::Vector(v) => (all(v.len(), n, |i| v[i]), v.as_ptr() as usize),
            Built::Zeroed(b) => (b.len() == n && (0..n).into_par_iter().all(|i| b.get(i) == 0), 0),
        }
    }
}

/// `Buffer::from_vec`'s body before it took the vector's memory: one pass, on one thread,
/// over every element into its atomic (in the vector's memory: the standard library's
/// `collect` reuses it where the layouts agree).
fn old_buffer_from_vec(values: Vec<u32>) -> Built {
    Built::Cells(values.into_iter().map(|v| UnsafeCell::new(MaybeUninit::new(AtomicU32::new(v)))).collect())
}

/// One way to build the array: from a vector made before it (not timed) or from nothing.
struct Variant {
    name: &'static str,
    what: &'static str,
    takes_vector: bool,
    /// Whether the array must be in the vector's memory (no copy).
    in_place: bool,
    build: fn(usize, Option<Vec<u32>>) -> Built,
}

const VARIANTS: [Variant; 10] = [
    Variant {
        name: "ReadOnly::from_vec",
        what: "takes the vector",
        takes_vector: true,
        in_place: true,
        build: |_, v| Built::ReadOnly(ReadOnly::from_vec(v.unwrap())),
    },
    Variant {
        name: "ReadOnly::from_fn",
        what: "written on every core",
        takes_vector: false,
        in_place: false,
        build: |n, _| Built::ReadOnly(ReadOnly::from_fn(n, f).expect("the array fits")),
    },
    Variant {
        name: "ReadOnly::from_slice",
        what: "copied on every core",
        takes_vector: true,
        in_place: false,
        build: |_, v| {
            let v = v.unwrap();
            Built::Copied(Box::new(Built::ReadOnly(ReadOnly::from_slice(&v))), v)
        },
    },
    Variant {
        name: "old ReadOnly::from_vec",
        what: "Arc::<[T]>::from(vec), a copy",
        takes_vector: true,
        in_place: false,
        build: |_, v| Built::Shared(Arc::from(v.unwrap())),
    },
    Variant {
        name: "Buffer::from_vec",
        what: "takes the vector",
        takes_vector: true,
        in_place: true,
        build: |_, v| Built::Buffer(Buffer::from_vec(v.unwrap())),
    },
    Variant {
        name: "Buffer::from_fn",
        what: "written on every core",
        takes_vector: false,
        in_place: false,
        build: |n, _| Built::Buffer(Buffer::from_fn(n, f).expect("the array fits")),
    },
    Variant {
        name: "Buffer::from_slice",
        what: "copied on every core",
        takes_vector: true,
        in_place: false,
        build: |_, v| {
            let v = v.unwrap();
            Built::Copied(Box::new(Built::Buffer(Buffer::from_slice(&v))), v)
        },
    },
    Variant {
        name: "old Buffer::from_vec",
        what: "a pass into atomics, one thread",
        takes_vector: true,
        in_place: false,
        build: |_, v| old_buffer_from_vec(v.unwrap()),
    },
    Variant {
        name: "(0..n).map(f).collect()",
        what: "a vector to hand from_vec, one thread",
        takes_vector: false,
        in_place: false,
        build: |n, _| Built::Vector((0..n).map(f).collect()),
    },
    Variant {
        name: "Buffer::zeroed",
        what: "nothing written until first touched",
        takes_vector: false,
        in_place: false,
        build: |n, _| Built::Zeroed(Buffer::zeroed(n)),
    },
];

/// One measurement: the time of `v`'s build, the peak resident bytes while it ran, and
/// whether what it built holds the right elements (in the vector's memory, where it must be).
fn measure(v: &Variant, n: usize) -> (Duration, u64, bool) {
    let vector = v.takes_vector.then(|| input(n));
    let start = vector.as_ref().map(|v| v.as_ptr() as usize);
    std::fs::write("/proc/self/clear_refs", "5").expect("writing /proc/self/clear_refs resets VmHWM (Linux 4.0 on)");
    let started = Instant::now();
    let built = black_box((v.build)(n, vector));
    let took = started.elapsed();
    let peak = status_bytes("VmHWM:");
    let (right, at) = built.check(n);
    (took, peak, right && (!v.in_place || Some(at) == start))
}

fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[v.len() / 2]
}

fn main() -> ExitCode {
    let (mut log2, mut rounds) = (28u32, 5usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next().and_then(|v| v.parse::<usize>().ok());
        match (a.as_str(), value) {
            ("--log2", Some(k)) if (10..=32).contains(&k) => log2 = k as u32,
            ("--rounds", Some(r)) if r >= 1 => rounds = r,
            _ => {
                eprintln!("usage: build_inputs [--log2 K (10..=32)] [--rounds R (1 or more)]");
                return ExitCode::from(2);
            }
        }
    }
    let n = 1usize << log2;
    let bytes = (n * 4) as f64;
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    println!(
        "{n} u32 ({:.2} GiB), {rounds} rounds, {} threads, the process resident at {:.0} MB before; load average {}",
        bytes / (1u64 << 30) as f64,
        rayon::current_num_threads(),
        status_bytes("VmRSS:") as f64 / 1e6,
        load()
    );
    let mut runs: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); VARIANTS.len()];
    let mut wrong = Vec::new();
    for _ in 0..rounds {
        for (k, v) in VARIANTS.iter().enumerate() {
            let (took, peak, ok) = measure(v, n);
            runs[k].push((took, peak));
            if !ok {
                wrong.push(v.name);
            }
        }
    }
    println!("{:<30} {:>11} {:>17} {:>10} {:>8}  what", "constructor", "median", "min..max (ms)", "peak RSS", "/ array");
    for (k, v) in VARIANTS.iter().enumerate() {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let times: Vec<f64> = runs[k].iter().map(|&(t, _)| ms(t)).collect();
        let (lo, hi) = (times.iter().cloned().fold(f64::MAX, f64::min), times.iter().cloned().fold(0.0, f64::max));
        let peak = median(runs[k].iter().map(|&(_, p)| p).collect()) as f64;
        println!("{:<30} {:>8.3} ms {:>8.1}..{:<8.1} {:>7.0} MB {:>7.2}x  {}", v.name, median(times), lo, hi, peak / 1e6, peak / bytes, v.what);
    }
    println!("load average after: {}", load());
    wrong.dedup();
    if wrong.is_empty() {
        println!("OK: every array held what was asked at every index, and each from_vec kept the vector's memory");
        ExitCode::SUCCESS
    } else {
        println!("FAIL: wrong elements, or a copy where none was to be, from {}", wrong.join(", "));
        ExitCode::FAILURE
    }
}
