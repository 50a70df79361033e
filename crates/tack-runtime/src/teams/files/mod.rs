//! Claude Code's agent-team files, read and written in its place and shape,
//! with no runtime type in sight (so this module can move to a crate of its
//! own): a team's `config.json` ([`config`]), one inbox per agent
//! ([`inbox`]), the JSON a protocol message carries inside an inbox
//! message's `text` ([`structured`]), the names that become file names
//! ([`names`]) and where all of it lives ([`place`]).
//!
//! Every write is atomic (a temporary file renamed over the old one) and made
//! under an exclusive `flock` of the folder that holds the file, so two
//! processes appending to one inbox never lose a message; every read is
//! bounded (regular files only, size capped), and a torn or hostile file is
//! a [`TeamFileError`] naming it, never a panic. Keys tack does not know are
//! kept as they were.

pub mod config;
pub mod error;
pub mod inbox;
mod io;
pub mod names;
pub mod place;
pub mod sessions;
pub mod structured;

pub use error::TeamFileError;
