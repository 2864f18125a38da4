//! The random numbers of the graph generators: seeded streams that every thread can open on
//! its own, so a generator gives the same graph for a seed on every run and thread count.
//! Hand-written so the sequences are fixed by this file, not by a crate version.

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter through a strong mixer. Used
/// only to turn `(seed, stream)` into well-spread xoshiro states, as its authors advise.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// xoshiro256** (Blackman and Vigna 2018): fast, 256 bits of state, passes BigCrush.
pub(crate) struct Xoshiro256([u64; 4]);

impl Xoshiro256 {
    /// The stream `stream` of `seed`: the state is SplitMix64 output from a start that
    /// mixes both, so neighbouring streams are unrelated.
    pub(crate) fn new(seed: u64, stream: u64) -> Xoshiro256 {
        let mut sm = SplitMix64(SplitMix64(seed).next() ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let state = [sm.next(), sm.next(), sm.next(), sm.next()];
        // The all-zero state is the one state xoshiro cannot leave; SplitMix64 makes it
        // astronomically unlikely, but it costs nothing to rule out.
        Xoshiro256(if state == [0; 4] { [1, 2, 3, 4] } else { state })
    }

    #[inline]
    pub(crate) fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform number in `[0, 1)`: the top 53 bits as the mantissa.
    #[inline]
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform number in `0..n` (Lemire's multiply-shift: the high half of a 32-bit draw
    /// times `n`; the bias is below `n / 2^32`, far under what a graph generator can show).
    #[inline]
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// A weight in `1..=255` from a 64-bit random number, as R-MAT draws its weights.
#[inline]
pub(crate) fn weight_1_to_255(x: u64) -> u32 {
    1 + (((x >> 32) * 255) >> 32) as u32
}

/// A random number for `key` under `seed` with no stream to carry: one SplitMix64 step from
/// a start mixing both (what the grid draws per edge, so that any thread can decide any edge).
#[inline]
pub(crate) fn hash(seed: u64, key: u64) -> u64 {
    SplitMix64(SplitMix64(seed).next() ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoshiro_matches_the_reference_step() {
        // The reference implementation from state {1, 2, 3, 4}: 11520, 0, 1509978240, 1215971899390074240.
        let mut x = Xoshiro256([1, 2, 3, 4]);
        assert_eq!([x.next(), x.next(), x.next(), x.next()], [11520, 0, 1509978240, 1215971899390074240]);
    }


    #[test]
    fn unit_and_below_stay_in_range_and_spread() {
        let mut x = Xoshiro256::new(3, 0);
        let mut buckets = [0u32; 10];
        for _ in 0..100_000 {
            let u = x.unit();
            assert!((0.0..1.0).contains(&u));
            buckets[x.below(10) as usize] += 1;
        }
        assert!(buckets.iter().all(|&b| (9_000..11_000).contains(&b)), "{buckets:?}");
        assert!((0..1000).all(|k| (1..=255).contains(&weight_1_to_255(hash(1, k)))));
        assert_ne!(hash(1, 2), hash(2, 1), "seed and key are not interchangeable");
    }
}
