//! All of this crate's integration tests, as modules of one test binary.
//!
//! One binary per crate rather than one per file: each binary links the whole
//! dependency graph, and 73 of them filled CI's disk (3.5 GB of executables) and
//! spent most of the build linking. nextest still runs each test in its own process.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod hostile_files;
mod json_object_file;
mod load;
mod proptests;
