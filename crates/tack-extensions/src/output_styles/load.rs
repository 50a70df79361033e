//! Reading output style files: `<folder>/*.md`, frontmatter `name`,
//! `description`, `keep-coding-instructions`; the body is the instructions.
//! A file that cannot be used is a warning naming it; the others load.

use std::path::{Path, PathBuf};

use super::{OutputStyle, OutputStyles, StyleSource};
use crate::frontmatter::read_markdown;

/// Where output styles are looked for.
#[derive(Debug, Clone, Default)]
pub struct StyleDirs {
    /// The user's folders (`<Claude user dir>/output-styles`, tack's
    /// `<config dir>/output-styles`).
    pub user: Vec<PathBuf>,
    /// The project's `.claude/output-styles`.
    pub project: PathBuf,
    /// The project is trusted: an untrusted project's styles are not loaded
    /// (a style rewrites the system prompt).
    pub trusted: bool,
    /// Plugins' style files and folders, each with its plugin's name.
    pub plugins: Vec<(String, PathBuf)>,
}

/// The built-ins, then the user's, the project's and the plugins' styles.
/// A name already taken (a built-in's, or the user's over the project's) is
/// skipped with a warning. Also the warnings for files that could not be read.
pub fn load_output_styles(dirs: &StyleDirs) -> (OutputStyles, Vec<String>) {
    let mut styles = OutputStyles::builtin();
    let mut warnings = Vec::new();
    let mut sources: Vec<(PathBuf, StyleSource)> = dirs
        .user
        .iter()
        .map(|d| (d.clone(), StyleSource::User))
        .collect();
    if dirs.trusted {
        sources.push((dirs.project.clone(), StyleSource::Project));
    } else if dirs.project.is_dir() {
        warnings.push(format!(
            "warning: {}: project output styles not loaded until the project is trusted (tack trust)",
            dirs.project.display()
        ));
    }
    for (plugin, path) in &dirs.plugins {
        sources.push((path.clone(), StyleSource::Plugin(plugin.clone())));
    }
    for (folder, source) in sources {
        for file in style_files(&folder) {
            match read_style(&file, source.clone()) {
                Ok(style) if styles.get(&style.name).is_some() => warnings.push(format!(
                    "warning: {}: output style `{}` is already defined; skipped",
                    file.display(),
                    style.name
                )),
                Ok(style) => styles.0.push(style),
                Err(message) => warnings.push(format!(
                    "warning: {}: {message}; output style skipped",
                    file.display()
                )),
            }
        }
    }
    (styles, warnings)
}

/// `folder`'s `*.md` files, sorted (a file path is itself).
fn style_files(folder: &Path) -> Vec<PathBuf> {
    if folder.is_file() {
        return vec![folder.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

fn read_style(path: &Path, source: StyleSource) -> Result<OutputStyle, String> {
    let (front, body) = read_markdown(path)?;
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = front.name.unwrap_or(stem);
    if base.trim().is_empty() || base.chars().any(char::is_control) {
        return Err(format!("`{base}` is not a style name"));
    }
    let name = match &source {
        StyleSource::Plugin(plugin) => format!("{plugin}:{base}"),
        _ => base,
    };
    Ok(OutputStyle {
        name,
        description: front.description.unwrap_or_default(),
        prompt: body.trim().to_owned(),
        keep_coding_instructions: front.keep_coding_instructions.unwrap_or(false),
        source,
        path: Some(path.to_path_buf()),
    })
}
