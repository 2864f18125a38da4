//! petgraph's graphs as compressed sparse rows (the `petgraph` feature).
//!
//! A trait rather than `From`/`TryFrom`: both the trait and the types would be another
//! crate's (`Graph` is `wsdsl`'s, the graphs petgraph's), which Rust's orphan rule forbids
//! implementing here; an extension trait of this crate's gives the same call,
//! `Graph::from_petgraph(&g)`.

use petgraph::csr::Csr;
use petgraph::graph::IndexType;
use petgraph::EdgeType;
use wsdsl::graph::{Graph, GraphOptions, Weights};

/// A petgraph graph that converts to a [`Graph`]: petgraph's `Graph` and `csr::Csr`.
/// Implemented for those two only (sealed).
pub trait PetgraphEdges: sealed::Sealed {
    /// The edges' weight type.
    type Weight;

    /// The conversion [`FromPetgraph`] calls, with `weight` giving each edge its integer
    /// weight (`None`: an unweighted graph).
    #[doc(hidden)]
    fn to_csr(&self, weight: Option<&dyn Fn(&Self::Weight) -> u32>) -> Result<Graph, wsdsl::Error>;
}

/// Conversions from petgraph's graphs, as `Graph::from_petgraph(&g)` with this trait in scope.
///
/// Node `i` of the petgraph graph is vertex `i`. A directed graph's edges are taken as they
/// are; an undirected one's both ways (a `Csr` already holds both, and a self-loop once).
/// Every edge is kept, parallel ones and self-loops too, each row in petgraph's order.
///
/// ```
/// use wsdsl::graph::Graph;
/// use wsdsl_graph::FromPetgraph;
/// let mut p = petgraph::Graph::<(), u32>::new();
/// let (a, b, c) = (p.add_node(()), p.add_node(()), p.add_node(()));
/// p.add_edge(a, b, 7);
/// p.add_edge(b, c, 2);
/// let g = Graph::from_petgraph_weighted(&p, |&w| w)?;
/// assert_eq!((g.neighbours(0), g.neighbours(1)), (&[1][..], &[2][..]));
/// assert_eq!(g.int_weights(), Some(&[7, 2][..]));
/// # Ok::<(), wsdsl::Error>(())
/// ```
pub trait FromPetgraph: Sized {
    /// The graph's edges, without weights. Errors: more than `u32::MAX` vertices or edges
    /// (ids and offsets are 32-bit).
    fn from_petgraph<G: PetgraphEdges>(g: &G) -> Result<Self, wsdsl::Error>;

    /// The graph's edges with the integer weight `weight` gives each edge's petgraph weight.
    fn from_petgraph_weighted<G: PetgraphEdges>(g: &G, weight: impl Fn(&G::Weight) -> u32) -> Result<Self, wsdsl::Error>;
}

impl FromPetgraph for Graph {
    fn from_petgraph<G: PetgraphEdges>(g: &G) -> Result<Self, wsdsl::Error> {
        g.to_csr(None)
    }

    fn from_petgraph_weighted<G: PetgraphEdges>(g: &G, weight: impl Fn(&G::Weight) -> u32) -> Result<Self, wsdsl::Error> {
        g.to_csr(Some(&weight))
    }
}

mod sealed {
    pub trait Sealed {}
    impl<N, E, Ty: petgraph::EdgeType, Ix: petgraph::graph::IndexType> Sealed for petgraph::Graph<N, E, Ty, Ix> {}
    impl<N, E, Ty: petgraph::EdgeType, Ix: petgraph::graph::IndexType> Sealed for petgraph::csr::Csr<N, E, Ty, Ix> {}
}

/// Refuses more vertices than 32-bit ids name.
fn vertex_count(n: usize) -> Result<(), wsdsl::Error> {
    if n > u32::MAX as usize {
        return Err(wsdsl::Error::InvalidConfig(format!("the petgraph graph has {n} nodes, but vertex ids are 32-bit: at most {}", u32::MAX)));
    }
    Ok(())
}

impl<N, E, Ty: EdgeType, Ix: IndexType> PetgraphEdges for petgraph::Graph<N, E, Ty, Ix> {
    type Weight = E;

    fn to_csr(&self, weight: Option<&dyn Fn(&E) -> u32>) -> Result<Graph, wsdsl::Error> {
        vertex_count(self.node_count())?;
        let edges = self
            .raw_edges()
            .iter()
            .map(|e| (e.source().index() as u32, e.target().index() as u32, weight.map_or(0, |w| w(&e.weight))))
            .collect();
        // An undirected edge is stored once: its reverse is added here.
        let opts = GraphOptions { symmetrize: !self.is_directed(), remove_self_loops: false, remove_duplicates: false, quiet: true };
        Ok(Graph::from_edges(self.node_count(), edges, weight.is_some(), &opts)?)
    }
}

impl<N, E, Ty: EdgeType, Ix: IndexType> PetgraphEdges for Csr<N, E, Ty, Ix> {
    type Weight = E;

    fn to_csr(&self, weight: Option<&dyn Fn(&E) -> u32>) -> Result<Graph, wsdsl::Error> {
        let n = self.node_count();
        vertex_count(n)?;
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::new();
        let mut weights = Vec::new();
        offsets.push(0u32);
        for a in (0..n).map(Ix::new) {
            targets.extend(self.neighbors_slice(a).iter().map(|b| b.index() as u32));
            if let Some(w) = weight {
                weights.extend(self.edges_slice(a).iter().map(w));
            }
            let end = u32::try_from(targets.len()).map_err(|_| {
                wsdsl::Error::InvalidConfig(format!("the petgraph Csr has more than {} edges, but CSR offsets are 32-bit", u32::MAX))
            })?;
            offsets.push(end);
        }
        let weights = if weight.is_some() { Weights::Int(weights) } else { Weights::None };
        Ok(Graph::from_csr(offsets, targets, weights)?)
    }
}
