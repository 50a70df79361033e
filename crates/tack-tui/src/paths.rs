//! Paths as the UI shows them: relative to the project inside it, with `~`
//! under the home folder, as they are elsewhere (as Claude Code shows them).
//! Only what is shown changes: the runtime gets and keeps the paths as
//! the model wrote them.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// Input fields that hold a path, by tool.
const PATH_FIELDS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// Where the session runs, for showing paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownPaths {
    project: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl ShownPaths {
    pub fn new(project: Option<PathBuf>, home: Option<PathBuf>) -> ShownPaths {
        ShownPaths { project, home }
    }

    /// `path` relative to the project when it is inside it (`.` for the
    /// project itself), else with `~` for the home folder, else as it is. A
    /// path that climbs out (`..`) is never shortened: it would not read as
    /// where it leads.
    pub fn show(&self, path: &str) -> String {
        let p = Path::new(path);
        if !p.is_absolute() || p.components().any(|c| c == Component::ParentDir) {
            return path.to_owned();
        }
        if let Some(rest) = self.project.as_deref().and_then(|d| p.strip_prefix(d).ok()) {
            return match rest.as_os_str().is_empty() {
                true => ".".to_owned(),
                false => rest.display().to_string(),
            };
        }
        self.with_tilde(path)
    }

    /// `path` with `~` for the home folder (a folder's name: the welcome
    /// line's cwd).
    pub fn with_tilde(&self, path: &str) -> String {
        let p = Path::new(path);
        match self.home.as_deref().and_then(|h| p.strip_prefix(h).ok()) {
            Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
            Some(rest) => format!("~/{}", rest.display()),
            None => path.to_owned(),
        }
    }

    /// The project's directory as a dialog names it (with `~`).
    pub fn project_shown(&self) -> Option<String> {
        let dir = self.project.as_deref()?;
        Some(self.with_tilde(&dir.display().to_string()))
    }

    /// A tool call's input as the UI shows it: its path fields (and Glob's
    /// pattern) shortened.
    pub fn input(&self, tool: &str, input: &Value) -> Value {
        let mut shown = input.clone();
        if let Value::Object(map) = &mut shown {
            let glob = (tool == "Glob").then_some("pattern");
            for key in PATH_FIELDS.into_iter().chain(glob) {
                if let Some(Value::String(path)) = map.get_mut(key) {
                    *path = self.show(path);
                }
            }
        }
        shown
    }

    /// A tool's result as the UI shows it: Glob's and Grep's lines that
    /// start with a path of the project, relative.
    pub fn result(&self, tool: &str, content: &str) -> String {
        let Some(project) = self
            .project
            .as_deref()
            .filter(|_| matches!(tool, "Glob" | "Grep"))
        else {
            return content.to_owned();
        };
        let prefix = format!("{}/", project.display());
        content
            .split('\n')
            .map(|line| line.strip_prefix(&prefix).unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn paths() -> ShownPaths {
        ShownPaths::new(
            Some(PathBuf::from("/home/ana/shop")),
            Some(PathBuf::from("/home/ana")),
        )
    }

    #[test]
    fn inside_relative_under_home_with_a_tilde_elsewhere_as_is() {
        let p = paths();
        let shown: Vec<String> = [
            "/home/ana/shop/src/main.rs",
            "/home/ana/shop",
            "/home/ana/shopping/list.txt",
            "/home/ana/.bashrc",
            "/home/ana",
            "/etc/hosts",
            "/home/ana/shop/../secrets",
            "src/lib.rs",
        ]
        .iter()
        .map(|path| p.show(path))
        .collect();
        assert_eq!(
            shown,
            [
                "src/main.rs",
                ".",
                "~/shopping/list.txt",
                "~/.bashrc",
                "~",
                "/etc/hosts",
                "/home/ana/shop/../secrets",
                "src/lib.rs",
            ]
        );
        assert_eq!(ShownPaths::default().show("/a/b"), "/a/b");
    }

    #[test]
    fn inputs_and_results_shortened() {
        let p = paths();
        assert_eq!(
            p.input(
                "Edit",
                &json!({"file_path": "/home/ana/shop/a.rs", "old_string": "/home/ana/shop/x"})
            ),
            json!({"file_path": "a.rs", "old_string": "/home/ana/shop/x"})
        );
        assert_eq!(
            p.input(
                "Grep",
                &json!({"pattern": "/home/ana/shop", "path": "/home/ana/shop/src"})
            ),
            json!({"pattern": "/home/ana/shop", "path": "src"})
        );
        assert_eq!(
            p.input("Glob", &json!({"pattern": "/home/ana/shop/**/*.rs"})),
            json!({"pattern": "**/*.rs"})
        );
        assert_eq!(
            p.result(
                "Grep",
                "/home/ana/shop/a.rs:3:fn a\n/home/ana/other.rs:1:fn b"
            ),
            "a.rs:3:fn a\n/home/ana/other.rs:1:fn b"
        );
        assert_eq!(
            p.result("Bash", "/home/ana/shop/a.rs"),
            "/home/ana/shop/a.rs"
        );
    }
}
