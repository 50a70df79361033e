//! All of this crate's integration tests, as modules of one test binary.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod enabled;
mod manifest;
mod plugin;
mod strict;
