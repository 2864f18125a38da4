//! Keys to sort, the check of a sort and of its options, shared by the sorting examples.

use crate::rng::SplitMix64;

/// `n` pseudo-random keys from `seed` (SplitMix64), with repeats when `distinct` is small.
pub fn keys(n: usize, seed: u64, distinct: u32) -> Vec<u32> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.below(distinct.max(1) as u64) as u32).collect()
}

/// [`keys`], refused before anything is allocated when there are more than a sort takes
/// (2^31 - 1), or when the memory for them cannot be had.
pub fn checked_keys(n: usize, seed: u64, distinct: u32) -> Result<Vec<u32>, wsdsl::Error> {
    check_key_count(n)?;
    let mut room: Vec<u32> = Vec::new();
    room.try_reserve_exact(n).map_err(|_| wsdsl::Error::InvalidConfig(format!("{n} keys: not enough memory for them ({} bytes)", n * 4)))?;
    drop(room);
    Ok(keys(n, seed, distinct))
}

fn check_key_count(keys: usize) -> Result<(), wsdsl::Error> {
    if keys > u32::MAX as usize / 2 {
        return Err(wsdsl::Error::InvalidConfig(format!("{keys} keys: at most 2^31 - 1 can be sorted")));
    }
    Ok(())
}

/// Checks `sorted` against `input`: ascending, and the same multiset of keys (compared with
/// the standard library's sort of the input). Names the first difference.
pub fn check(input: &[u32], sorted: &[u32]) -> Result<(), String> {
    if let Some(i) = sorted.windows(2).position(|w| w[0] > w[1]) {
        return Err(format!("not sorted: element {i} is {} but element {} is {}", sorted[i], i + 1, sorted[i + 1]));
    }
    let mut want = input.to_vec();
    want.sort_unstable();
    match want.iter().zip(sorted).position(|(a, b)| a != b) {
        _ if want.len() != sorted.len() => Err(format!("{} keys in, {} out", want.len(), sorted.len())),
        Some(i) => Err(format!("not a permutation of the input: sorted position {i} holds {}, expected {}", sorted[i], want[i])),
        None => Ok(()),
    }
}

/// A sort's options, checked before it runs: a cutoff between 1 and `leaf` (the most keys a
/// leaf sorts), and at most 2^31 - 1 keys.
pub fn check_options(keys: usize, cutoff: u32, leaf: usize) -> Result<(), wsdsl::Error> {
    if cutoff == 0 || cutoff as usize > leaf {
        return Err(wsdsl::Error::InvalidConfig(format!("the cutoff must be between 1 and {leaf}, not {cutoff}")));
    }
    check_key_count(keys)
}
