//! Every integration test of the facade crate in one test binary (one link instead of one per
//! file; `cargo test --test integration <module>::` runs one file's tests). The compile-fail
//! cases stay in `tests/ui.rs`, which trybuild drives; README's programs are doc tests.

mod schedulers;

mod buffer_constructors;
mod connect4_cpu;
mod continuations;
mod cooperative;
mod deep_nesting;
mod differential_gpu;
mod emulated_schedulers;
mod examples_cpu;
mod examples_emulated;
mod forward_progress;
mod graph_cache;
mod graph_input;
mod graph_library;
mod graph_library_emulated;
mod graphs_cpu;
mod graphs_emulated;
mod joins;
mod multi_gpu_emulated;
mod names;
mod nvrtc_compile;
mod octree_cpu;
mod ordered;
mod panics;
mod parallel;
mod recursion;
mod reliability;
mod rust_subset;
mod schedule_attr;
mod spread;
mod values;
