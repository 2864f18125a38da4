//! The Unbalanced Tree Search benchmark (UTS, Olivier et al., LCPC 2006): a tree defined by
//! SHA-1, whose shape is known only by walking it. A node's 20-byte state is
//! SHA1(parent state ‖ child index); its number of children is drawn from the state by the
//! tree type's rule. Binomial trees are deep and narrow, so work stealing is essential;
//! geometric trees are bushy; hybrid trees are geometric near the root and binomial below.
//! The rules follow the reference implementation (`uts.c`) exactly, so the published sample
//! trees come out node for node.

use wsdsl::prelude::*;

#[megakernel]
pub mod uts {
    use wsdsl::prelude::*;

    /// How a node's number of children is drawn (UTS `-t`).
    pub enum TreeType {
        /// The root has floor(b0) children; every other node has m children with probability
        /// q, else none.
        Binomial = 0,
        /// A geometric number of children whose mean b_i depends on the depth by `Shape`.
        Geometric = 1,
        /// Geometric above depth shift_depth * gen_mx, binomial from there down.
        Hybrid = 2,
    }

    /// How the mean number of children b_i of a geometric node at depth d > 0 follows from
    /// b0 and gen_mx (UTS `-a`); the root's is b0 whatever the shape.
    pub enum Shape {
        /// b_i = b0 * (1 - d / gen_mx): nothing below depth gen_mx.
        Linear = 0,
        /// b_i = b0 * d^(-ln b0 / ln gen_mx): 1 at depth gen_mx, no depth limit.
        ExpDec = 1,
        /// b_i = b0^sin(2 pi d / gen_mx), down to depth 5 * gen_mx.
        Cyclic = 2,
        /// b_i = b0 down to depth gen_mx.
        Fixed = 3,
    }

    #[params]
    pub struct Params {
        pub tree_type: TreeType,
        /// Geometric and hybrid trees: the shape function of the geometric part.
        pub shape: Shape,
        /// The root's number of children (binomial, rounded down) or its expected number
        /// (geometric, hybrid).
        pub b0: f64,
        /// Geometric and hybrid trees: the depth scale of the shape function.
        pub gen_mx: u32,
        /// Binomial rule: probability that a non-root node has `m` children.
        pub q: f64,
        /// Binomial rule: children of a node that has any.
        pub m: u32,
        /// Hybrid trees: nodes shallower than shift_depth * gen_mx follow the geometric rule.
        pub shift_depth: f64,
        /// 1: a child computes its own state from its parent's (the children of a node hash
        /// on as many threads); 0: the parent hashes all its children's states in turn.
        pub hash_in_child: u32,
        /// A latency probe when nonzero: every node does its usual work (state, number of
        /// children) but has exactly one child, down to this depth, so the walk is a chain
        /// whose time per level is one node's latency (the depth bound of a deep tree).
        pub chain_depth: u32,
        /// Latency probe (`chain_depth` > 0, children hashing their own states): children of
        /// each node of the chain; child 0 goes on, the others are leaves. 1 is a bare chain;
        /// a binomial tree's m gives its inner nodes' own work of spawning m children.
        pub chain_width: u32,
    }

    #[counters]
    pub struct Counters {
        pub nodes: Sum<u64>,
        pub leaves: Sum<u64>,
        pub depth: Max<u32>,
    }

    /// A node. With `index == OWN_STATE`, `state` is the node's own state; otherwise it is
    /// the parent's, and the node is child `index` of that parent.
    #[task]
    pub struct Node {
        pub state: [u8; 20],
        pub depth: u32,
        pub index: u32,
    }

    pub const OWN_STATE: u32 = 0xffff_ffff;

    /// UTS's cap on children; only a binomial tree's root may have more.
    pub const MAX_CHILDREN: u32 = 100;

    /// pi as `uts.c` writes it (the same double as `std::f64::consts::PI`, which handler code
    /// cannot name): the cyclic shape, and so the published trees T2 and T2L, depend on it.
    #[allow(clippy::approx_constant)]
    const PI: f64 = 3.141592653589793;

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

    /// b_i, the expected number of children of a geometric node at `depth`.
    fn expected_children(shape: Shape, b0: f64, gen_mx: u32, depth: u32) -> f64 {
        if depth == 0 {
            return b0;
        }
        let d = depth as f64;
        let g = gen_mx as f64;
        match shape {
            Shape::Linear => b0 * (1.0 - d / g),
            Shape::ExpDec => b0 * d.powf(-b0.ln() / g.ln()),
            Shape::Cyclic => {
                // In 64 bits: 5 * gen_mx must not wrap.
                if (depth as u64) > 5 * (gen_mx as u64) {
                    0.0
                } else {
                    b0.powf((2.0 * PI * d / g).sin())
                }
            }
            Shape::Fixed => {
                if depth < gen_mx {
                    b0
                } else {
                    0.0
                }
            }
        }
    }

    /// A geometric number of children with mean `mean`, drawn by inverting the distribution
    /// function at `u`: floor(ln(1 - u) / ln(1 - p)) with p = 1 / (1 + mean).
    fn geometric_children(u: f64, mean: f64) -> u32 {
        // A mean <= 0 (the linear shape deeper than gen_mx) or NaN makes UTS's count negative
        // or NaN, and a node with a negative count has no children.
        if mean.is_nan() || mean <= 0.0 {
            return 0;
        }
        let p = 1.0 / (1.0 + mean);
        // A count past u32::MAX saturates (UTS's int conversion is undefined past 2^31, for
        // means above about 10^8); the caller caps it at 100 anyway.
        ((1.0 - u).ln() / (1.0 - p).ln()).floor() as u32
    }

    /// The number of children of a node: UTS's `uts_numChildren`. (Handlers cannot pass
    /// `ctx.params` whole, hence the parameters one by one.)
    #[allow(clippy::too_many_arguments)]
    pub fn num_children(
        state: [u8; 20],
        depth: u32,
        tree_type: TreeType,
        shape: Shape,
        b0: f64,
        gen_mx: u32,
        q: f64,
        m: u32,
        shift_depth: f64,
    ) -> u32 {
        let u = to_prob(state);
        let geometric = match tree_type {
            TreeType::Binomial => false,
            TreeType::Geometric => true,
            TreeType::Hybrid => (depth as f64) < shift_depth * (gen_mx as f64),
        };
        if geometric {
            return geometric_children(u, expected_children(shape, b0, gen_mx, depth)).min(MAX_CHILDREN);
        }
        if tree_type == TreeType::Binomial && depth == 0 {
            // The one node exempt from the cap. (A hybrid root that falls under the binomial
            // rule, with shift_depth * gen_mx <= 0, draws like any other binomial node.)
            return b0.floor() as u32;
        }
        if u < q {
            m.min(MAX_CHILDREN)
        } else {
            0
        }
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        ctx.counters.nodes.add(1);
        ctx.counters.depth.max(node.depth);
        let mut state = node.state;
        if node.index != OWN_STATE {
            state = child_state(node.state, node.index);
        }
        let n = num_children(
            state,
            node.depth,
            ctx.params.tree_type,
            ctx.params.shape,
            ctx.params.b0,
            ctx.params.gen_mx,
            ctx.params.q,
            ctx.params.m,
            ctx.params.shift_depth,
        );
        let n = if ctx.params.chain_depth == 0 {
            n
        } else if node.depth + 1 < ctx.params.chain_depth && (node.index == 0 || node.index == OWN_STATE) {
            // On the chain (the root, child 0, or any node when parents hash: one child).
            if ctx.params.hash_in_child != 0 { ctx.params.chain_width } else { 1 }
        } else {
            0
        };
        if n == 0 {
            ctx.counters.leaves.add(1);
        }
        for i in 0..n {
            if ctx.params.hash_in_child != 0 {
                ctx.spawn(Node { state, depth: node.depth + 1, index: i });
            } else {
                ctx.spawn(Node { state: child_state(state, i), depth: node.depth + 1, index: OWN_STATE });
            }
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

/// UTS's defaults (`uts.c`) for the parameters a tree leaves unset; children hash their own
/// states.
pub const DEFAULTS: uts::Params = uts::Params {
    tree_type: uts::TreeType::Geometric,
    shape: uts::Shape::Linear,
    b0: 4.0,
    gen_mx: 6,
    q: 15.0 / 64.0,
    m: 4,
    shift_depth: 0.5,
    hash_in_child: 1,
    chain_depth: 0,
    chain_width: 1,
};

const fn geometric(shape: uts::Shape, gen_mx: u32, b0: f64, seed: u32, known: (u64, u64, u32)) -> Tree {
    let params = uts::Params { tree_type: uts::TreeType::Geometric, shape, gen_mx, b0, ..DEFAULTS };
    Tree { params, seed, known: Some(known) }
}

const fn binomial(b0: f64, q: f64, m: u32, seed: u32, known: (u64, u64, u32)) -> Tree {
    let params = uts::Params { tree_type: uts::TreeType::Binomial, b0, q, m, ..DEFAULTS };
    Tree { params, seed, known: Some(known) }
}

const fn hybrid(shape: uts::Shape, gen_mx: u32, b0: f64, q: f64, m: u32, seed: u32, known: (u64, u64, u32)) -> Tree {
    let params = uts::Params { tree_type: uts::TreeType::Hybrid, shape, gen_mx, b0, q, m, ..DEFAULTS };
    Tree { params, seed, known: Some(known) }
}

/// The published sample trees (UTS's `sample_trees.sh`), with their UTS flags and
/// (nodes, leaves, depth). T3L's q * m is a little above 1, so it might have grown without
/// end; its published size shows this seed's tree is finite.
pub const PRESETS: [(&str, Tree); 9] = {
    use uts::Shape::{Cyclic, Fixed, Linear};
    [
        // -t 1 -a 3 -d 10 -b 4 -r 19
        ("T1", geometric(Fixed, 10, 4.0, 19, (4_130_071, 3_305_118, 10))),
        // -t 1 -a 2 -d 16 -b 6 -r 502
        ("T2", geometric(Cyclic, 16, 6.0, 502, (4_117_769, 2_342_762, 81))),
        // -t 0 -b 2000 -q 0.124875 -m 8 -r 42
        ("T3", binomial(2000.0, 0.124875, 8, 42, (4_112_897, 3_599_034, 1572))),
        // -t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4
        ("T4", hybrid(Linear, 16, 6.0, 0.234375, 4, 1, (4_132_453, 3_108_986, 134))),
        // -t 1 -a 0 -d 20 -b 4 -r 34
        ("T5", geometric(Linear, 20, 4.0, 34, (4_147_582, 2_181_318, 20))),
        // -t 1 -a 3 -d 13 -b 4 -r 29
        ("T1L", geometric(Fixed, 13, 4.0, 29, (102_181_082, 81_746_377, 13))),
        // -t 1 -a 2 -d 23 -b 7 -r 220
        ("T2L", geometric(Cyclic, 23, 7.0, 220, (96_793_510, 53_791_152, 67))),
        // -t 0 -b 2000 -q 0.200014 -m 5 -r 7
        ("T3L", binomial(2000.0, 0.200014, 5, 7, (111_345_631, 89_076_904, 17844))),
        // -t 1 -a 3 -d 15 -b 4 -r 29
        ("T1XL", geometric(Fixed, 15, 4.0, 29, (1_635_119_272, 1_308_100_063, 15))),
    ]
};

/// The published sample tree `name` (T1 … T1XL, in any case).
pub fn preset(name: &str) -> Option<Tree> {
    PRESETS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|&(_, tree)| tree)
}

/// A tree with parameters of one's own, checked first: parameters that UTS's formulas cannot
/// use, and trees whose expected size is infinite (a walk that might never end), are refused.
pub fn custom(params: uts::Params, seed: u32) -> Result<Tree, wsdsl::Error> {
    use uts::{Shape, TreeType};
    let refuse = |why: String| Err(wsdsl::Error::InvalidConfig(why));
    let p = &params;
    if !(p.b0 >= 0.0 && p.b0.is_finite()) {
        return refuse(format!("b0 = {} must be a finite number >= 0", p.b0));
    }
    if p.tree_type != TreeType::Binomial && p.gen_mx == 0 {
        return refuse("gen_mx must be > 0 for geometric and hybrid trees (the shapes divide by it)".into());
    }
    if p.tree_type == TreeType::Hybrid && !(p.shift_depth >= 0.0 && p.shift_depth.is_finite()) {
        return refuse(format!("shift_depth = {} must be a finite number >= 0", p.shift_depth));
    }
    if p.tree_type != TreeType::Geometric {
        if !(0.0..=1.0).contains(&p.q) {
            return refuse(format!("q = {} is a probability: it must lie in [0, 1]", p.q));
        }
        // Each binomial generation is q * m times the one before on average; at exactly 1 the
        // expected size is already infinite (a critical branching process).
        let growth = p.q * p.m as f64;
        if growth >= 1.0 {
            return refuse(format!(
                "q * m = {growth} >= 1: below the root every node has m children with probability q, so each \
                 generation is on average q * m times the one before and the tree grows without bound in \
                 expectation (the walk might never end); choose q * m < 1, or run the published binomial \
                 samples T3 and T3L as presets, whose sizes are known"
            ));
        }
    }
    if p.tree_type == TreeType::Geometric && p.shape == Shape::ExpDec && p.b0 > 0.0 && p.b0 <= 1.0 {
        return refuse(format!(
            "b0 = {} <= 1 with the expdec shape: b_i = b0 * d^(-ln b0 / ln gen_mx) reaches 1 at depth \
             gen_mx and does not fall below it deeper down, and the shape has no depth limit, so the tree \
             grows without bound in expectation; choose b0 > 1",
            p.b0
        ));
    }
    Ok(Tree { params, seed, known: None })
}

/// SHA-1 of a short message on the host: RustCrypto's `sha1` crate, independent of the DSL
/// version above, and as fast as a user's host program would hash (it uses the CPU's SHA
/// extensions where there are some): the reference and the rayon baseline hash with it.
pub fn host_sha1(msg: &[u8]) -> [u8; 20] {
    use sha1::Digest;
    sha1::Sha1::digest(msg).into()
}

/// The root: SHA1(16 zero bytes ‖ seed as 4 big-endian bytes).
pub fn root(seed: u32) -> uts::Node {
    let mut msg = [0u8; 20];
    msg[16..].copy_from_slice(&seed.to_be_bytes());
    uts::Node { state: host_sha1(&msg), depth: 0, index: uts::OWN_STATE }
}

/// Walks the tree on `rt`; returns (nodes, leaves, depth).
pub fn solve(rt: &Runtime, tree: &Tree) -> Result<((u64, u64, u32), Output<uts::Kernel>), wsdsl::Error> {
    let out = rt.run::<uts::Kernel>(tree.params, [root(tree.seed)])?;
    let c = &out.counters;
    Ok(((c.nodes.get(), c.leaves.get(), c.depth.get()), out))
}

/// The number of children of a node, computed on the host with the host's libm: the
/// reference for `uts::num_children` above, written independently from `uts.c`.
pub fn host_num_children(p: &uts::Params, state: &[u8; 20], depth: u32) -> u32 {
    use uts::{Shape, TreeType};
    let u = f64::from(u32::from_be_bytes([state[16], state[17], state[18], state[19]]) & 0x7fff_ffff) / 2f64.powi(31);
    if p.tree_type == TreeType::Binomial && depth == 0 {
        return p.b0.floor() as u32; // uncapped
    }
    let (d, gen_mx) = (f64::from(depth), f64::from(p.gen_mx));
    let geometric = match p.tree_type {
        TreeType::Binomial => false,
        TreeType::Geometric => true,
        TreeType::Hybrid => d < p.shift_depth * gen_mx,
    };
    let children = if geometric {
        let b_i = match p.shape {
            _ if depth == 0 => p.b0,
            Shape::Linear => p.b0 * (1.0 - d / gen_mx),
            Shape::ExpDec => p.b0 * d.powf(-p.b0.ln() / gen_mx.ln()),
            Shape::Cyclic if u64::from(depth) > 5 * u64::from(p.gen_mx) => 0.0,
            Shape::Cyclic => p.b0.powf((2.0 * std::f64::consts::PI * d / gen_mx).sin()),
            Shape::Fixed if depth < p.gen_mx => p.b0,
            Shape::Fixed => 0.0,
        };
        // UTS's count is negative or NaN for b_i <= 0 or NaN: no children.
        if b_i > 0.0 {
            let leaf_probability = 1.0 / (1.0 + b_i);
            ((1.0 - u).ln() / (1.0 - leaf_probability).ln()).floor() as u32
        } else {
            0
        }
    } else if u < p.q {
        p.m
    } else {
        0
    };
    children.min(uts::MAX_CHILDREN)
}

/// The state of child `i` of a node: SHA1(state ‖ i as 4 big-endian bytes), on the host.
pub fn host_child_state(state: &[u8; 20], i: u32) -> [u8; 20] {
    let mut msg = [0u8; 24];
    msg[..20].copy_from_slice(state);
    msg[20..].copy_from_slice(&i.to_be_bytes());
    host_sha1(&msg)
}

/// A sequential walk with the host SHA-1 and no wsdsl at all: the independent reference
/// for trees without a published answer. Returns (nodes, leaves, depth).
pub fn reference(tree: &Tree) -> (u64, u64, u32) {
    let (mut nodes, mut leaves, mut max_depth) = (0u64, 0u64, 0u32);
    let mut stack = vec![root(tree.seed)];
    while let Some(node) = stack.pop() {
        nodes += 1;
        max_depth = max_depth.max(node.depth);
        let n = host_num_children(&tree.params, &node.state, node.depth);
        if n == 0 {
            leaves += 1;
        }
        for i in 0..n {
            stack.push(uts::Node { state: host_child_state(&node.state, i), depth: node.depth + 1, index: uts::OWN_STATE });
        }
    }
    (nodes, leaves, max_depth)
}
