//! The Unbalanced Tree Search benchmark (UTS): a tree defined by SHA-1, whose shape is
//! known only by walking it. A node's 20-byte state is SHA1(parent state ‖ child index);
//! its number of children is drawn from the state. Binomial trees are deep and narrow,
//! so work stealing is essential; geometric trees are bushy.

use wsdsl::prelude::*;

#[megakernel]
pub mod uts {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// 0 = binomial, 1 = geometric (fixed shape).
        pub shape: u32,
        /// Root branching factor (binomial) or expected branching factor (geometric).
        pub b0: f64,
        /// Geometric: depth at which the tree stops growing.
        pub gen_mx: u32,
        /// Binomial: probability that a non-root node has `m` children.
        pub q: f64,
        /// Binomial: children of a node that has any.
        pub m: u32,
    }

    #[counters]
    pub struct Counters {
        pub nodes: Sum<u64>,
        pub leaves: Sum<u64>,
        pub depth: Max<u32>,
    }

    #[task]
    pub struct Node {
        pub state: [u8; 20],
        pub depth: u32,
    }

    /// SHA-1 of a message of at most 55 bytes held in `msg[..len]` (one padded block).
    fn sha1_short(msg: [u8; 24], len: usize) -> [u8; 20] {
        let mut w = [0u32; 80];
        for i in 0..16usize {
            let mut word = 0u32;
            for j in 0..4usize {
                let k = i * 4 + j;
                let mut byte = 0u32;
                if k < len {
                    byte = msg[k] as u32;
                } else if k == len {
                    byte = 0x80;
                }
                word = (word << 8) | byte;
            }
            w[i] = word;
        }
        w[15] = (len as u32) * 8;
        for t in 16..80usize {
            w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
        }
        let mut a = 0x67452301u32;
        let mut b = 0xEFCDAB89u32;
        let mut c = 0x98BADCFEu32;
        let mut d = 0x10325476u32;
        let mut e = 0xC3D2E1F0u32;
        for t in 0..80usize {
            let mut f = b ^ c ^ d;
            let mut k = 0xCA62C1D6u32;
            if t < 20 {
                f = (b & c) | (!b & d);
                k = 0x5A827999;
            } else if t < 40 {
                k = 0x6ED9EBA1;
            } else if t < 60 {
                f = (b & c) | (b & d) | (c & d);
                k = 0x8F1BBCDC;
            }
            let temp = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(w[t]);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = temp;
        }
        let h = [
            a.wrapping_add(0x67452301),
            b.wrapping_add(0xEFCDAB89),
            c.wrapping_add(0x98BADCFE),
            d.wrapping_add(0x10325476),
            e.wrapping_add(0xC3D2E1F0),
        ];
        let mut out = [0u8; 20];
        for i in 0..5usize {
            out[i * 4] = (h[i] >> 24) as u8;
            out[i * 4 + 1] = (h[i] >> 16) as u8;
            out[i * 4 + 2] = (h[i] >> 8) as u8;
            out[i * 4 + 3] = h[i] as u8;
        }
        out
    }

    /// State of child `i`: SHA1(parent state ‖ i as 4 big-endian bytes).
    fn child_state(parent: [u8; 20], i: u32) -> [u8; 20] {
        let mut msg = [0u8; 24];
        for j in 0..20usize {
            msg[j] = parent[j];
        }
        msg[20] = (i >> 24) as u8;
        msg[21] = (i >> 16) as u8;
        msg[22] = (i >> 8) as u8;
        msg[23] = i as u8;
        sha1_short(msg, 24)
    }

    /// The node's random number in [0, 1): the state's last four bytes, as UTS reads them.
    fn to_prob(state: [u8; 20]) -> f64 {
        let h = ((state[16] as u32) << 24) | ((state[17] as u32) << 16) | ((state[18] as u32) << 8) | (state[19] as u32);
        ((h & 0x7fffffff) as f64) / 2147483648.0
    }

    fn num_children(state: [u8; 20], depth: u32, shape: u32, b0: f64, gen_mx: u32, q: f64, m: u32) -> u32 {
        let mut n = 0u32;
        if shape == 0 {
            if depth == 0 {
                n = b0.floor() as u32;
            } else if to_prob(state) < q {
                n = m;
            }
        } else if depth < gen_mx {
            let p = 1.0 / (1.0 + b0);
            let u = to_prob(state);
            n = ((1.0 - u).ln() / (1.0 - p).ln()).floor() as u32;
            // UTS caps geometric nodes at 100 children (only a binomial root may exceed it).
            if n > 100 {
                n = 100;
            }
        }
        n
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        ctx.counters.nodes.add(1);
        ctx.counters.depth.max(node.depth);
        let n = num_children(
            node.state,
            node.depth,
            ctx.params.shape,
            ctx.params.b0,
            ctx.params.gen_mx,
            ctx.params.q,
            ctx.params.m,
        );
        if n == 0 {
            ctx.counters.leaves.add(1);
        }
        for i in 0..n {
            ctx.spawn(Node { state: child_state(node.state, i), depth: node.depth + 1 });
        }
    }
}

/// A UTS tree: parameters, seed, and (for the published samples) the known shape.
#[derive(Debug, Clone, Copy)]
pub struct Tree {
    pub params: uts::Params,
    pub seed: u32,
    /// (nodes, leaves, depth) for the published sample trees.
    pub known: Option<(u64, u64, u32)>,
}

/// The published sample trees.
pub fn preset(name: &str) -> Option<Tree> {
    match name.to_ascii_uppercase().as_str() {
        "T1" => Some(Tree {
            params: uts::Params { shape: 1, b0: 4.0, gen_mx: 10, q: 0.0, m: 0 },
            seed: 19,
            known: Some((4_130_071, 3_305_118, 10)),
        }),
        "T3" => Some(Tree {
            params: uts::Params { shape: 0, b0: 2000.0, gen_mx: 0, q: 0.124875, m: 8 },
            seed: 42,
            known: Some((4_112_897, 3_599_034, 1572)),
        }),
        _ => None,
    }
}

/// SHA-1 of a short message, written independently of the DSL version above (host only).
pub fn host_sha1(msg: &[u8]) -> [u8; 20] {
    let mut block = [0u8; 64];
    block[..msg.len()].copy_from_slice(msg);
    block[msg.len()] = 0x80;
    block[56..].copy_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
    let mut w = [0u32; 80];
    for (i, chunk) in block.chunks_exact(4).enumerate() {
        w[i] = u32::from_be_bytes(chunk.try_into().unwrap());
    }
    for t in 16..80 {
        w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
    }
    let mut h = [0x67452301u32, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let [mut a, mut b, mut c, mut d, mut e] = h;
    for (t, wt) in w.iter().enumerate() {
        let (f, k) = match t / 20 {
            0 => ((b & c) | (!b & d), 0x5A827999),
            1 => (b ^ c ^ d, 0x6ED9EBA1),
            2 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
            _ => (b ^ c ^ d, 0xCA62C1D6),
        };
        let temp = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wt);
        (e, d, c, b, a) = (d, c, b.rotate_left(30), a, temp);
    }
    for (hi, v) in h.iter_mut().zip([a, b, c, d, e]) {
        *hi = hi.wrapping_add(v);
    }
    let mut out = [0u8; 20];
    for (i, v) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

/// The root: SHA1(16 zero bytes ‖ seed as 4 big-endian bytes).
pub fn root(seed: u32) -> uts::Node {
    let mut msg = [0u8; 20];
    msg[16..].copy_from_slice(&seed.to_be_bytes());
    uts::Node { state: host_sha1(&msg), depth: 0 }
}

/// Walks the tree on `rt`; returns (nodes, leaves, depth).
pub fn solve(rt: &Runtime, tree: &Tree) -> Result<((u64, u64, u32), Output<uts::Kernel>), wsdsl::Error> {
    let out = rt.run::<uts::Kernel>(tree.params, [root(tree.seed)])?;
    let c = &out.counters;
    Ok(((c.nodes.get(), c.leaves.get(), c.depth.get()), out))
}

/// A sequential walk with the host SHA-1 and no wsdsl at all: the independent reference
/// for trees without a published answer. Returns (nodes, leaves, depth).
pub fn reference(tree: &Tree) -> (u64, u64, u32) {
    let p = &tree.params;
    let prob = |s: &[u8; 20]| (u32::from_be_bytes([s[16], s[17], s[18], s[19]]) & 0x7fff_ffff) as f64 / 2147483648.0;
    let children = |s: &[u8; 20], depth: u32| -> u32 {
        if p.shape == 0 {
            if depth == 0 { p.b0.floor() as u32 } else if prob(s) < p.q { p.m } else { 0 }
        } else if depth < p.gen_mx {
            (((1.0 - prob(s)).ln() / (1.0 - 1.0 / (1.0 + p.b0)).ln()).floor() as u32).min(100)
        } else {
            0
        }
    };
    let (mut nodes, mut leaves, mut max_depth) = (0u64, 0u64, 0u32);
    let mut stack = vec![root(tree.seed)];
    while let Some(node) = stack.pop() {
        nodes += 1;
        max_depth = max_depth.max(node.depth);
        let n = children(&node.state, node.depth);
        if n == 0 {
            leaves += 1;
        }
        for i in 0..n {
            let mut msg = [0u8; 24];
            msg[..20].copy_from_slice(&node.state);
            msg[20..].copy_from_slice(&i.to_be_bytes());
            stack.push(uts::Node { state: host_sha1(&msg), depth: node.depth + 1 });
        }
    }
    (nodes, leaves, max_depth)
}
