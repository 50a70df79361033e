//! `@path` mentions: the project's files (ignore-aware walk) ranked by a fuzzy
//! matcher as the user types.

use std::path::Path;

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

/// The files and directories of a project, relative, `/`-separated,
/// directories ending in `/`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileIndex {
    paths: Vec<String>,
}

impl FileIndex {
    /// Walks `root` honouring `.gitignore`, `.ignore` and hidden files, stopping
    /// after `limit` entries (build it off the UI thread for big trees).
    pub fn build(root: &Path, limit: usize) -> FileIndex {
        let mut paths = Vec::new();
        for entry in ignore::WalkBuilder::new(root).build().flatten() {
            if paths.len() >= limit {
                break;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            if rel.as_os_str().is_empty() {
                continue;
            }
            let mut p = rel.to_string_lossy().replace('\\', "/");
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                p.push('/');
            }
            paths.push(p);
        }
        paths.sort();
        FileIndex { paths }
    }

    pub fn from_paths(paths: Vec<String>) -> FileIndex {
        FileIndex { paths }
    }

    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The best `limit` matches of `query`, best first; ties go to the shorter
    /// path. An empty query lists the shortest paths.
    pub fn rank(&self, query: &str, limit: usize) -> Vec<String> {
        if query.is_empty() {
            let mut all: Vec<&String> = self.paths.iter().collect();
            all.sort_by_key(|p| (p.len(), p.as_str()));
            return all.into_iter().take(limit).cloned().collect();
        }
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut matches = pattern.match_list(self.paths.iter(), &mut matcher);
        matches.sort_by(|(a, sa), (b, sb)| sb.cmp(sa).then(a.len().cmp(&b.len())).then(a.cmp(b)));
        matches
            .into_iter()
            .take(limit)
            .map(|(p, _)| p.clone())
            .collect()
    }
}

/// The mention being typed at `cursor`: the byte offset of its `@` and the
/// query after it. A mention starts a word and has no whitespace.
pub fn mention_at(text: &str, cursor: usize) -> Option<(usize, &str)> {
    let before = &text[..cursor];
    let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let word = &before[start..];
    word.strip_prefix('@').map(|q| (start, q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn finds_the_mention_under_the_cursor() {
        assert_eq!(mention_at("look at @src/ma", 15), Some((8, "src/ma")));
        assert_eq!(mention_at("@", 1), Some((0, "")));
        assert_eq!(mention_at("mail a@b", 8), None);
        assert_eq!(mention_at("@src done", 9), None);
    }

    #[test]
    fn ranks_fuzzy_matches_best_first() {
        let index = FileIndex::from_paths(
            [
                "README.md",
                "src/",
                "src/main.rs",
                "src/markdown/mod.rs",
                "tests/main_test.rs",
                "docs/maintenance.md",
            ]
            .map(String::from)
            .to_vec(),
        );
        assert_eq!(
            index.rank("main", 3),
            vec!["src/main.rs", "tests/main_test.rs", "docs/maintenance.md"]
        );
        assert_eq!(
            index.rank("smr", 2),
            vec!["src/main.rs", "src/markdown/mod.rs"]
        );
        assert_eq!(index.rank("", 2), vec!["src/", "README.md"]);
    }

    #[test]
    fn walk_honours_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join("target/out.bin"), "x").unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "x").unwrap();
        let index = FileIndex::build(root, 100);
        assert_eq!(index.paths(), ["src/", "src/lib.rs"]);
    }
}
