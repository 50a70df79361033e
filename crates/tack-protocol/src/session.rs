//! A stored session as a listing shows it (`/resume`, `--resume` errors).

use std::path::PathBuf;
use std::time::SystemTime;

/// One session of a project directory, for listings and `--continue`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub session_id: String,
    pub path: PathBuf,
    pub modified: SystemTime,
    /// The first user prompt, shortened to one line.
    pub first_prompt: Option<String>,
}

impl SessionSummary {
    pub fn modified_display(&self) -> String {
        humantime::format_rfc3339_seconds(self.modified).to_string()
    }

    pub fn preview(&self) -> &str {
        self.first_prompt.as_deref().unwrap_or("(no prompt)")
    }
}
