//! The stack of each emulated GPU thread (a fiber, `cuda/host/emulation.h`), sized per kernel.
//!
//! Code without recursion runs in [`FIBER_STACK`]: its call chains are bounded, and that
//! stack holds them and several copies of the largest task (`MAX_TASK_BYTES`). A recursion
//! is bounded by its program's `recursion_limit` alone: a call chain holds at most `limit`
//! active calls of each cycle of recursive functions (a chain that left a cycle cannot come
//! back into it), so the fibers get `FIBER_STACK` plus, for each cycle, `limit` times the
//! largest frame of its functions, as the host compiler recorded them (`-fstack-usage`: each
//! function's frame with its saved registers and return address, whatever it inlined). A stack
//! that would exceed [`MAX_FIBER_STACK`] is refused before the launch, naming the helper,
//! its frame, the limit and the stack it would need; a fiber that overflows all the same (a
//! frame the compiler did not record) faults in the guard below its stack, which is reported
//! naming the program.

use super::FIBER_STACK;
use crate::contract::recursion::Recursion;
use crate::error::Error;

/// The largest stack an emulated GPU thread is given: address space, of which only the pages
/// a recursion touches become memory, for each of the emulated grid's threads.
pub const MAX_FIBER_STACK: usize = 64 << 20;

/// The frame assumed for a recursive function the compiler recorded none for (a compiler
/// without `-fstack-usage`, or a frame of a size known only at run time).
const UNKNOWN_FRAME: u64 = 4096;

/// The frame of each recursive function (its CUDA name) that the compiler recorded: bytes a
/// call, or `None` for a frame whose size it knows only at run time. A function it did not
/// record was inlined into the function that calls it.
pub(crate) type Frames = Vec<(String, Option<u64>)>;

/// The frames of `recursion`'s functions in `stack_usage`, the `.su` files of a build: lines
/// `file:line:column:signature<TAB>bytes<TAB>static|dynamic|dynamic,bounded`. A function's
/// frame is the sum of the lines of its name: its clones (`f.part.0`, `f.constprop.0`) and
/// the lambdas inside it (`f(...)::<lambda()>`) may each stand in a call of it.
pub(crate) fn frames_of(stack_usage: &str, recursion: &Recursion) -> Frames {
    let mut frames: Frames = Vec::new();
    for line in stack_usage.lines() {
        let Some((name, bytes)) = su_line(line) else { continue };
        let Some(f) = recursion.functions.iter().find(|f| f.symbol == name) else { continue };
        match frames.iter_mut().find(|(s, _)| s == f.symbol) {
            Some((_, total)) => *total = total.zip(bytes).map(|(a, b)| a + b),
            None => frames.push((f.symbol.to_string(), bytes)),
        }
    }
    frames
}

/// The function's name and frame of one `.su` line (`None` bytes: dynamic, unbounded).
fn su_line(line: &str) -> Option<(&str, Option<u64>)> {
    let mut fields = line.split('\t');
    let (place, bytes, kind) = (fields.next()?, fields.next()?, fields.next()?);
    let signature = place.splitn(4, ':').nth(3)?;
    let head = &signature[..signature.find('(').unwrap_or(signature.len())];
    let name = head.rsplit(|c: char| c.is_whitespace() || c == '*' || c == '&' || c == ':').next()?;
    let name = name.split('.').next()?;
    let bytes: u64 = bytes.trim().parse().ok()?;
    let bounded = kind.trim() == "static" || kind.contains("bounded");
    Some((name, bounded.then_some(bytes)))
}

/// `frames` as the text kept beside the cached library: a line `symbol bytes` (or `symbol ?`)
/// each.
pub(crate) fn encode(frames: &Frames) -> String {
    frames.iter().map(|(s, b)| format!("{s} {}\n", b.map_or("?".to_string(), |b| b.to_string()))).collect()
}

/// The frames [`encode`] wrote, or `None` if `text` is not such a record.
pub(crate) fn decode(text: &str) -> Option<Frames> {
    text.lines()
        .map(|l| {
            let (s, b) = l.split_once(' ')?;
            Some((s.to_string(), if b == "?" { None } else { Some(b.parse().ok()?) }))
        })
        .collect()
}

/// The stack each emulated GPU thread of `program` needs, given its recursion and the frames
/// the compiler recorded (`None`: it recorded none); an error naming the helper if that is
/// more than [`MAX_FIBER_STACK`].
pub(crate) fn fiber_stack(program: &str, recursion: Option<&Recursion>, frames: Option<&Frames>) -> Result<usize, Error> {
    let Some(r) = recursion else { return Ok(FIBER_STACK) };
    // For each cycle: its largest frame, and the function that has it.
    let cycles: Vec<(&str, u64)> = (0..r.cycles)
        .map(|cycle| {
            let recorded = |symbol: &str| frames.and_then(|f| f.iter().find(|(s, _)| s == symbol)).map(|(_, b)| b.unwrap_or(UNKNOWN_FRAME));
            let largest = r.cycle(cycle).filter_map(|f| Some((f.name, recorded(f.symbol)?))).max_by_key(|&(_, b)| b);
            // None recorded: all inlined into a caller outside the cycle, which cannot be, or no record at all.
            largest.unwrap_or_else(|| (r.cycle(cycle).next().map_or("?", |f| f.name), UNKNOWN_FRAME))
        })
        .collect();
    let per_limit: u64 = cycles.iter().map(|&(_, b)| b).sum();
    let needed = FIBER_STACK as u64 + r.limit as u64 * per_limit;
    if needed <= MAX_FIBER_STACK as u64 {
        return Ok(needed.next_multiple_of(4096) as usize);
    }
    let &(name, frame) = cycles.iter().max_by_key(|&&(_, b)| b).expect("a program with recursion has a cycle");
    let others = match cycles.len() - 1 {
        0 => String::new(),
        1 => " (as many calls of another cycle of recursive functions too)".to_string(),
        n => format!(" (as many calls of {n} other cycles of recursive functions too)"),
    };
    let fits = (MAX_FIBER_STACK as u64 - FIBER_STACK as u64) / per_limit.max(1);
    Err(Error::InvalidConfig(format!(
        "recursion in `{name}` may go recursion_limit = {} calls deep, at {frame} bytes a call{others}: each emulated GPU thread of \
         `{program}` would need a stack of {}, more than the emulation's {} MiB; lower #[megakernel(recursion_limit = N)] \
         (to at most {fits} here) or make the helper's frame smaller (a large array in a #[buffers] array)",
        r.limit,
        bytes_text(needed),
        MAX_FIBER_STACK >> 20,
    )))
}

/// `bytes` in MiB or GiB.
fn bytes_text(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::recursion::RecursiveFn;

    const FUNCTIONS: &[RecursiveFn] = &[
        RecursiveFn { name: "deep", symbol: "f_deep", cycle: 0 },
        RecursiveFn { name: "even", symbol: "f_even", cycle: 1 },
        RecursiveFn { name: "odd", symbol: "f_odd", cycle: 1 },
    ];

    /// GCC 12's `-fstack-usage` of a build: `f_even` inlined into `f_odd`, a lambda inside
    /// `f_deep`, a clone of it.
    const SU: &str = "<stdin>:3:41:ws_u32 f_deep(ws_u32, ws_u32, ws_u32, bool*)\t4128\tstatic\n\
                      <stdin>:9:15:ws_u32 f_deep(ws_u32, ws_u32, ws_u32, bool*)::<lambda(int)>\t32\tstatic\n\
                      <stdin>:9:15:ws_u32 f_deep.part.0(ws_u32)\t16\tstatic\n\
                      <stdin>:11:13:bool f_odd(ws_u32, ws_u32)\t48\tstatic\n\
                      <stdin>:13:19:ws_u32 go(ws_u32)\t48000\tstatic\n\
                      <stdin>:1:1:void ws_emu_run<K>(unsigned int, K) [with K = wsdsl_launch(const ws_launch*)::<lambda()>]\t160\tstatic\n";

    #[test]
    fn frames_are_read_by_function_with_their_clones_and_lambdas() {
        let r = Recursion { limit: 10, cycles: 2, functions: FUNCTIONS };
        let frames = frames_of(SU, &r);
        assert_eq!(frames, vec![("f_deep".to_string(), Some(4176)), ("f_odd".to_string(), Some(48))]);
        assert_eq!(decode(&encode(&frames)), Some(frames));
        assert_eq!(su_line("x.c:1:2:void f_v(int)\t64\tdynamic"), Some(("f_v", None)));
        assert_eq!(su_line("x.c:1:2:void f_v(int)\t64\tdynamic,bounded"), Some(("f_v", Some(64))));
    }

    #[test]
    fn the_stack_holds_limit_frames_of_each_cycle_or_is_refused_naming_the_helper() {
        let r = Recursion { limit: 100, cycles: 2, functions: FUNCTIONS };
        let frames = frames_of(SU, &r);
        assert_eq!(fiber_stack("p", None, None).unwrap(), FIBER_STACK);
        let want = (FIBER_STACK as u64 + 100 * (4176 + 48)).next_multiple_of(4096) as usize;
        assert_eq!(fiber_stack("p", Some(&r), Some(&frames)).unwrap(), want);
        // No record: the assumed frame.
        let unknown = (FIBER_STACK as u64 + 100 * 2 * UNKNOWN_FRAME).next_multiple_of(4096) as usize;
        assert_eq!(fiber_stack("p", Some(&r), None).unwrap(), unknown);
        let deep = Recursion { limit: 1_000_000, ..r };
        let e = fiber_stack("p", Some(&deep), Some(&frames)).unwrap_err().to_string();
        for part in ["`deep`", "recursion_limit = 1000000", "4176 bytes a call", "(as many calls of another cycle", "`p`", "3.9 GiB", "64 MiB", "at most 15825"] {
            assert!(e.contains(part), "{part:?} in {e}");
        }
    }
}
