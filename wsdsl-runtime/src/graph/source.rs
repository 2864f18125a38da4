//! Reading a graph file as numbered lines of whitespace-separated fields.
//!
//! The file is opened once; gzip is recognised by its magic bytes (`1f 8b`), not by the
//! name, so a `.gz` that is not compressed, or compressed data without the suffix, both
//! read correctly. A reader thread reads (and decompresses) blocks ahead while the caller
//! parses, so decompression and parsing overlap instead of taking turns. Lines come out of
//! one reusable buffer as byte slices, so reading a multi-gigabyte edge list allocates
//! nothing per line; the parsers read numbers byte by byte ([`unsigned_fields`] for the
//! common all-numbers line, [`parse_u64`] per field for the rest) instead of through
//! `str::parse`.
//!
//! Large files (over [`BAR_ABOVE`] bytes on disk) show a progress bar by bytes read from
//! disk (compressed bytes for gzip, so the bar reaches the end exactly) when standard
//! error is a terminal.

use super::error::{quote, GraphError};
use flate2::bufread::MultiGzDecoder;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender};

/// Files larger than this on disk show a progress bar.
pub(crate) const BAR_ABOVE: u64 = 32 << 20;
/// The reader thread hands over blocks of this many (decompressed) bytes.
const BLOCK: usize = 4 << 20;
/// Blocks read ahead of the parser.
const AHEAD: usize = 3;
/// A "line" longer than this is not text: refuse rather than read a binary file into memory.
const MAX_LINE: usize = 64 << 20;
/// After a parse error in a gzip file, this much more is decoded to look for corruption.
const CHECK_AFTER_ERROR: u64 = 256 << 20;
/// The two bytes every gzip member starts with (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// What the reader thread sends: a block of the file, or why it stopped early. It
/// stops without a word (the channel closes) at the end of the file.
type Block = io::Result<Vec<u8>>;

/// An open graph file, read line by line.
pub(crate) struct Source {
    path: PathBuf,
    gzip: bool,
    blocks: Receiver<Block>,
    /// Emptied blocks go back to the reader thread to be filled again.
    spare: SyncSender<Vec<u8>>,
    /// `buf[start..end]` is read but not yet returned.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// The number of the line last returned (1-based; 0 before the first).
    line: u64,
    bar: Option<ProgressBar>,
}

impl Source {
    /// Opens `path`, looking at its first bytes to decide whether it is gzip, and starts
    /// the reader thread.
    pub(crate) fn open(path: &Path, quiet: bool) -> Result<Source, GraphError> {
        let file =
            File::open(path).map_err(|e| GraphError::in_file(path, format!("cannot open the graph file: {e}")))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let bar = (!quiet && size > BAR_ABOVE && io::stderr().is_terminal()).then(|| bytes_bar(path, size));
        let mut disk = BufReader::with_capacity(1 << 20, Counted { inner: file, bar: bar.clone() });
        let head =
            disk.fill_buf().map_err(|e| GraphError::in_file(path, format!("cannot read the graph file: {e}")))?;
        let gzip = head.starts_with(&GZIP_MAGIC);
        // `MultiGzDecoder`: `cat a.gz b.gz` is a valid gzip file, as `gzip -d` agrees.
        let reader: Box<dyn Read + Send> = if gzip { Box::new(MultiGzDecoder::new(disk)) } else { Box::new(disk) };
        let (block_tx, blocks) = mpsc::sync_channel(AHEAD);
        let (spare, spare_rx) = mpsc::sync_channel(AHEAD + 2);
        std::thread::Builder::new()
            .name("wsdsl-graph-reader".into())
            .spawn(move || read_ahead(reader, block_tx, spare_rx))
            .map_err(|e| GraphError::in_file(path, format!("cannot start the reader thread: {e}")))?;
        Ok(Source {
            path: path.to_path_buf(),
            gzip,
            blocks,
            spare,
            buf: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            line: 0,
            bar,
        })
    }

    /// The next line without its end (`\n` or `\r\n`), or `None` at the end of the file.
    #[inline]
    pub(crate) fn next_line(&mut self) -> Result<Option<&[u8]>, GraphError> {
        loop {
            let newline = find_newline(&self.buf[self.start..self.end]);
            let (from, to) = match newline {
                Some(i) => (self.start, self.start + i),
                None if self.eof && self.start < self.end => (self.start, self.end),
                None if self.eof => return Ok(None),
                None => {
                    self.refill()?;
                    continue;
                }
            };
            self.start = (to + 1).min(self.end);
            self.line += 1;
            let line = &self.buf[from..to];
            return Ok(Some(line.strip_suffix(b"\r").unwrap_or(line)));
        }
    }

    /// Moves the unread bytes (a partial line) to the front and appends the next block.
    fn refill(&mut self) -> Result<(), GraphError> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end > MAX_LINE {
            return Err(self.at_line_being_read(format!(
                "this line is longer than {} MiB: is this a text graph file?",
                MAX_LINE >> 20
            )));
        }
        match self.blocks.recv() {
            Ok(Ok(block)) => {
                self.buf.truncate(self.end);
                self.buf.extend_from_slice(&block);
                self.end = self.buf.len();
                let _ = self.spare.try_send(block);
                Ok(())
            }
            Ok(Err(e)) => {
                self.eof = true;
                let what =
                    if self.gzip { "the gzip stream is corrupt or truncated" } else { "the file could not be read" };
                Err(self.at_line_being_read(match self.line {
                    0 => format!("{what} ({e}); not even the first line could be read"),
                    n => format!("{what} ({e}); the last complete line was line {n}"),
                }))
            }
            Err(mpsc::RecvError) => {
                self.eof = true;
                Ok(())
            }
        }
    }

    /// The file being read.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The number of the line last returned: where the file ended, once `next_line` has
    /// returned `None`.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// A problem on the line last returned.
    ///
    /// In a gzip file the real cause may be further on: damaged deflate data often still
    /// decodes, into garbage that fails to parse well before the checksum at the end of
    /// the stream would catch it. So the rest of the stream (up to [`CHECK_AFTER_ERROR`]
    /// bytes) is decoded first, and a corrupt stream is reported as such.
    pub(crate) fn here(&mut self, problem: impl Into<String>) -> GraphError {
        let problem = problem.into();
        if self.gzip && !self.eof {
            self.eof = true;
            let mut left = CHECK_AFTER_ERROR;
            while left > 0 {
                match self.blocks.recv() {
                    Ok(Ok(block)) => left = left.saturating_sub(block.len() as u64),
                    Ok(Err(e)) => {
                        return GraphError::at_line(
                            &self.path,
                            self.line.max(1),
                            format!(
                                "the gzip stream is corrupt ({e}), which is probably why this line reads as: {problem}"
                            ),
                        )
                    }
                    Err(mpsc::RecvError) => break,
                }
            }
        }
        GraphError::at_line(&self.path, self.line.max(1), problem)
    }

    /// A problem with the line after the last one returned, the one being read.
    fn at_line_being_read(&self, problem: String) -> GraphError {
        GraphError::at_line(&self.path, self.line + 1, problem)
    }

    /// A problem found at the end of the file: on its last line, or the file as a whole
    /// when it has no lines at all.
    pub(crate) fn at_end(&self, problem: impl Into<String>) -> GraphError {
        match self.line {
            0 => GraphError::in_file(&self.path, problem),
            line => GraphError::at_line(&self.path, line, problem),
        }
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        // Dropping `blocks` ends the reader thread at its next send.
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The reader thread: fills blocks (reusing the spare ones) until the end of the file, an
/// error, or the `Source` going away.
fn read_ahead(reader: Box<dyn Read + Send>, blocks: SyncSender<Block>, spare: Receiver<Vec<u8>>) {
    let mut reader = reader.take(0);
    loop {
        let mut block = spare.try_recv().unwrap_or_else(|_| Vec::with_capacity(BLOCK));
        block.clear();
        reader.set_limit(BLOCK as u64);
        match reader.read_to_end(&mut block) {
            Ok(0) => return,
            Ok(_) => {
                if blocks.send(Ok(block)).is_err() {
                    return;
                }
            }
            Err(e) => {
                // What was read before the error is good data: the parser gets it first,
                // so the error names the line where the damage is.
                if !block.is_empty() && blocks.send(Ok(block)).is_err() {
                    return;
                }
                let _ = blocks.send(Err(e));
                return;
            }
        }
    }
}

/// The index of the first `\n`, eight bytes at a time: a byte of `x = word ^ 0x0a..0a` is
/// zero where the word has a newline, and `(x - 0x01..01) & !x & 0x80..80` sets the top
/// bit of the first zero byte (bits above it may be set spuriously, never below).
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ (ONES * u64::from(b'\n'));
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words.remainder().iter().position(|&b| b == b'\n').map(|i| at + i)
}

/// The file under the decoder, counting bytes for the progress bar.
struct Counted {
    inner: File,
    bar: Option<ProgressBar>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}

fn bytes_bar(path: &Path, size: u64) -> ProgressBar {
    // Hidden until styled, so the first frame drawn is complete.
    let bar = ProgressBar::hidden();
    bar.set_length(size);
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    bar.set_prefix(format!("reading {name}"));
    bar.set_draw_target(ProgressDrawTarget::stderr());
    bar
}

/// The whitespace-separated fields of a line.
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    pub(crate) fn new(line: &'a [u8]) -> Fields<'a> {
        Fields { rest: line }
    }

    /// What is left of the line after the fields taken so far.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|b| !b.is_ascii_whitespace())?;
        let rest = &self.rest[start..];
        let len = rest.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(rest.len());
        self.rest = &rest[len..];
        Some(&rest[..len])
    }
}

/// The first non-blank byte of a line, if any: tells comments and blank lines apart
/// without splitting the line.
#[inline]
pub(crate) fn first_byte(line: &[u8]) -> Option<u8> {
    line.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// The common line, all unsigned integers separated by spaces or tabs, in one pass: the
/// count of numbers (up to `out.len()`) written to `out`, or `None` for anything else
/// (another character, a longer number, more numbers), which the caller then parses
/// field by field to say exactly what is wrong. Numbers of up to 19 digits cannot overflow.
#[inline]
pub(crate) fn unsigned_fields(line: &[u8], out: &mut [u64]) -> Option<usize> {
    let (mut i, mut n) = (0, 0);
    loop {
        while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        if i == line.len() {
            return Some(n);
        }
        let slot = out.get_mut(n)?;
        let (first, mut value) = (i, 0u64);
        while let Some(digit) = line.get(i).map(|b| b.wrapping_sub(b'0')).filter(|&d| d <= 9) {
            if i - first == 19 {
                return None;
            }
            value = value * 10 + u64::from(digit);
            i += 1;
        }
        if i == first || (i < line.len() && line[i] != b' ' && line[i] != b'\t') {
            return None;
        }
        *slot = value;
        n += 1;
    }
}

/// An unsigned decimal integer: digits only, no sign, no spaces; `None` when the token is
/// not one or does not fit in 64 bits.
#[inline]
pub(crate) fn parse_u64(token: &[u8]) -> Option<u64> {
    if token.is_empty() || token.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for &b in token {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(value)
}

/// The largest vertex id a graph can hold: offsets are `u32` and there are `ids + 1` of them.
pub(crate) const MAX_ID: u64 = u32::MAX as u64 - 1;

/// A vertex id field: `base` is 0 for formats counting from 0 and 1 for formats counting
/// from 1, `limit` the largest id the file allows (as written, before subtracting `base`).
/// Returns the 0-based id, or the problem quoting the token.
#[inline]
pub(crate) fn vertex(token: Option<&[u8]>, what: &str, base: u64, limit: u64) -> Result<u32, String> {
    let token = token.ok_or_else(|| format!("the line ends before the {what}: expected more fields"))?;
    let id = parse_u64(token).ok_or_else(|| {
        if token.first() == Some(&b'-') {
            format!("the {what} {} is negative: vertex ids are unsigned integers", quote(token))
        } else if token.iter().all(u8::is_ascii_digit) {
            format!("the {what} {} is out of range: ids must be at most {}", quote(token), limit)
        } else {
            format!("the {what} {} is not an unsigned integer", quote(token))
        }
    })?;
    if id < base {
        return Err(format!("the {what} {} is out of range: this format numbers vertices from {base}", quote(token)));
    }
    if id > limit {
        return Err(format!("the {what} {} is out of range: ids must be at most {limit}", quote(token)));
    }
    Ok((id - base) as u32)
}

/// A non-negative integer weight that fits in `u32`.
#[inline]
pub(crate) fn int_weight(token: Option<&[u8]>) -> Result<u32, String> {
    let token = token.ok_or_else(|| "the line ends before the weight: expected more fields".to_string())?;
    match parse_u64(token) {
        Some(w) if w <= u64::from(u32::MAX) => Ok(w as u32),
        Some(_) => {
            Err(format!("the weight {} is out of range: integer weights must be at most {}", quote(token), u32::MAX))
        }
        None if token.first() == Some(&b'-') => {
            Err(format!("the weight {} is negative: integer weights must be non-negative", quote(token)))
        }
        None if token.iter().all(u8::is_ascii_digit) => {
            Err(format!("the weight {} is out of range: integer weights must be at most {}", quote(token), u32::MAX))
        }
        None => Err(format!("the weight {} is not a non-negative integer", quote(token))),
    }
}

/// A finite real weight: the 64-bit float nearest to the file's number.
///
/// Whether a weight is a whole number decides whether shortest paths may use it
/// (`weights.rs`), so the float must be whole exactly when the file's number is. Rounding
/// keeps that except for a fraction written with more digits than a float holds (or too
/// small for one) whose nearest float is a whole number: `0.99999999999999999` is 1, and
/// `1e-400` is 0. Such a value, in the range where integer weights are taken, is refused
/// by its text rather than read as a whole number the file does not say. (Above that range
/// every large float is whole, and the weight is refused as too large anyway.)
pub(crate) fn real_weight(token: Option<&[u8]>) -> Result<f64, String> {
    let token = token.ok_or_else(|| "the line ends before the value: expected more fields".to_string())?;
    let Some(w) = std::str::from_utf8(token).ok().and_then(|s| s.parse::<f64>().ok()) else {
        return Err(format!("the value {} is not a real number", quote(token)));
    };
    if w.is_infinite() && token.iter().any(u8::is_ascii_digit) {
        return Err(format!("the value {} is too large for a 64-bit float", quote(token)));
    }
    if !w.is_finite() {
        return Err(format!("the value {} is not a finite number", quote(token)));
    }
    if w.fract() == 0.0 && w.abs() <= f64::from(u32::MAX) && !is_whole(token) {
        let nearest = if w == 0.0 { "0".to_string() } else { w.to_string() };
        return Err(format!(
            "the value {} is not a whole number, but the nearest 64-bit float is {nearest}: it has more digits \
             than a float holds (or is too small for one), and reading it as {nearest} would make it a whole-number \
             weight the file does not say; round it in the file",
            quote(token)
        ));
    }
    Ok(w)
}

/// Whether a decimal number as written (`[+-]digits[.digits][(e|E)[+-]digits]`, one that
/// `f64::from_str` accepts) is a whole number, judged on its digits: its value is the
/// digits without the point times `10^(exponent - digits after the point)`, which is whole
/// when the trailing zeros of the digits make up for a negative power (or all are zero).
fn is_whole(token: &[u8]) -> bool {
    let unsigned = token.strip_prefix(b"+").or_else(|| token.strip_prefix(b"-")).unwrap_or(token);
    let (mantissa, exponent) = match unsigned.iter().position(|&b| b == b'e' || b == b'E') {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, &b""[..]),
    };
    let (negative, digits) = match exponent.first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    // Saturating: an exponent beyond 10^12 decides the answer whatever the digits are.
    let magnitude = digits.iter().fold(0i64, |e, &d| (e * 10 + i64::from(d.wrapping_sub(b'0'))).min(1_000_000_000_000));
    let exponent = if negative { -magnitude } else { magnitude };
    let (integer, fraction) = match mantissa.iter().position(|&b| b == b'.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, &b""[..]),
    };
    let all = || integer.iter().chain(fraction);
    if all().all(|&d| d == b'0') {
        return true;
    }
    let trailing_zeros = all().rev().take_while(|&&d| d == b'0').count() as i64;
    exponent - fraction.len() as i64 + trailing_zeros >= 0
}

/// Nothing may follow the last expected field.
#[inline]
pub(crate) fn no_more(mut fields: Fields<'_>, expected: &str) -> Result<(), String> {
    match fields.next() {
        None => Ok(()),
        Some(extra) => Err(format!("unexpected field {} after {expected}", quote(extra))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wholeness_is_read_from_the_digits() {
        for whole in ["0", "-0", "+3", "1.", "1e0", "10e-1", "1.50e1", "0.0e-5", "1200e-2", "1E3", "4294967295.000", "1e400"] {
            assert!(is_whole(whole.as_bytes()), "{whole}");
        }
        for fraction in [".5", "1.5e0", "123e-2", "0.99999999999999999", "1e-400", "-0.001e2", "4294967295.0000000001"] {
            assert!(!is_whole(fraction.as_bytes()), "{fraction}");
        }
        assert_eq!(real_weight(Some(b"1.50e1")), Ok(15.0));
        assert_eq!(real_weight(Some(b"16777217")), Ok(16_777_217.0));
        assert!(real_weight(Some(b"0.99999999999999999")).unwrap_err().contains("nearest 64-bit float is 1"));
        // Beyond the integer weights' range a float is whole whatever the digits: taken, and
        // refused as too large if used as an integer weight.
        assert_eq!(real_weight(Some(b"12345678901234567890.5")), Ok(12_345_678_901_234_567_890.5));
    }
}
