//! `@path` in a prompt: the mentioned files' contents go with it, so the model
//! does not need a Read for what the user pointed at (as in Claude Code).

use std::path::Path;

/// Files attached per prompt, at most.
const MAX_FILES: usize = 10;
/// Larger files are not attached (the model can Read them in parts).
const MAX_BYTES: u64 = 256 * 1024;

/// A text block per file `prompt` mentions with `@path` (relative to `cwd`,
/// or absolute) that exists, is small enough and is text.
pub fn attachments(prompt: &str, cwd: &Path) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches([',', '.', ';', ':', ')', '!', '?', '"', '\'']);
        if path.is_empty() || seen.contains(&path) || out.len() == MAX_FILES {
            continue;
        }
        seen.push(path);
        let full = cwd.join(path);
        let Ok(meta) = std::fs::metadata(&full) else {
            continue;
        };
        if !meta.is_file() || meta.len() > MAX_BYTES {
            continue;
        }
        let Ok(content) = std::fs::read_to_string(&full) else {
            continue;
        };
        out.push(format!(
            "<system-reminder>\nThe user mentioned @{path}; its contents:\n{content}\n</system-reminder>"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn mentioned_text_files_are_attached_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn a() {}\n").unwrap();
        std::fs::write(dir.path().join("bin.dat"), [0xff, 0xfe, 0x00]).unwrap();
        let prompt = "look at @src/lib.rs, and @src/lib.rs again; not @src/ or @missing.rs or @bin.dat or me@example";
        assert_eq!(
            attachments(prompt, dir.path()),
            vec![
                "<system-reminder>\nThe user mentioned @src/lib.rs; its contents:\npub fn a() {}\n\n</system-reminder>"
                    .to_owned()
            ]
        );
        assert_eq!(attachments("no mentions", dir.path()), Vec::<String>::new());
    }
}
