//! All of this crate's integration tests, as modules of one test binary.
//!
//! One binary per crate rather than one per file: each binary links the whole
//! dependency graph, and 73 of them filled CI's disk (3.5 GB of executables) and
//! spent most of the build linking. nextest still runs each test in its own process.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod bash;
mod bash_memory;
mod common;
mod crash;
mod file_tools;
mod lsp_servers;
mod misc;
mod monitor;
mod notebook_edit;
mod proptests;
mod registered_tasks;
mod search;
mod tasks_concurrency;
mod tasks_store;
mod tasks_tools;
