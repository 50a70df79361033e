//! [`ConfigError`]: what can stop tack from starting with its settings.

use std::path::PathBuf;

/// A settings problem. Every variant names the file (`--settings` for inline
/// JSON) and prints as one line; any error means no settings at all (tack does
/// not start with half a configuration).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid JSON (or not a JSON object).
    #[error("invalid settings in {}:{line}:{column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        /// 1-based.
        line: usize,
        /// 1-based.
        column: usize,
        message: String,
    },
    /// A known key has the wrong type or an invalid value. `key` is the path
    /// to it (`permissions.allow[2]`); the position is where the parser was
    /// when it noticed (the value, or just after it).
    #[error("invalid settings in {}:{line}:{column}: `{key}`: {message}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The file exists but cannot be read (a missing file is not an error,
    /// except a `--settings` file). The OS error is in the message and not a
    /// `source()`, so a printed error chain says it once.
    #[error("cannot read settings file {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The `apiKeyHelper` command failed, timed out or printed nothing.
    #[error("apiKeyHelper `{command}` {message}")]
    ApiKeyHelper { command: String, message: String },
    /// The `otelHeadersHelper` command failed or did not print a JSON object
    /// of strings (the message never holds what it printed).
    #[error("otelHeadersHelper `{command}` {message}")]
    OtelHeadersHelper { command: String, message: String },
}
