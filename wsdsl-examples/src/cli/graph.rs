//! The graph every graph example reads or generates: a file (SNAP edge list, Matrix Market,
//! DIMACS `.gr`, optionally gzipped) or one of the generated classes: Graph500-style R-MAT
//! (skewed degrees), a 2-D grid (long diameter), a random geometric graph (road-like) or a
//! uniform random graph. Used by `examples/{bfs,sssp,cc,pagerank}.rs`.

use std::path::PathBuf;
use std::time::Instant;
use wsdsl::graph::{Geometric, Graph, GraphCache, GraphOptions, Grid, Loaded, Rmat, Uniform};

#[derive(clap::Args)]
#[group(skip)]
pub struct GraphArgs {
    /// Graph file: a SNAP edge list, Matrix Market (.mtx) or DIMACS (.gr), optionally .gz.
    #[arg(group = "graph_source")]
    pub file: Option<PathBuf>,
    /// Generate an R-MAT graph with 2^SCALE vertices instead of reading a file.
    #[arg(long, value_name = "SCALE", group = "graph_source")]
    pub rmat: Option<u32>,
    /// Generate a ROWSxCOLUMNS grid (4 neighbours each, undirected), e.g. 2048x2048.
    #[arg(long, value_name = "ROWSxCOLUMNS", value_parser = parse_grid, group = "graph_source")]
    pub grid: Option<(u32, u32)>,
    /// Generate a random geometric graph of N vertices (points in the unit square joined
    /// within a radius; undirected, road-like, weights proportional to length).
    #[arg(long, value_name = "N", group = "graph_source")]
    pub geometric: Option<u32>,
    /// Generate a uniform random graph of N vertices (Erdős–Rényi; undirected).
    #[arg(long, value_name = "N", group = "graph_source")]
    pub uniform: Option<u32>,
    /// Directed edges per vertex of the R-MAT graph (default 16).
    #[arg(long)]
    pub edge_factor: Option<u32>,
    /// Average degree of the geometric (default 8) or uniform (default 16) graph.
    #[arg(long)]
    pub degree: Option<f64>,
    /// Probability that each edge of the grid is left out (default 0).
    #[arg(long)]
    pub delete: Option<f64>,
    /// Seed of the generated graph.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Add the reverse of every edge (an undirected graph; the grid, geometric and uniform
    /// graphs are undirected already).
    #[arg(long)]
    pub symmetrize: bool,
}

/// `2048x2048` as (rows, columns).
fn parse_grid(text: &str) -> Result<(u32, u32), String> {
    let (rows, columns) = text.split_once(['x', 'X']).ok_or_else(|| format!("`{text}` is not ROWSxCOLUMNS (e.g. 2048x2048)"))?;
    let side = |s: &str| s.trim().parse::<u32>().map_err(|e| format!("`{s}` in `{text}`: {e}"));
    Ok((side(rows)?, side(columns)?))
}

impl GraphArgs {
    /// The graph asked for (self-loops and duplicate edges removed), and a line saying what it is.
    /// With no file and no generator, the p2p-Gnutella31 graph in `data/graphs`. A file is read
    /// through the binary cache of parsed graphs (`wsdsl::graph::GraphCache`). `weighted`:
    /// a generated graph gets weights (1..=255; by length for the geometric graph).
    pub fn load(&self, weighted: bool, symmetrize: bool) -> Result<(Graph, String), wsdsl::Error> {
        let opts = GraphOptions { symmetrize: symmetrize || self.symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: false };
        self.check_options()?;
        let started = Instant::now();
        let seed = self.seed;
        let (graph, name) = if let Some(scale) = self.rmat {
            let edge_factor = self.edge_factor.unwrap_or(16);
            let g = Rmat { scale, edge_factor, seed, weighted }.generate(&opts)?;
            (g, format!("R-MAT scale {scale}, edge factor {edge_factor}, seed {seed}"))
        } else if let Some((rows, columns)) = self.grid {
            let delete = self.delete.unwrap_or(0.0);
            let g = Grid { rows, columns, delete, seed, weighted }.generate()?;
            let holes = if delete > 0.0 { format!(", edges deleted with probability {delete}") } else { String::new() };
            (g, format!("grid {rows} x {columns}{holes}, seed {seed}"))
        } else if let Some(vertices) = self.geometric {
            let degree = self.degree.unwrap_or(8.0);
            let g = Geometric { vertices, degree, seed, weighted }.generate()?;
            (g, format!("random geometric graph of {vertices} vertices, average degree {degree}, seed {seed}"))
        } else if let Some(vertices) = self.uniform {
            let degree = self.degree.unwrap_or(16.0);
            if degree < 0.0 || degree.fract() != 0.0 || degree > f64::from(u32::MAX) {
                return Err(wsdsl::Error::InvalidConfig(format!("--degree {degree}: the uniform graph's degree is a whole number")));
            }
            let g = Uniform { vertices, degree: degree as u32, seed, weighted }.generate()?;
            (g, format!("uniform random graph of {vertices} vertices, average degree {degree}, seed {seed}"))
        } else {
            let path = self.file_read().unwrap_or_else(default_graph);
            // The second read of a file loads the CSR the first one parsed.
            let (graph, loaded) = GraphCache::from_env().read(&path, &opts)?;
            let how = if loaded == Loaded::Cached { ", from the binary cache" } else { ", parsed" };
            (graph, format!("{}{how}", path.display()))
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

    /// The file `load` reads (the named one, else p2p-Gnutella31), or `None` when it
    /// generates the graph.
    pub fn file_read(&self) -> Option<PathBuf> {
        let generated = self.rmat.is_some() || self.grid.is_some() || self.geometric.is_some() || self.uniform.is_some();
        (!generated).then(|| self.file.clone().unwrap_or_else(default_graph))
    }

    /// A generator's option given without its generator would be ignored: refuse it instead.
    fn check_options(&self) -> Result<(), wsdsl::Error> {
        let unused = |option: &str, generators: &str| {
            Err(wsdsl::Error::InvalidConfig(format!("{option} applies to {generators} only, and no such graph was asked for")))
        };
        if self.edge_factor.is_some() && self.rmat.is_none() {
            return unused("--edge-factor", "--rmat");
        }
        if self.delete.is_some() && self.grid.is_none() {
            return unused("--delete", "--grid");
        }
        if self.degree.is_some() && self.geometric.is_none() && self.uniform.is_none() {
            return unused("--degree", "--geometric and --uniform");
        }
        Ok(())
    }
}

/// SNAP's p2p-Gnutella31 (62,586 vertices, 147,892 edges), shipped gzipped with the repository
/// (in the workspace's `data/graphs`, beside this crate's directory).
pub fn default_graph() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/graphs/p2p-Gnutella31.txt.gz"))
}
