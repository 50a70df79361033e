//! One line of a tasks file: what to ask, where, and the task's own limits.
//! SWE-bench's field names are accepted too (`instance_id`,
//! `problem_statement`, `base_commit`), so its dataset rows run as they are.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskLine {
    #[serde(alias = "instance_id")]
    id: String,
    #[serde(alias = "problem_statement")]
    prompt: String,
    cwd: Option<PathBuf>,
    repo: Option<String>,
    #[serde(alias = "base_commit")]
    commit: Option<String>,
    max_turns: Option<u32>,
    timeout_s: Option<f64>,
    model: Option<String>,
}

/// Where a task runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A folder: a worktree of its repository at HEAD (the task runs in the
    /// same subfolder of it), or, outside git, a copy.
    Dir(PathBuf),
    /// A repository (a path or a git URL) at a commit (default HEAD).
    Repo { repo: String, commit: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub id: String,
    pub prompt: String,
    pub source: Source,
    pub max_turns: Option<u32>,
    pub timeout_s: Option<f64>,
    pub model: Option<String>,
}

/// The longest line a tasks file may have. SWE-bench's longest problem
/// statements are tens of KiB; this leaves room for far larger prompts while
/// a file of one endless line is refused after reading this much, not held
/// in memory whole.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Reads a tasks file: one JSON object per line (blank lines skipped), each
/// at most [`MAX_LINE_BYTES`]. Any bad line is an error naming it; nothing
/// runs on a half-read file.
pub fn read_tasks(path: &Path) -> anyhow::Result<Vec<Task>> {
    let cannot = || format!("cannot read the tasks file {}", path.display());
    let mut reader = BufReader::new(std::fs::File::open(path).with_context(cannot)?);
    let base = path.parent().unwrap_or(Path::new("."));
    let mut seen = HashSet::new();
    let mut tasks = Vec::new();
    let mut bytes = Vec::new();
    for number in 1.. {
        let at = || format!("{} line {number}", path.display());
        bytes.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut bytes)
            .with_context(cannot)?;
        if read == 0 {
            break;
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        } else if read as u64 == limit {
            bail!(
                "{}: the line is longer than {} MiB, the most a task may have",
                at(),
                MAX_LINE_BYTES / (1024 * 1024)
            );
        }
        let line = std::str::from_utf8(&bytes)
            .map_err(|_| anyhow::anyhow!("{}: the line is not UTF-8", at()))?;
        if line.trim().is_empty() {
            continue;
        }
        let line: TaskLine = serde_json::from_str(line).with_context(at)?;
        let task = task_from(line, base).with_context(at)?;
        if !seen.insert(task.id.clone()) {
            bail!("{}: the id {:?} is used twice", at(), task.id);
        }
        tasks.push(task);
    }
    Ok(tasks)
}

fn task_from(line: TaskLine, base: &Path) -> anyhow::Result<Task> {
    check_id(&line.id)?;
    let source = match (line.cwd, line.repo) {
        (Some(_), Some(_)) => bail!("give `cwd` or `repo`, not both"),
        (cwd, None) => {
            if line.commit.is_some() {
                bail!("`commit` goes with `repo`");
            }
            Source::Dir(base.join(cwd.unwrap_or_else(|| PathBuf::from("."))))
        }
        (None, Some(repo)) => {
            let repo = if is_url(&repo) {
                repo
            } else {
                base.join(repo).to_string_lossy().into_owned()
            };
            let commit = line.commit.unwrap_or_else(|| "HEAD".to_owned());
            // It reaches git's command line: a leading `-` would be an option.
            if commit.starts_with('-') || commit.trim().is_empty() {
                bail!(
                    "`commit` {commit:?} is not a commit name (it may not be empty or start with `-`)"
                );
            }
            Source::Repo { repo, commit }
        }
    };
    if let Some(t) = line.timeout_s
        && !(t.is_finite() && t > 0.0)
    {
        bail!("`timeout_s` must be a positive number of seconds");
    }
    Ok(Task {
        id: line.id,
        prompt: line.prompt,
        source,
        max_turns: line.max_turns,
        timeout_s: line.timeout_s,
        model: line.model,
    })
}

/// An id names the task's folder and its line in the results: letters,
/// digits, `.`, `_`, `-` (SWE-bench's `owner__repo-123` fits).
fn check_id(id: &str) -> anyhow::Result<()> {
    if !tack_git::worktree::is_folder_name(id, 200) {
        bail!(
            "the id {id:?} must be 1-200 letters, digits, `.`, `_` or `-`, not starting with `.`"
        );
    }
    Ok(())
}

pub fn is_url(repo: &str) -> bool {
    repo.contains("://") || (repo.contains('@') && repo.contains(':'))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn read(text: &str) -> anyhow::Result<Vec<Task>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.jsonl");
        std::fs::write(&path, text).unwrap();
        read_tasks(&path).map(|tasks| {
            // Paths are made relative again so the expectation can be written.
            tasks
                .into_iter()
                .map(|mut t| {
                    if let Source::Dir(d) = &t.source {
                        t.source = Source::Dir(d.strip_prefix(dir.path()).unwrap().to_owned());
                    }
                    if let Source::Repo { repo, .. } = &mut t.source
                        && !is_url(repo)
                    {
                        *repo = Path::new(repo.as_str())
                            .strip_prefix(dir.path())
                            .unwrap()
                            .to_string_lossy()
                            .into_owned();
                    }
                    t
                })
                .collect()
        })
    }

    #[test]
    fn lines_of_both_shapes_are_read_relative_to_the_file() {
        let tasks = read(concat!(
            r#"{"id": "a-1", "prompt": "fix it", "cwd": "proj", "max_turns": 5, "timeout_s": 60}"#,
            "\n\n",
            r#"{"instance_id": "django__django-11099", "problem_statement": "p", "repo": "repos/django", "base_commit": "abc123", "model": "haiku"}"#,
            "\n",
            r#"{"id": "u", "prompt": "p", "repo": "https://example.com/x.git"}"#,
            "\n"
        ))
        .unwrap();
        assert_eq!(
            tasks,
            vec![
                Task {
                    id: "a-1".into(),
                    prompt: "fix it".into(),
                    source: Source::Dir("proj".into()),
                    max_turns: Some(5),
                    timeout_s: Some(60.0),
                    model: None,
                },
                Task {
                    id: "django__django-11099".into(),
                    prompt: "p".into(),
                    source: Source::Repo {
                        repo: "repos/django".into(),
                        commit: "abc123".into()
                    },
                    max_turns: None,
                    timeout_s: None,
                    model: Some("haiku".into()),
                },
                Task {
                    id: "u".into(),
                    prompt: "p".into(),
                    source: Source::Repo {
                        repo: "https://example.com/x.git".into(),
                        commit: "HEAD".into()
                    },
                    max_turns: None,
                    timeout_s: None,
                    model: None,
                },
            ]
        );
    }

    #[test]
    fn a_bad_line_is_an_error_naming_it() {
        let cases = [
            (
                r#"{"id": "a", "prompt": "p"}"#.to_owned() + "\n{not json",
                "line 2",
            ),
            (
                r#"{"id": "../x", "prompt": "p"}"#.to_owned(),
                "must be 1-200",
            ),
            (
                r#"{"id": "a", "prompt": "p", "cwd": ".", "repo": "r"}"#.to_owned(),
                "not both",
            ),
            (
                r#"{"id": "a", "prompt": "p", "commit": "x"}"#.to_owned(),
                "goes with `repo`",
            ),
            (
                r#"{"id": "a", "prompt": "p", "timeout_s": -1}"#.to_owned(),
                "positive",
            ),
            (
                r#"{"id": "a", "prompt": "p", "colour": 1}"#.to_owned(),
                "line 1",
            ),
            (
                r#"{"id": "a", "prompt": "p"}"#.to_owned() + "\n" + r#"{"id": "a", "prompt": "q"}"#,
                "used twice",
            ),
        ];
        for (text, expected) in cases {
            let err = format!("{:#}", read(&text).unwrap_err());
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
