//! From a program to a loadable kernel: the megakernel's source assembled from the template
//! library and the program's fragments (`assemble.rs`), compiled by NVRTC into the disk
//! cache (`compile.rs`), loaded on a device (`module.rs`), with the libraries it needs found
//! first (`libs.rs`) and the compiled image read where the runtime needs to know what it holds
//! (`elf.rs`).

pub mod assemble;
pub mod compile;
pub mod elf;
pub mod libs;
pub(crate) mod module;
