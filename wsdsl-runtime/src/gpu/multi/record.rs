//! What travels between the processes of a multi-GPU run, as bytes: each GPU's proposal for
//! the run's shape before the launch, its votes, its result after it, and the coordinator's
//! bundle of every GPU's message. Little-endian u64 words; byte strings after their length.

use super::merge::{PeError, PeResult, PeShare};
use crate::contract::{CounterSet, Program};
use crate::stats::{Phases, Stats, Transfers};
use std::time::Duration;

/// Builds a message word by word.
#[derive(Default)]
pub(crate) struct Writer(Vec<u8>);

impl Writer {
    pub fn word(&mut self, w: u64) -> &mut Self {
        self.0.extend_from_slice(&w.to_le_bytes());
        self
    }
    pub fn words(&mut self, ws: &[u64]) -> &mut Self {
        self.word(ws.len() as u64);
        for &w in ws {
            self.word(w);
        }
        self
    }
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.word(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }
}

/// Reads a message back; a short or malformed message is an error, never a panic.
pub(crate) struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader(bytes)
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err(format!("a message from another GPU's process ended early ({} bytes left, {n} needed)", self.0.len()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    pub fn word(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    pub fn words(&mut self) -> Result<Vec<u64>, String> {
        let n = self.word()? as usize;
        if n > self.0.len() / 8 {
            return Err(format!("a message from another GPU's process claims {n} words but holds {}", self.0.len() / 8));
        }
        (0..n).map(|_| self.word()).collect()
    }
    pub fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.word()?;
        self.take(usize::try_from(n).unwrap_or(usize::MAX))
    }
    pub fn text(&mut self) -> Result<String, String> {
        Ok(String::from_utf8_lossy(self.bytes()?).into_owned())
    }
    /// Whether the whole message was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

const OK: u64 = 0;
const PEER: u64 = 1;
const FAILED: u64 = 2;
const TIMED_OUT: u64 = 3;
const STUCK: u64 = 4;
const NONE: u64 = u64::MAX;

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128 - 1) as u64
}

/// One GPU's result: its counters' raw slots (decoded by whoever merges), its roots' values
/// and statistics.
pub(crate) fn encode_result(result: &Result<PeShare, PeError>) -> Vec<u8> {
    let mut w = Writer::default();
    match result {
        Err(PeError::StoppedByPeer) => w.word(PEER),
        Err(PeError::Failed(m)) => w.word(FAILED).text(m),
        Err(PeError::TimedOut(m)) => w.word(TIMED_OUT).text(m),
        Err(PeError::Stuck(m)) => w.word(STUCK).text(m),
        Ok(PeShare { counter_slots, root_values, stats: s }) => {
            let p = &s.phases;
            w.word(OK).words(counter_slots).bytes(root_values);
            w.words(&[s.tasks, s.completions, s.steal_attempts, s.steals, s.remote_steals, s.peak_queue, s.queue_capacity, s.peak_frames, s.sent_home]);
            w.words(&[nanos(p.context), nanos(p.compile), p.cache_hit as u64, nanos(p.launch), nanos(p.run), nanos(p.copy_back), p.since_process_start.map_or(NONE, nanos)]);
            w.words(&[p.transfers.uploaded, p.transfers.cleared, p.transfers.downloaded]);
            w.words(&s.per_worker_tasks).words(&s.per_worker_steals).words(&s.per_worker_peak);
            w.words(&s.profile.as_ref().map_or(Vec::new(), |p| p.words().to_vec()))
        }
    };
    w.finish()
}

/// [`encode_result`] read back, the counters decoded for `P`.
pub(crate) fn decode_result<P: Program>(bytes: &[u8]) -> Result<Result<PeResult<P::Counters>, PeError>, String> {
    let mut r = Reader::new(bytes);
    match r.word()? {
        PEER => Ok(Err(PeError::StoppedByPeer)),
        FAILED => Ok(Err(PeError::Failed(r.text()?))),
        TIMED_OUT => Ok(Err(PeError::TimedOut(r.text()?))),
        STUCK => Ok(Err(PeError::Stuck(r.text()?))),
        OK => {
            let slots = r.words()?;
            if slots.len() != P::Counters::SLOTS.len() {
                return Err(format!("another GPU sent {} counters for `{}`, which has {}", slots.len(), P::NAME, P::Counters::SLOTS.len()));
            }
            let root_values = r.bytes()?.to_vec();
            let c = r.words()?;
            let p = r.words()?;
            let moved = r.words()?;
            if c.len() != 9 || p.len() != 7 || moved.len() != 3 {
                return Err("another GPU's statistics are malformed".into());
            }
            let d = Duration::from_nanos;
            let phases = Phases {
                context: d(p[0]),
                compile: d(p[1]),
                cache_hit: p[2] != 0,
                launch: d(p[3]),
                run: d(p[4]),
                copy_back: d(p[5]),
                since_process_start: (p[6] != NONE).then(|| d(p[6])),
                call: Duration::ZERO, // a peer's process has no run call of its own
                inputs_built: Duration::ZERO, // counted by the process whose call it is
                transfers: Transfers { uploaded: moved[0], cleared: moved[1], downloaded: moved[2] },
            };
            let stats = Stats {
                tasks: c[0],
                completions: c[1],
                steal_attempts: c[2],
                steals: c[3],
                remote_steals: c[4],
                peak_queue: c[5],
                queue_capacity: c[6],
                peak_frames: c[7],
                sent_home: c[8],
                phases,
                per_worker_tasks: r.words()?,
                per_worker_steals: r.words()?,
                per_worker_peak: r.words()?,
                ..Stats::default()
            };
            let profile = r.words()?;
            let mut stats = stats;
            if !profile.is_empty() {
                stats.profile.get_or_insert_with(Default::default).add_worker(&profile);
            }
            Ok(Ok(PeResult { counters: P::Counters::from_slots(&slots), root_values, stats }))
        }
        other => Err(format!("another GPU's result has an unknown kind {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_texts_survive_and_short_messages_are_errors() {
        let bytes = Writer::default().word(7).words(&[1, 2, 3]).text("GPU 1: fault").finish();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.word(), Ok(7));
        assert_eq!(r.words(), Ok(vec![1, 2, 3]));
        assert_eq!(r.text().as_deref(), Ok("GPU 1: fault"));
        assert!(r.word().is_err());
        let bundle = Writer::default().bytes(&[1, 2, 3]).bytes(&[]).finish();
        let mut r = Reader::new(&bundle);
        assert_eq!(r.bytes(), Ok(&[1u8, 2, 3][..]));
        assert_eq!(r.bytes(), Ok(&[][..]));
        assert!(r.is_empty());
        let lying = Writer::default().word(1 << 40).finish();
        assert!(Reader::new(&lying).words().is_err(), "a huge length must not allocate or panic");
        assert!(Reader::new(&lying).bytes().is_err(), "nor as a byte string");
    }
}
