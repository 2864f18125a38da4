//! Complete handlers on the CPU backend: a task that spawned children waits in a frame with
//! a join counter; the last child to finish runs the parent's complete handler, on its own
//! thread, and carries the parent's value on up (iteratively, so deep trees need no stack).
//! A complete handler that spawns makes its task wait again, in a new frame one round on.

use crate::program::Program;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Where a task's value goes when it is done.
pub(crate) enum Link<P: Program> {
    /// Nowhere: the task was spawned by a task without a complete handler.
    Detached,
    /// To the host, as the value of root number `i`.
    Root(usize),
    /// Into slot `i` of the parent's frame.
    Parent(Arc<Frame<P>>, u32),
}

impl<P: Program> Clone for Link<P> {
    fn clone(&self) -> Self {
        match self {
            Link::Detached => Link::Detached,
            Link::Root(i) => Link::Root(*i),
            Link::Parent(f, i) => Link::Parent(Arc::clone(f), *i),
        }
    }
}

/// A task waiting for its children.
pub(crate) struct Frame<P: Program> {
    task: P::Task,
    link: Link<P>,
    /// The run of the complete handler that the children's completion starts (1 the first).
    round: u32,
    /// Children not yet done.
    pending: AtomicUsize,
    /// The children's values in spawn order (empty when the complete handler takes none).
    values: Box<[OnceLock<P::Value>]>,
}

/// A queued task and where its value goes.
pub(crate) struct Job<P: Program> {
    pub task: P::Task,
    pub link: Link<P>,
}

/// What the runtime needs to finish tasks: the run's inputs and the roots' values.
pub(crate) struct Finisher<'a, P: Program> {
    pub params: &'a P::Params,
    pub buffers: &'a P::Buffers,
    pub root_values: Vec<OnceLock<P::Value>>,
    /// Frames alive now and at most, for the statistics.
    pub live_frames: AtomicUsize,
    pub peak_frames: AtomicUsize,
    /// Complete handlers run.
    pub completions: AtomicU64,
}

impl<P: Program> Finisher<'_, P> {
    /// After `job`'s spawn handler returned `value` and spawned `children`: queues the
    /// children (through `push`), linked to a new frame when the task has a complete
    /// handler, or finishes the task. `Err(max)`: more children than `max_children`.
    pub fn after_spawn(
        &self,
        job: Job<P>,
        value: P::Value,
        children: &mut Vec<P::Task>,
        counters: &mut P::Counters,
        mut push: impl FnMut(Job<P>),
    ) -> Result<(), u32> {
        match self.wait(job.task, job.link, value, children, 1, &mut push)? {
            Some((link, value)) => self.finish(link, value, counters, &mut push),
            None => Ok(()),
        }
    }

    /// Queues `children` of `task`, linked to a new frame whose complete handler runs for the
    /// `round`-th time when they are done. With no children to wait for, the task is done:
    /// returns where its `value` goes.
    fn wait(
        &self,
        task: P::Task,
        link: Link<P>,
        value: P::Value,
        children: &mut Vec<P::Task>,
        round: u32,
        push: &mut impl FnMut(Job<P>),
    ) -> Result<Option<(Link<P>, P::Value)>, u32> {
        let Some(max) = P::complete_of(&task).filter(|_| !children.is_empty()) else {
            for task in children.drain(..) {
                push(Job { task, link: Link::Detached });
            }
            return Ok(Some((link, value)));
        };
        if children.len() > max as usize {
            return Err(max);
        }
        let keeps_values = max != u32::MAX;
        let frame = Arc::new(Frame {
            task,
            link,
            round,
            pending: AtomicUsize::new(children.len()),
            values: (0..if keeps_values { children.len() } else { 0 }).map(|_| OnceLock::new()).collect(),
        });
        let live = self.live_frames.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak_frames.fetch_max(live, Ordering::Relaxed);
        for (i, task) in children.drain(..).enumerate() {
            push(Job { task, link: Link::Parent(Arc::clone(&frame), i as u32) });
        }
        Ok(None)
    }

    /// Hands `value` to `link`; whoever delivers a frame's last value runs its complete
    /// handler, and goes on with the frame's own link unless the handler spawned.
    pub fn finish(
        &self,
        mut link: Link<P>,
        mut value: P::Value,
        counters: &mut P::Counters,
        push: &mut impl FnMut(Job<P>),
    ) -> Result<(), u32> {
        let mut spawned = Vec::new();
        loop {
            match link {
                Link::Detached => return Ok(()),
                Link::Root(i) => {
                    let _ = self.root_values[i].set(value);
                    return Ok(());
                }
                Link::Parent(frame, slot) => {
                    if let Some(cell) = frame.values.get(slot as usize) {
                        let _ = cell.set(value);
                    }
                    // AcqRel: our value is published to, and every sibling's is visible to,
                    // whoever brings the count to zero.
                    if frame.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
                        return Ok(());
                    }
                    self.live_frames.fetch_sub(1, Ordering::Relaxed);
                    let values: Vec<P::Value> =
                        frame.values.iter().map(|c| *c.get().expect("every child delivered its value")).collect();
                    spawned.clear();
                    self.completions.fetch_add(1, Ordering::Relaxed);
                    value = P::complete(&frame.task, &values, frame.round, self.params, self.buffers, counters, &mut |c| {
                        spawned.push(c)
                    });
                    match self.wait(frame.task, frame.link.clone(), value, &mut spawned, frame.round + 1, push)? {
                        Some((up, v)) => (link, value) = (up, v),
                        None => return Ok(()),
                    }
                }
            }
        }
    }
}
