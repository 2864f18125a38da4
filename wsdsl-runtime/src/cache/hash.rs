//! The stable hash of the cache's keys and digests: unlike std's hasher, the same in every
//! process and run.

/// A stable hash for cache keys. A disk cache entry also stores the full source and is
/// checked against it; the maps of loaded kernels (`gpu/build/module.rs`, `gpu/emulate/`)
/// trust the 64 bits alone.
pub(crate) fn stable_hash(parts: &[&str]) -> u64 {
    stable_hash_bytes(&parts.iter().map(|p| p.as_bytes()).collect::<Vec<_>>())
}

/// [`stable_hash`] of byte strings (the same value for a string's bytes): eight bytes at a
/// time, each word mixed in by a full 64 x 64 -> 128-bit multiply whose halves are folded
/// together (as wyhash does: a one-word multiply and shift left differences in the top bit
/// that a later word could cancel), then each part's length (so that part boundaries
/// count), then a final mix. Every warm run looks its kernel up by the hash of its source
/// (about 200 KB): byte-at-a-time FNV-1a takes 0.23 ms of each call on a 2-core machine, this
/// 0.05 ms.
pub(crate) fn stable_hash_bytes(parts: &[&[u8]]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: u64| {
        let m = (h ^ word) as u128 * (K ^ h.rotate_left(23)) as u128;
        (m as u64) ^ ((m >> 64) as u64)
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            h = step(h, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = step(h, u64::from_le_bytes(last));
        h = step(h, part.len() as u64);
    }
    // murmur3's finalizer: every input bit reaches every output bit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// [`stable_hash_bytes`]'s mixing in four lanes, each taking every fourth word, then the
/// lanes and the length hashed together: four multiplies in flight where one waited for the
/// last, so a large payload (the binary form of a graph, hundreds of megabytes read back in
/// the time a load may take) hashes about three times as fast. Not the same values as
/// `stable_hash_bytes`.
pub(crate) fn wide_hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: u64| {
        let m = (h ^ word) as u128 * (K ^ h.rotate_left(23)) as u128;
        (m as u64) ^ ((m >> 64) as u64)
    };
    let mut lanes = [0xcbf2_9ce4_8422_2325u64, 0x8422_2325_cbf2_9ce4, 0x2325_cbf2_9ce4_8422, 0x9ce4_8422_2325_cbf2];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = step(*lane, u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
    }
    let rest = blocks.remainder();
    let mut lane_bytes = [0u8; 40];
    for (k, lane) in lanes.iter().enumerate() {
        lane_bytes[8 * k..8 * k + 8].copy_from_slice(&lane.to_le_bytes());
    }
    lane_bytes[32..].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    stable_hash_bytes(&[&lane_bytes, rest])
}

#[cfg(test)]
mod tests {
    use super::{stable_hash, stable_hash_bytes, wide_hash_bytes};

    #[test]
    fn the_wide_hash_sees_every_byte_and_the_length() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(2654435761) >> 7) as u8).collect();
        let base = wide_hash_bytes(&bytes);
        assert_eq!(base, wide_hash_bytes(&bytes.clone()));
        for at in [0, 7, 8, 31, 32, 33, 500, 991, 992, 999] {
            let mut changed = bytes.clone();
            changed[at] ^= 1;
            assert_ne!(wide_hash_bytes(&changed), base, "byte {at} changed");
        }
        // Words swapped between lanes, a trailing zero, a shorter input.
        let mut swapped = bytes.clone();
        swapped.swap(0, 8);
        assert_ne!(wide_hash_bytes(&swapped), base);
        assert_ne!(wide_hash_bytes(&[&bytes[..], &[0]].concat()), base);
        assert_ne!(wide_hash_bytes(&bytes[..999]), base);
        assert_ne!(wide_hash_bytes(&[0; 32]), wide_hash_bytes(&[0; 64]));
    }

    #[test]
    fn the_stable_hash_sees_every_byte_and_every_part_boundary() {
        let text: String = (0..1000u32).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
        let base = stable_hash(&[&text]);
        assert_eq!(base, stable_hash(&[&text.clone()]), "the same input, the same hash");
        for at in [0, 1, 7, 8, 9, 500, 998, 999] {
            let mut changed = text.clone().into_bytes();
            changed[at] ^= 1;
            assert_ne!(stable_hash_bytes(&[&changed]), base, "byte {at} changed");
        }
        assert_ne!(stable_hash(&["ab", "c"]), stable_hash(&["a", "bc"]), "where parts end counts");
        assert_ne!(stable_hash(&["a"]), stable_hash(&["a", ""]), "an empty part counts");
        assert_ne!(stable_hash(&["a\0"]), stable_hash(&["a"]), "a trailing zero byte counts");
        assert_ne!(stable_hash(&[]), stable_hash(&[""]));
        // A multiply-and-shift per word let the top bit of one word cancel against two bits
        // of the next: this three-bit change collided (a review's example).
        let line = b"#define X 1\n// abcdefghijklmnop\n".to_vec();
        let mut moved = line.clone();
        moved[7] ^= 0x80;
        moved[15] ^= 0x80;
        moved[12] ^= 0x04;
        assert_ne!(stable_hash_bytes(&[&line]), stable_hash_bytes(&[&moved]));
    }
}
