//! Finding and reading command files: one warning per file that cannot be
//! read or whose frontmatter is bad; the others load.

use std::fs::FileType;
use std::path::{Path, PathBuf};

use super::{CommandScope, CustomCommand, CustomCommands};
use crate::frontmatter::read_markdown;
use crate::plugins::PluginPaths;

/// How deep folders under a commands folder are read (`a/b/c.md` is `a:b:c`).
const MAX_DEPTH: usize = 8;

/// Where commands are looked for.
#[derive(Debug, Clone)]
pub struct CommandDirs {
    /// The project root (`.claude/commands`); `None` when `--setting-sources`
    /// leaves the project level out.
    pub project: Option<PathBuf>,
    /// The user's home (`~/.claude/commands`).
    pub home: Option<PathBuf>,
    /// tack's config dir (`<config dir>/commands`): the user's too.
    pub config_dir: PathBuf,
    /// The project is trusted. An untrusted project's commands load (a
    /// template runs no code) without their `allowed-tools`, which would
    /// loosen permissions, and without running their `` !`cmd` `` lines.
    pub trusted: bool,
    /// The session's plugins' command folders and files
    /// (`/plugin:command`), below the project's and the user's.
    pub plugins: Vec<PluginPaths>,
}

/// The commands of `dirs`, sorted by name: a project command hides a user
/// command of the same name. Also one warning line per file skipped or
/// trimmed.
pub fn load_commands(dirs: &CommandDirs) -> (CustomCommands, Vec<String>) {
    let mut folders: Vec<(PathBuf, CommandScope)> = dirs
        .project
        .iter()
        .map(|p| (p.join(".claude/commands"), CommandScope::Project))
        .collect();
    if let Some(home) = &dirs.home {
        folders.push((home.join(".claude/commands"), CommandScope::User));
    }
    folders.push((dirs.config_dir.join("commands"), CommandScope::User));
    let mut found_in: Vec<(Vec<(String, PathBuf)>, CommandScope)> = folders
        .into_iter()
        .map(|(folder, scope)| {
            let mut found = Vec::new();
            collect(&folder, &folder, 0, &mut found);
            found.sort();
            (found, scope)
        })
        .collect();
    for plugin in &dirs.plugins {
        found_in.push((plugin_commands(plugin), CommandScope::Plugin));
    }
    let mut commands: Vec<CustomCommand> = Vec::new();
    let mut warnings = Vec::new();
    for (found, scope) in found_in {
        for (name, path) in found {
            if commands.iter().any(|c| c.name == name) {
                continue;
            }
            match read_command(&path, name, scope) {
                Ok(mut command) => {
                    if scope == CommandScope::Project
                        && !dirs.trusted
                        && !command.allowed_tools.is_empty()
                    {
                        warnings.push(format!(
                            "warning: {}: allowed-tools ignored until the project is trusted (tack trust)",
                            path.display()
                        ));
                        command.allowed_tools.clear();
                    }
                    command.runs_shell = scope != CommandScope::Project || dirs.trusted;
                    commands.push(command);
                }
                Err(message) => warnings.push(format!(
                    "warning: {}: {message}; command skipped",
                    path.display()
                )),
            }
        }
    }
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    (CustomCommands(commands), warnings)
}

/// A plugin's commands as (`plugin:name`, path): the `*.md` files of its
/// folders (`a/b.md` is `plugin:a:b`) and the files its manifest names.
fn plugin_commands(plugin: &PluginPaths) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for path in &plugin.paths {
        if path.is_dir() {
            collect(path, path, 0, &mut found);
        } else if let Some(stem) = path.file_stem().filter(|_| path.is_file()) {
            found.push((stem.to_string_lossy().into_owned(), path.clone()));
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|(name, path)| (format!("{}:{name}", plugin.plugin), path))
        .collect()
}

/// The `*.md` files under `dir` as (name, path). Symlinked folders are not
/// followed (no loops); only regular files are read (a FIFO would block).
fn collect(root: &Path, dir: &Path, depth: usize, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                collect(root, &path, depth + 1, out);
            }
        } else if path.extension().is_some_and(|e| e == "md")
            && is_regular_file(kind, &path)
            && let Ok(rel) = path.with_extension("").strip_prefix(root)
        {
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(":");
            out.push((name, path));
        }
    }
}

fn is_regular_file(kind: FileType, path: &Path) -> bool {
    kind.is_file() || (kind.is_symlink() && path.metadata().is_ok_and(|m| m.is_file()))
}

fn read_command(path: &Path, name: String, scope: CommandScope) -> Result<CustomCommand, String> {
    let (front, body) = read_markdown(path)?;
    Ok(CustomCommand {
        name,
        scope,
        description: front.description,
        argument_hint: front.argument_hint,
        allowed_tools: front.allowed_tools,
        model: front.model,
        body,
        path: path.to_path_buf(),
        runs_shell: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn symlink_loops_and_fifos_are_not_followed_or_read() {
        let project = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        let root = project.path().join(".claude/commands");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/ok.md"), "fine\n").unwrap();
        std::os::unix::fs::symlink(&root, root.join("a/loop")).unwrap();
        std::os::unix::fs::symlink(root.join("a/ok.md"), root.join("linked.md")).unwrap();
        let fifo = root.join("fifo.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let (commands, warnings) = load_commands(&CommandDirs {
            project: Some(project.path().to_path_buf()),
            home: None,
            config_dir: config.path().to_path_buf(),
            trusted: true,
            plugins: vec![],
        });
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a:ok", "linked"]);
        assert_eq!(warnings, Vec::<String>::new());
    }
}
