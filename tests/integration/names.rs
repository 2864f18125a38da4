//! Names Rust accepts that C, C++ or CUDA would read otherwise, in every place a name of the
//! module reaches the generated C: raw identifiers (`r#type`, and `r#printf`, the word itself),
//! non-ASCII names (`länge`, `高さ`), names of C/C++/CUDA keywords, built-ins and macros
//! (`int`, `template`, `threadIdx`, `atomicAdd`, `printf`, `NULL`, `INT_MAX`,
//! `WSDSL_BLOCK_THREADS`), and types named as the host's C library names types once prefixed
//! (`int`, for BSD's `u_int`), as structs, fields, enums, variants, functions, methods,
//! associated consts, generic helpers, locals, parameters, closures' parameters, labels,
//! consts, the params, the counters, the buffers, tasks and handlers, and the module itself.
//! The program computes one value per child task: the CPU backend and the host-compiled
//! templates must both give what plain Rust computes, and NVRTC's front end must accept the
//! kernel. (A type named like a primitive is refused: `tests/ui/primitive_type_name.rs`.)

use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::gpu::{front_end_check_with, KernelConfig};
use wsdsl::prelude::*;
use wsdsl::Program;

#[megakernel]
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
pub mod größen {
    use wsdsl::prelude::*;

    pub const INT_MAX: u32 = 7;
    pub const EOF: u32 = 3;
    pub const WSDSL_BLOCK_THREADS: u32 = 5;
    pub const ÄRGER: u64 = 11;
    pub const r#const: u32 = 2;

    #[params]
    pub struct Konfig {
        pub threadIdx: u32,
        pub größe: u32,
    }

    #[counters]
    pub struct Zähler {
        pub int: Sum<u64>,
        pub r#loop: Sum<u64>,
        pub max: Max<u64>,
        pub 合計: Sum<u64>,
    }

    #[buffers]
    pub struct Puffer {
        pub printf: Buffer<u64>,
        pub NULL: ReadOnly<u32>,
    }

    pub struct r#type {
        pub r#loop: u32,
        pub länge: u32,
        pub int: u32,
        pub char: u32,
        pub template: u32,
        pub namespace: u32,
    }

    pub struct 高さ {
        pub threadIdx: u32,
        pub blockIdx: u32,
        pub r#warpSize: u32,
        pub atomicAdd: u32,
        pub min: u32,
        pub max: u32,
        pub printf: u32,
        pub NULL: u32,
        pub assert: u32,
        pub INT_MAX: u32,
        pub EOF: u32,
        pub WSDSL_BLOCK_THREADS: u32,
    }

    /// Types named as the host's C library names types once prefixed (`u_int`, `u_long`).
    pub struct int {
        pub long: u32,
    }

    pub enum long {
        short,
        int8_t,
    }

    /// An enum with data: its variants are members of a C union.
    pub enum r#match {
        int(u32),
        Größe { ñ: u32, r#type: u32 },
        NULL,
        EOF(u32, u32),
    }

    /// A field-less enum.
    pub enum Farbe {
        Grün,
        NULL,
        EOF,
        int,
    }

    impl r#type {
        pub const 最大: u32 = 9;

        pub fn r#fn(&self, r#in: u32) -> u32 {
            self.r#loop.wrapping_mul(r#in) ^ self.länge.wrapping_add(self.int) ^ self.char ^ self.template ^ self.namespace
        }
    }

    pub trait Maß {
        fn maß(&self) -> u32;
    }

    impl Maß for r#type {
        fn maß(&self) -> u32 {
            self.r#fn(r#type::最大)
        }
    }

    impl Maß for 高さ {
        fn maß(&self) -> u32 {
            let mut größe = self.threadIdx.wrapping_add(self.blockIdx).wrapping_add(self.warpSize);
            größe = größe.wrapping_add(self.atomicAdd).wrapping_add(self.min).wrapping_add(self.max);
            größe = größe.wrapping_add(self.printf).wrapping_add(self.NULL).wrapping_add(self.assert);
            größe.wrapping_add(self.INT_MAX).wrapping_add(self.EOF).wrapping_add(self.WSDSL_BLOCK_THREADS)
        }
    }

    /// A generic helper: one C copy per type it is called with.
    pub fn größte<T: Maß>(a: &T, b: &T) -> u32 {
        max(a.maß(), b.maß())
    }

    pub fn printf(int: u32, char: u32) -> u32 {
        int.wrapping_mul(31) ^ char
    }

    pub fn assert(x: bool) -> u32 {
        if x { 1 } else { 0 }
    }

    pub fn min(a: u32, b: u32) -> u32 {
        if a < b { a } else { b }
    }

    pub fn max(a: u32, b: u32) -> u32 {
        if a > b { a } else { b }
    }

    pub fn atomicAdd(warpSize: u32, blockIdx: u32) -> u32 {
        warpSize.wrapping_mul(3).wrapping_add(blockIdx)
    }

    pub fn r#use(m: r#match) -> u32 {
        match m {
            r#match::int(x) => x,
            r#match::Größe { ñ, r#type } => ñ * 3 + r#type,
            r#match::NULL => 17,
            r#match::EOF(a, b) => a ^ b,
        }
    }

    pub fn farbe(f: Farbe) -> u32 {
        match f {
            Farbe::Grün => 1,
            Farbe::NULL => 2,
            Farbe::EOF => 4,
            Farbe::int => 8,
        }
    }

    /// The root: one child per index, a job over the input, the children's values summed.
    #[task]
    pub struct r#struct {
        pub r#loop: u32,
    }

    #[spawn]
    fn r#while(s: &r#struct, ctx: &mut Ctx) {
        for threadIdx in 0..s.r#loop {
            ctx.spawn(Höhe { threadIdx: threadIdx });
        }
        ctx.reduce_sum(&ctx.buffers.NULL, 0..s.r#loop as usize);
    }

    #[complete(max_children = 64)]
    fn r#else(_s: &r#struct, 子: &[u64], ctx: &mut Ctx) {
        let mut 合計 = 0u64;
        for i in 0..子.len() {
            合計 = 合計.wrapping_add(子[i]);
        }
        ctx.counters.合計.add(合計);
        ctx.counters.r#loop.add(ctx.result(0));
    }

    #[task(value = u64)]
    pub struct Höhe {
        pub threadIdx: u32,
    }

    #[spawn]
    fn r#loop(h: &Höhe, r#mut: &mut Ctx) -> u64 {
        let int = h.threadIdx;
        let r#type = r#type { r#loop: int, länge: int + 1, int: INT_MAX, char: EOF, template: WSDSL_BLOCK_THREADS, namespace: r#const };
        let 高さ = 高さ {
            threadIdx: int,
            blockIdx: r#mut.params.größe,
            warpSize: 32,
            atomicAdd: atomicAdd(int, 3),
            min: min(int, 4),
            max: max(int, 4),
            printf: r#printf(int, 2),
            NULL: assert(int % 2 == 0),
            assert: 1,
            INT_MAX: INT_MAX,
            EOF: EOF,
            WSDSL_BLOCK_THREADS: WSDSL_BLOCK_THREADS,
        };
        let m = match int % 4 {
            0 => r#match::int(int),
            1 => r#match::Größe { ñ: int, r#type: 5 },
            2 => r#match::NULL,
            _ => r#match::EOF(int, 9),
        };
        let f = match int % 4 {
            0 => Farbe::Grün,
            1 => Farbe::NULL,
            2 => Farbe::EOF,
            _ => Farbe::int,
        };
        let breite = int { long: int % 3 };
        let art = if breite.long == 0 { long::short } else { long::int8_t };
        let art = match art {
            long::short => 5u32,
            long::int8_t => 6,
        };
        let größe = größte(&r#type, &r#type).wrapping_add(größte(&高さ, &高さ));
        let ñ: u32 = (0..int % 5).map(|r#in| r#in * 2).sum();
        let mut 合計 = 0u32;
        'außen: for template in 0..3u32 {
            for namespace in 0..3u32 {
                if template + namespace > int % 4 {
                    continue 'außen;
                }
                合計 += template * namespace + 1;
            }
        }
        let NULL = r#mut.buffers.NULL.get(int as usize);
        let v = größe as u64 * 1000 + r#use(m) as u64 + farbe(f) as u64 * 7 + ñ as u64 + 合計 as u64 + NULL as u64 + ÄRGER
            + r#mut.params.threadIdx as u64
            + art as u64 * 3;
        r#mut.buffers.printf.set(int as usize, v);
        r#mut.counters.int.add(1);
        r#mut.counters.max.max(v);
        v
    }
}

use größen::{Kernel, Konfig, Puffer, Zähler};

/// Children of the root.
const N: u32 = 40;
const PARAMS: Konfig = Konfig { threadIdx: 1000, größe: 6 };

fn input() -> Vec<u32> {
    (0..N).map(|i| i * 7 + 1).collect()
}

fn buffers() -> Puffer {
    Puffer { printf: Buffer::zeroed(N as usize), NULL: ReadOnly::from_vec(input()) }
}

fn roots() -> Vec<größen::Task> {
    vec![größen::r#struct { r#loop: N }.into()]
}

/// Child `i`'s value, in plain Rust with plain names.
fn value(i: u32) -> u64 {
    let ty_measure = i.wrapping_mul(9) ^ (i + 1).wrapping_add(7) ^ 3 ^ 5 ^ 2;
    let fields = [i, PARAMS.größe, 32, i.wrapping_mul(3).wrapping_add(3), i.min(4), i.max(4), i.wrapping_mul(31) ^ 2, (i % 2 == 0) as u32, 1, 7, 3, 5];
    let height_measure = fields.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    let size = ty_measure.wrapping_add(height_measure);
    let matched = match i % 4 {
        0 => i,
        1 => i * 3 + 5,
        2 => 17,
        _ => i ^ 9,
    };
    let colour = [1u32, 2, 4, 8][(i % 4) as usize];
    let evens: u32 = (0..i % 5).map(|k| k * 2).sum();
    let mut total = 0u32;
    for a in 0..3u32 {
        for b in 0..3u32 {
            if a + b > i % 4 {
                break;
            }
            total += a * b + 1;
        }
    }
    size as u64 * 1000 + matched as u64 + colour as u64 * 7 + evens as u64 + total as u64 + input()[i as usize] as u64 + 11 + PARAMS.threadIdx as u64
        + if i % 3 == 0 { 5 } else { 6 } * 3
}

/// The counters and the output buffer against [`value`].
fn check(counters: &Zähler, out: &[u64]) {
    let want: Vec<u64> = (0..N).map(value).collect();
    assert_eq!(out, &want[..]);
    assert_eq!(counters.int.get(), N as u64);
    assert_eq!(counters.max.get(), *want.iter().max().unwrap());
    assert_eq!(counters.合計.get(), want.iter().sum::<u64>());
    assert_eq!(counters.r#loop.get(), input().iter().map(|&x| x as u64).sum::<u64>());
    println!("{} children, values summing to {}", N, counters.合計.get());
}

#[test]
fn names_of_every_kind_on_the_cpu_backend() {
    let b = buffers();
    let out = Runtime::new(Backend::Cpu).cpu_threads(2).run_with::<Kernel>(PARAMS, &b, roots()).unwrap_or_else(|e| panic!("{e}"));
    check(&out.counters, &b.printf.to_vec());
}

#[test]
fn names_of_every_kind_on_the_host_compiled_templates() {
    let b = buffers();
    let (counters, _, _) = run_emulated::<Kernel>(&PARAMS, &b, &roots(), &KernelConfig::default(), &Emulation::default()).unwrap_or_else(|e| panic!("{e}"));
    check(&counters, &b.printf.to_vec());
}

#[test]
fn names_of_every_kind_through_the_nvrtc_front_end() {
    front_end_check_with::<Kernel>("sm_90", &Kernel::SCHEDULE.resolve()).unwrap_or_else(|e| panic!("{e}"));
}

/// The same program on the GPU (NVRTC's whole compile, then the run), where there is one.
#[test]
fn names_of_every_kind_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let b = buffers();
    let out = rt.run_with::<Kernel>(PARAMS, &b, roots()).unwrap_or_else(|e| panic!("{e}"));
    check(&out.counters, &b.printf.to_vec());
}
