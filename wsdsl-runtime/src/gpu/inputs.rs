//! What every GPU launch of a program carries, whatever the scheduler: parameters, the user's
//! buffers, the counter slots and the device status record.

use super::workspace::Workspace;
use crate::buffer::BufferSet;
use crate::error::Error;
use crate::program::{CounterSet, Program};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use rayon::prelude::*;
use std::sync::Arc;

/// The program's inputs and outputs in device memory.
pub(crate) struct Inputs {
    params: CudaSlice<u8>,
    /// Which buffers have a device copy of this run's to read back: all but the read-only
    /// arrays, which the workspace keeps, and the scratch buffers. The copies themselves live
    /// in the workspace.
    writable: Vec<bool>,
    buffer_table: CudaSlice<u64>,
    counters: CudaSlice<u64>,
    counter_count: usize,
}

impl Inputs {
    /// Copies parameters and buffers to the device (read-only arrays only if the workspace
    /// does not hold them yet) and sets every counter slot to the identity of its reduction.
    pub fn upload<P: Program>(stream: &Arc<CudaStream>, ws: &mut Workspace, params: &P::Params, buffers: &P::Buffers) -> Result<Self, Error> {
        let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
        P::encode_params(params, &mut param_bytes);
        let params = stream.clone_htod(&param_bytes).map_err(Error::driver("copying the parameters"))?;
        // `struct wsdsl_buffers` lists (pointer, length) per buffer in declaration order.
        let mut writable = Vec::new();
        let mut table = Vec::new();
        for (position, b) in buffers.buffers().into_iter().enumerate() {
            let bytes = b.len() * b.elem_bytes();
            if b.scratch() {
                table.push(ws.traced(|| format!("buffer {position} of `{}` cleared (scratch)", P::NAME), bytes, |ws| ws.scratch(stream, position, bytes))?);
                writable.push(false);
            } else if let Some(array) = b.residency() {
                let uploaded = ws.holds(&array);
                let what = || format!("buffer {position} of `{}` (read-only){}", P::NAME, if uploaded { ", already on the device" } else { " uploaded" });
                table.push(ws.traced(what, bytes, |ws| ws.resident(stream, &array, b))?);
                writable.push(false);
            } else {
                table.push(ws.traced(|| format!("buffer {position} of `{}` uploaded", P::NAME), bytes, |ws| ws.copy_in(stream, position, b))?);
                writable.push(true);
            }
            table.push(b.len() as u64);
        }
        if table.is_empty() {
            table.push(0);
        }
        let buffer_table = stream.clone_htod(&table).map_err(Error::driver("copying the buffer table"))?;
        let init: Vec<u64> = <P::Counters as CounterSet>::SLOTS.iter().map(|s| s.initial_bits()).collect();
        let counter_count = init.len();
        let counters = stream
            .clone_htod(if init.is_empty() { &[0u64][..] } else { &init[..] })
            .map_err(Error::driver("copying the counters"))?;
        ws.moved.uploaded += (param_bytes.len() + 8 * (table.len() + init.len())) as u64;
        Ok(Inputs { params, writable, buffer_table, counters, counter_count })
    }

    pub fn params_ptr(&self, stream: &Arc<CudaStream>) -> u64 {
        ptr(&self.params, stream)
    }

    pub fn buffers_ptr(&self, stream: &Arc<CudaStream>) -> u64 {
        ptr(&self.buffer_table, stream)
    }

    pub fn counters_ptr(&self, stream: &Arc<CudaStream>) -> u64 {
        ptr(&self.counters, stream)
    }

    /// The counters' raw slots, with the host buffers refreshed from the device (read-only
    /// arrays cannot have changed). Decoding the slots is the caller's: a multi-GPU run
    /// merges every GPU's first.
    pub fn read_back<P: Program>(&self, stream: &Arc<CudaStream>, ws: &mut Workspace, buffers: &P::Buffers) -> Result<Vec<u64>, Error> {
        let mut bits = stream.clone_dtoh(&self.counters).map_err(Error::driver("reading the counters"))?;
        bits.truncate(self.counter_count);
        ws.moved.downloaded += 8 * bits.len() as u64;
        for (position, (b, &writable)) in buffers.buffers().into_iter().zip(&self.writable).enumerate() {
            if writable && b.len() > 0 {
                let bytes = b.len() * b.elem_bytes();
                ws.traced(|| format!("buffer {position} of `{}` copied back", P::NAME), bytes, |ws| ws.copy_out(stream, position, b))?;
            }
        }
        Ok(bits)
    }
}

/// The device images of the root tasks, back to back (at least one zeroed record, so the
/// buffer is never empty). In programs with joins, root `i` sends its value to the host's
/// slot `i`.
pub(crate) fn encode_tasks<P: Program>(tasks: &[P::Task]) -> Vec<u8> {
    let mut bytes = vec![0u8; tasks.len().max(1) * P::TASK_BYTES];
    encode_tasks_into::<P>(tasks, 0, &mut bytes);
    bytes
}

/// Writes the device images of `tasks` into `out` (zeroed; as many as it holds), on every
/// core: a graph's roots, one per vertex, are hundreds of megabytes. Task `i` is root
/// `first + i`: in programs with joins, its value goes to the host's slot of that index.
pub(crate) fn encode_tasks_into<P: Program>(tasks: &[P::Task], first: usize, out: &mut [u8]) {
    /// Tasks encoded by one job: enough to dwarf the cost of handing it out.
    const TASKS_PER_JOB: usize = 4096;
    out.par_chunks_mut(P::TASK_BYTES * TASKS_PER_JOB).enumerate().for_each(|(job, images)| {
        let at = job * TASKS_PER_JOB;
        let tasks = tasks.get(at..).unwrap_or_default();
        for (i, (task, image)) in tasks.iter().zip(images.chunks_exact_mut(P::TASK_BYTES)).enumerate() {
            P::encode_task(task, image);
            if P::JOIN.is_some() {
                image[4..8].copy_from_slice(&crate::value::JOIN_ROOT.to_le_bytes());
                image[8..12].copy_from_slice(&((first + at + i) as u32).to_le_bytes());
            }
        }
    });
}

/// Status codes of `struct ws_status_record` (`cuda/status.cuh`).
const STATUS_OVERFLOW: u64 = 1;
const STATUS_FAULT: u64 = 2;
const STATUS_FRAMES: u64 = 4;
const STATUS_CHILDREN: u64 = 5;
const STATUS_PEER: u64 = 6;

/// Words of `struct ws_status_record`: the code and five arguments.
pub(crate) const STATUS_WORDS: usize = 6;

/// The error a status record `[code, arg0, .., arg4]` describes, if any.
pub(crate) fn status_result<P: Program>(w: &[u64], queue: impl Fn(u64) -> String) -> Result<(), Error> {
    let arg = |i: usize| w.get(i).copied().unwrap_or(0);
    match arg(0) {
        0 => Ok(()),
        STATUS_OVERFLOW => Err(Error::QueueOverflow { queue: queue(arg(1)), capacity: arg(3), needed: arg(2) }),
        STATUS_FAULT => Err(Error::DeviceFault {
            site: match P::FAULT_SITES.get(arg(1) as usize) {
                Some(template) => fault_message(template, &[arg(2), arg(3), arg(4), arg(5)]),
                None => format!("fault site {}", arg(1)),
            },
        }),
        STATUS_FRAMES => Err(Error::FramePoolExhausted { capacity: arg(2) }),
        STATUS_PEER => Err(Error::StoppedByPeer),
        STATUS_CHILDREN if arg(3) == 1 => Err(Error::InvalidConfig(format!(
            "a `{}` task spawned more than {} children in one run of a handler, the most a run across GPUs allows \
             (a join counter keeps other GPUs' deliveries in its high half); spawn them over several rounds of the \
             complete handler, or run on one GPU",
            P::TASK_NAMES.get(arg(1) as usize).copied().unwrap_or("?"),
            arg(2)
        ))),
        STATUS_CHILDREN => Err(Error::TooManyChildren {
            task: P::TASK_NAMES.get(arg(1) as usize).copied().unwrap_or("?"),
            max_children: arg(2) as u32,
        }),
        other => Err(Error::Driver { during: "reading the run status", message: format!("unknown status code {other}") }),
    }
}

/// A fault site's message with the values the device reported put in, formatted as Rust
/// formats them (see [`Program::FAULT_SITES`] for the placeholders). Anything that is not a
/// well-formed placeholder is kept as written.
pub(crate) fn fault_message(template: &str, values: &[u64]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let value = tail.strip_prefix('{').and_then(|t| Some((t, t.find('}')?))).and_then(|(t, end)| {
            let (word, kind) = t[..end].split_once(':')?;
            let bits = *values.get(word.parse::<usize>().ok()?)?;
            Some((format_value(bits, kind)?, end + 2))
        });
        match value {
            Some((text, len)) => {
                out.push_str(&text);
                rest = &tail[len..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// One value of a fault message: `kind` is `u`/`i` (an integer zero- or sign-extended to 64
/// bits), `b` (a bool), `f32`/`f64` (the float's bits; `f32?`/`f64?` for `{:?}`), or
/// `e:Name=discriminant,...` (a field-less enum, shown by its variant's name).
fn format_value(bits: u64, kind: &str) -> Option<String> {
    Some(match kind {
        "u" => bits.to_string(),
        "i" => (bits as i64).to_string(),
        "b" => (bits != 0).to_string(),
        "f32" => f32::from_bits(bits as u32).to_string(),
        "f32?" => format!("{:?}", f32::from_bits(bits as u32)),
        "f64" => f64::from_bits(bits).to_string(),
        "f64?" => format!("{:?}", f64::from_bits(bits)),
        _ => {
            let variants = kind.strip_prefix("e:")?;
            let named = variants.split(',').find_map(|v| {
                let (name, d) = v.split_once('=')?;
                (d.parse::<u64>().ok()? == bits).then_some(name)
            });
            named.map_or_else(|| bits.to_string(), str::to_string)
        }
    })
}

/// The device address of a buffer, for launch records.
pub(crate) fn ptr<T>(slice: &CudaSlice<T>, stream: &Arc<CudaStream>) -> u64 {
    let (p, _sync) = slice.device_ptr(stream);
    p
}

#[cfg(test)]
mod tests {
    use super::{encode_tasks, encode_tasks_into, fault_message};
    use crate::gpu::staging::item_pieces;
    use crate::program::{Program, Spawned};
    use crate::value::{JoinLayout, JOIN_ROOT};

    /// A program with joins whose task is one u32: records of a tag, the join frame and slot,
    /// and the value.
    struct Joined;

    impl Program for Joined {
        const NAME: &'static str = "joined";
        const CUDA_TYPES: &'static str = "";
        const CUDA_HANDLERS: &'static str = "";
        const FAULT_SITES: &'static [&'static str] = &[];
        const TASK_NAMES: &'static [&'static str] = &["T"];
        const TASK_BYTES: usize = 16;
        const PARAMS_BYTES: usize = 1;
        const JOIN: Option<JoinLayout> = Some(JoinLayout { frame_bytes: 64, value_bytes: 0 });
        type Params = ();
        type Task = u32;
        type Counters = ();
        type Buffers = ();
        type Value = ();
        fn encode_task(task: &u32, out: &mut [u8]) {
            out[12..16].copy_from_slice(&task.to_le_bytes());
        }
        fn encode_params(_: &(), _: &mut [u8]) {}
        fn execute(_: &u32, _: &(), _: &(), _: &mut (), _: &mut Spawned<u32>) {}
    }

    #[test]
    fn roots_encoded_piece_by_piece_are_the_roots_encoded_whole() {
        // More roots than one encoding job holds, in pieces that do not divide evenly.
        let roots: Vec<u32> = (0..10_000).map(|i| i * 7 + 1).collect();
        let whole = encode_tasks::<Joined>(&roots);
        let mut pieces = vec![0u8; whole.len()];
        for bytes in item_pieces(roots.len(), 16, 1000).unwrap() {
            let first = bytes.start / 16;
            encode_tasks_into::<Joined>(&roots[first..], first, &mut pieces[bytes]);
        }
        assert!(pieces == whole, "the same images wherever the pieces begin");
        let record = |i: usize| &whole[16 * i..16 * (i + 1)];
        assert_eq!(record(9_999)[4..8], JOIN_ROOT.to_le_bytes(), "a root's value goes to the host");
        assert_eq!(record(9_999)[8..12], 9_999u32.to_le_bytes(), "root i sends its value to slot i");
        assert_eq!(record(9_999)[12..16], roots[9_999].to_le_bytes());
        assert_eq!(encode_tasks::<Joined>(&[]), vec![0u8; 16], "no roots: one zeroed record");
    }

    #[test]
    fn fault_messages_format_values_as_rust_does() {
        let v = [3, (-5i64) as u64, 1.0f64.to_bits(), 1.5f32.to_bits() as u64];
        assert_eq!(
            fault_message("a.rs:1: the len is {0:u} but {1:i}; {2:f64} {2:f64?} {3:f32?} {{x}}", &v),
            "a.rs:1: the len is 3 but -5; 1 1.0 1.5 {x}"
        );
        assert_eq!(fault_message("{0:b} {1:b} {0:e:Small=0,Big=3}", &[3, 0]), "true false Big");
        assert_eq!(fault_message("{0:e:Small=0} {9:u} {0:zz} {0 } }", &[7]), "7 {9:u} {0:zz} {0 } }");
        assert_eq!(fault_message("{", &[]), "{");
    }
}
