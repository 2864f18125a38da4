//! The device images of tasks: what a launch record's roots are, byte for byte, on a GPU and
//! on the host-compiled templates alike.

use crate::contract::Program;
use rayon::prelude::*;

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
                image[4..8].copy_from_slice(&crate::contract::value::JOIN_ROOT.to_le_bytes());
                image[8..12].copy_from_slice(&((first + at + i) as u32).to_le_bytes());
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{encode_tasks, encode_tasks_into};
    use crate::gpu::device::staging::item_pieces;
    use crate::contract::{Program, Spawned};
    use crate::contract::value::{JoinLayout, JOIN_ROOT};

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
}
