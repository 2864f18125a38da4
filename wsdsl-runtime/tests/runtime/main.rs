//! The runtime crate's integration tests in one test binary (one link instead of one per
//! file; `cargo test -p wsdsl-runtime --test runtime <module>::` runs one file's tests).

mod abi;
mod graph_input;
mod handwritten_program;
mod nvshmem_link;
mod queue_hammer;
