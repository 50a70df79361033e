//! Output styles, as Claude Code has them: the built-ins (Default,
//! Explanatory, Learning, Proactive, Concise) and markdown files in
//! `output-styles/` folders (the user's, and a trusted project's
//! `.claude/output-styles`). The `outputStyle` setting picks one by name;
//! anything but Default changes the system prompt (tack-core's
//! `OutputStylePrompt`) and each prompt carries a short reminder of it.
//!
//! Only the folders' file names and frontmatter are read at start; a session
//! without such folders reads nothing.

mod builtin;
mod load;

use std::path::PathBuf;

use tack_core::context::OutputStylePrompt;

pub use load::{StyleDirs, load_output_styles};

/// The style a session has when none is set.
pub const DEFAULT_STYLE: &str = "default";

/// Where a style comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StyleSource {
    Builtin,
    User,
    Project,
    /// A plugin's `output-styles/`, named `plugin:style`.
    Plugin(String),
}

/// One output style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputStyle {
    pub name: String,
    pub description: String,
    /// Its instructions; empty for Default.
    pub prompt: String,
    pub keep_coding_instructions: bool,
    pub source: StyleSource,
    /// The file it was read from (none for a built-in).
    pub path: Option<PathBuf>,
}

/// The output styles a session can pick and the one it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Styles {
    pub all: OutputStyles,
    pub active: OutputStyle,
    /// The name `outputStyle` gives, as Claude Code reports it in
    /// `system/init` even when no such style exists (the default applies).
    pub named: String,
}

/// Every style a session can pick, built-ins first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputStyles(pub Vec<OutputStyle>);

impl OutputStyles {
    /// The built-ins alone.
    pub fn builtin() -> OutputStyles {
        OutputStyles(builtin::styles())
    }

    /// The style named `name` (case-insensitively, as `explanatory` picks
    /// Explanatory).
    pub fn get(&self, name: &str) -> Option<&OutputStyle> {
        self.0.iter().find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// Every style's name, for the SDK's `available_output_styles`.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|s| s.name.clone()).collect()
    }

    /// These styles with the one `wanted` names (`outputStyle`; `None`: the
    /// default) active. An unknown name is a warning and the default style,
    /// still reported by that name.
    pub fn choose(self, wanted: Option<&str>) -> (Styles, Option<String>) {
        let wanted = wanted.unwrap_or(DEFAULT_STYLE);
        let (active, named, warning) = match self.get(wanted) {
            Some(style) => (style.clone(), style.name.clone(), None),
            None => (
                OutputStyle::default_style(),
                wanted.to_owned(),
                Some(format!(
                    "warning: outputStyle `{wanted}`: no such output style; using the default"
                )),
            ),
        };
        let styles = Styles {
            all: self,
            active,
            named,
        };
        (styles, warning)
    }
}

impl OutputStyle {
    /// What the style adds to the system prompt; none for Default.
    pub fn system_prompt(&self) -> Option<OutputStylePrompt> {
        (self.source != StyleSource::Builtin || self.name != DEFAULT_STYLE).then(|| {
            OutputStylePrompt {
                name: self.name.clone(),
                prompt: self.prompt.clone(),
                keep_coding_instructions: self.keep_coding_instructions,
            }
        })
    }

    /// The reminder each prompt carries (in a `<system-reminder>`) while the style is on (Claude Code
    /// reminds the model every turn, so a long session keeps the voice).
    pub fn reminder(&self) -> Option<String> {
        self.system_prompt().map(|_| {
            format!(
                "{} output style is active. Remember to follow the specific guidelines \
                 for this style.",
                self.name
            )
        })
    }
}
