//! An example program, compiled into this crate so that this documentation shows what
//! `#[megakernel]` generates for a real one.
//!
//! [`nqueens`] is README's N-Queens program: its page lists the items written in the module
//! (the [`Params`](nqueens::Params), [`Counters`](nqueens::Counters) and
//! [`Board`](nqueens::Board) structs) beside the items the macro generated for it:
//! [`Kernel`](nqueens::Kernel), the program a runtime runs; [`Task`](nqueens::Task), its task
//! types; and [`Ctx`](nqueens::Ctx), what its handlers see. Every program gets a `Ctx` with the
//! same fields and methods, its types the program's own.
//!
//! # What a handler sees: `Ctx`
//!
//! A handler reaches the run through its `ctx` argument: the parameters (`ctx.params`), the
//! buffers (`ctx.buffers`), this worker's counters (`ctx.counters`), and the calls that spawn
//! tasks (`ctx.spawn`), say which run of a complete handler this is (`ctx.round()`), start
//! data-parallel jobs (`ctx.sort`, `ctx.merge`, ...) and read their results (`ctx.result`).
//! Here a program with parameters, counters, a buffer, task values and a complete handler
//! walks a complete binary tree:
//!
//! ```
//! use wsdsl::prelude::*;
//!
//! #[megakernel]
//! pub mod tree {
//!     use wsdsl::prelude::*;
//!
//!     #[params]
//!     pub struct Params { pub depth: u32 }
//!
//!     #[counters]
//!     pub struct Counters { pub leaves: Sum<u64>, pub deepest: Max<u32> }
//!
//!     #[buffers]
//!     pub struct Buffers {
//!         /// Element `k` counts the nodes of level `k`.
//!         pub per_level: Buffer<u64>,
//!     }
//!
//!     /// A node of the tree; it hands its parent the number of leaves below it.
//!     #[task(value = u64)]
//!     pub struct Node { pub level: u32 }
//!
//!     #[spawn]
//!     fn visit(n: &Node, ctx: &mut Ctx) -> u64 {
//!         ctx.buffers.per_level.atomic_add(n.level as usize, 1);
//!         ctx.counters.deepest.max(n.level);
//!         if n.level == ctx.params.depth {
//!             ctx.counters.leaves.add(1);
//!             return 1; // a leaf: the value its parent receives
//!         }
//!         ctx.spawn(Node { level: n.level + 1 });
//!         ctx.spawn(Node { level: n.level + 1 });
//!         0 // not handed on: the node spawned, so its complete handler gives its value
//!     }
//!
//!     /// Runs once both children are done, with their values in spawn order.
//!     #[complete(max_children = 2)]
//!     fn add(_n: &Node, children: &[u64], ctx: &mut Ctx) -> u64 {
//!         assert_eq!(ctx.round(), 1); // it spawns nothing, so it runs once
//!         children[0] + children[1]
//!     }
//! }
//!
//! fn main() -> Result<(), wsdsl::Error> {
//!     let buffers = tree::Buffers { per_level: Buffer::zeroed(11) };
//!     let rt = Runtime::new(Backend::Cpu);
//!     let out = rt.run_with::<tree::Kernel>(tree::Params { depth: 10 }, &buffers, [tree::Node { level: 0 }])?;
//!     assert_eq!(out.values, [1024]); // the root's value
//!     assert_eq!((out.counters.leaves.get(), out.counters.deepest.get()), (1024, 10));
//!     assert_eq!(buffers.per_level.get(3), 8);
//!     Ok(())
//! }
//! ```

use crate::megakernel;

/// README's N-Queens program: counts the ways to place `n` queens on an `n` x `n` board so
/// that no two attack each other, one task per partial board, filled row by row.
///
/// Everything that `#[megakernel]` generated is documented here:
/// [`Kernel`](crate::example::nqueens::Kernel) is the program,
/// [`Task`](crate::example::nqueens::Task) its task types (one,
/// [`Board`](crate::example::nqueens::Board)), and [`Ctx`](crate::example::nqueens::Ctx)
/// what its handler sees. The module holds:
///
/// ```ignore
/// #[params]   pub struct Params { pub n: u32 }
/// #[counters] pub struct Counters { pub solutions: Sum<u64> }
/// #[task]     pub struct Board { pub row: u32, pub cols: u32, pub left: u32, pub right: u32 }
///
/// #[spawn]
/// fn place(b: &Board, ctx: &mut Ctx) {
///     let all = ((1u64 << ctx.params.n) - 1) as u32;
///     if b.row == ctx.params.n { ctx.counters.solutions.add(1); return; }
///     let mut free = !(b.cols | b.left | b.right) & all;
///     while free != 0 {
///         let bit = free & free.wrapping_neg();
///         free ^= bit;
///         ctx.spawn(Board { row: b.row + 1, cols: b.cols | bit,
///                           left: ((b.left | bit) << 1) & all, right: (b.right | bit) >> 1 });
///     }
/// }
/// ```
///
/// # Example
///
/// Run it from the empty board; the 8 x 8 board has 92 solutions:
///
/// ```
/// use wsdsl::example::nqueens;
/// use wsdsl::prelude::*;
///
/// let rt = Runtime::new(Backend::Cpu);
/// let out = rt.run::<nqueens::Kernel>(nqueens::Params { n: 8 }, [nqueens::Board::EMPTY])?;
/// assert_eq!(out.counters.solutions.get(), 92);
/// println!("{} solutions on {}\n{}", out.counters.solutions.get(), out.backend, out.stats);
/// # Ok::<(), wsdsl::Error>(())
/// ```
#[megakernel]
pub mod nqueens {
    use wsdsl::prelude::*;

    /// The launch parameters.
    #[params]
    pub struct Params {
        /// The board's size: `n` queens on `n` x `n` squares (at most 32).
        pub n: u32,
    }

    /// What the run counts.
    #[counters]
    pub struct Counters {
        /// Boards with a queen on every row.
        pub solutions: Sum<u64>,
    }

    /// A board with queens on rows `0..row`, none attacking another; as bit masks (bit `c`
    /// for column `c`), the squares of row `row` that they attack.
    #[task]
    pub struct Board {
        /// The next row to place a queen on.
        pub row: u32,
        /// The columns holding a queen.
        pub cols: u32,
        /// The squares attacked along the diagonals that move a column up (`<< 1`) each row.
        pub left: u32,
        /// The squares attacked along the diagonals that move a column down (`>> 1`) each
        /// row.
        pub right: u32,
    }

    impl Board {
        /// The empty board, the root of the search.
        pub const EMPTY: Board = Board { row: 0, cols: 0, left: 0, right: 0 };
    }

    /// Spawns a board for every square of row `row` that no queen attacks; counts the full
    /// boards.
    #[spawn]
    fn place(b: &Board, ctx: &mut Ctx) {
        let all = ((1u64 << ctx.params.n) - 1) as u32;
        if b.row == ctx.params.n {
            ctx.counters.solutions.add(1);
            return;
        }
        let mut free = !(b.cols | b.left | b.right) & all;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            ctx.spawn(Board { row: b.row + 1, cols: b.cols | bit, left: ((b.left | bit) << 1) & all, right: (b.right | bit) >> 1 });
        }
    }
}
