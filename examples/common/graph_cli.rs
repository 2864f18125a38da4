//! The graph every graph example reads or generates: a file (SNAP edge list, Matrix Market,
//! DIMACS `.gr`, optionally gzipped) or a Graph500-style R-MAT graph. Included by
//! `examples/{bfs,sssp,cc,pagerank}/main.rs`.

use std::path::PathBuf;
use std::time::Instant;
use wsdsl::graph::{Graph, GraphOptions, Rmat};

#[derive(clap::Args)]
pub struct GraphArgs {
    /// Graph file: a SNAP edge list, Matrix Market (.mtx) or DIMACS (.gr), optionally .gz.
    #[arg(conflicts_with = "rmat")]
    pub file: Option<PathBuf>,
    /// Generate an R-MAT graph with 2^SCALE vertices instead of reading a file.
    #[arg(long, value_name = "SCALE")]
    pub rmat: Option<u32>,
    /// Directed edges per vertex of the R-MAT graph.
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u32,
    /// Seed of the R-MAT graph.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Add the reverse of every edge (an undirected graph).
    #[arg(long)]
    pub symmetrize: bool,
}

impl GraphArgs {
    /// The graph asked for (self-loops and duplicate edges removed), and a line saying what it is.
    /// With neither a file nor `--rmat`, the p2p-Gnutella31 graph in `data/graphs`.
    pub fn load(&self, weighted: bool, symmetrize: bool) -> Result<(Graph, String), wsdsl::Error> {
        let opts = GraphOptions { symmetrize: symmetrize || self.symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: false };
        let started = Instant::now();
        let (graph, name) = match (self.rmat, &self.file) {
            (Some(scale), _) => {
                let g = Rmat { scale, edge_factor: self.edge_factor, seed: self.seed, weighted }.generate(&opts)?;
                (g, format!("R-MAT scale {scale}, edge factor {}, seed {}", self.edge_factor, self.seed))
            }
            (None, file) => {
                let path = file.clone().unwrap_or_else(default_graph);
                (wsdsl::graph::read(&path, &opts)?, path.display().to_string())
            }
        };
        let what = format!(
            "{name}{}: {} vertices, {} edges, largest degree {} (loaded in {:.0} ms)",
            if opts.symmetrize { ", symmetrised" } else { "" },
            graph.vertices(),
            graph.edges(),
            graph.max_degree(),
            started.elapsed().as_secs_f64() * 1e3
        );
        Ok((graph, what))
    }
}

/// SNAP's p2p-Gnutella31 (62,586 vertices, 147,892 edges), shipped gzipped with the repository.
pub fn default_graph() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data/graphs/p2p-Gnutella31.txt.gz"))
}
