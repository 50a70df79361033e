//! Read, Write, Edit and MultiEdit against a real temp directory.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime};

use common::{Session, read_to_string};
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::{ContentBlock, ImageSource, ToolResultContent};

const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";
const MODIFIED: &str = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

// ---------------------------------------------------------------- Read

#[tokio::test]
async fn read_numbers_lines_like_cat_n() {
    let s = Session::new();
    s.write("a.txt", "first\nsecond\n\nfourth");
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("a.txt")})).await,
        "1\tfirst\n2\tsecond\n3\t\n4\tfourth\n"
    );
}

#[tokio::test]
async fn read_shows_unicode_and_crlf_files_without_carriage_returns() {
    let s = Session::new();
    s.write("u.txt", "héllo 世界 🎉\r\nzweite Zeile\r\n");
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("u.txt")})).await,
        "1\théllo 世界 🎉\n2\tzweite Zeile\n"
    );
}

#[tokio::test]
async fn read_offset_and_limit() {
    let s = Session::new();
    let body: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    s.write("ten.txt", body);
    assert_eq!(
        s.ok(
            "Read",
            json!({"file_path": s.p("ten.txt"), "offset": 3, "limit": 2})
        )
        .await,
        "3\tline 3\n4\tline 4\n\n[Showing lines 3-4 of 10. Use offset and limit to read more.]"
    );
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("ten.txt"), "offset": 9}))
            .await,
        "9\tline 9\n10\tline 10\n"
    );
}

#[tokio::test]
async fn read_defaults_to_2000_lines() {
    let s = Session::new();
    s.write(
        "long.txt",
        (1..=2500).map(|i| format!("{i}\n")).collect::<String>(),
    );
    let out = s.ok("Read", json!({"file_path": s.p("long.txt")})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1999], "2000\t2000");
    assert_eq!(
        lines.last().copied(),
        Some("[Showing lines 1-2000 of 2500. Use offset and limit to read more.]")
    );
    assert_eq!(lines.len(), 2002);
}

#[tokio::test]
async fn read_cuts_long_lines() {
    let s = Session::new();
    s.write("wide.txt", format!("{}\nshort\n", "é".repeat(3000)));
    let out = s.ok("Read", json!({"file_path": s.p("wide.txt")})).await;
    assert_eq!(
        out,
        format!("1\t{}… [line truncated]\n2\tshort\n", "é".repeat(2000))
    );
}

#[tokio::test]
async fn read_over_the_size_cap_gives_a_partial_view_or_an_error() {
    let s = Session::new();
    let line = "x".repeat(99);
    s.write("big.txt", format!("{line}\n").repeat(1500)); // 150,000 bytes in 1500 lines
    let out = s.ok("Read", json!({"file_path": s.p("big.txt")})).await;
    let last = out.lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("[PARTIAL view: lines 1-"), "{last}");
    assert!(out.len() < 101_000, "{}", out.len());
    // A partial view is not enough to overwrite the file.
    assert_eq!(
        s.err(
            "Write",
            json!({"file_path": s.p("big.txt"), "content": "x"})
        )
        .await,
        NOT_READ
    );

    let err = s
        .err(
            "Read",
            json!({"file_path": s.p("big.txt"), "offset": 1, "limit": 1500}),
        )
        .await;
    assert_eq!(
        err,
        "File content (40125 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
    );
}

#[tokio::test]
async fn read_empty_file_and_offset_past_end() {
    let s = Session::new();
    s.write("empty.txt", "");
    s.write("three.txt", "a\nb\nc\n");
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("empty.txt")})).await,
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
    );
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("three.txt"), "offset": 10}))
            .await,
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 3 lines.</system-reminder>"
    );
}

#[tokio::test]
async fn read_refuses_missing_files_directories_and_binaries() {
    let s = Session::new();
    assert_eq!(
        s.err("Read", json!({"file_path": s.p("nope.txt")})).await,
        format!(
            "File does not exist. Current working directory: {}",
            s.root.display()
        )
    );
    std::fs::create_dir(s.path("dir")).unwrap();
    assert_eq!(
        s.err("Read", json!({"file_path": s.p("dir")})).await,
        format!(
            "{} is a directory, not a file. Use LS, Glob, or `ls` via Bash to list its contents.",
            s.p("dir")
        )
    );
    s.write("blob.dat", b"\x7fELF\x02\x01\x01\x00\x00\x00binary");
    assert_eq!(
        s.err("Read", json!({"file_path": s.p("blob.dat")})).await,
        format!(
            "{} appears to be a binary .dat file; Read only shows text files, images and notebooks. Inspect it with Bash instead (e.g. `file`, `xxd | head`).",
            s.p("blob.dat")
        )
    );
    s.write("a.zip", "PK not really");
    assert!(
        s.err("Read", json!({"file_path": s.p("a.zip")}))
            .await
            .contains("appears to be a binary .zip file")
    );
    s.write("doc.pdf", "%PDF-1.4");
    assert!(
        s.err("Read", json!({"file_path": s.p("doc.pdf")}))
            .await
            .starts_with("Reading PDF files is not supported yet.")
    );
}

#[tokio::test]
async fn read_returns_images_as_image_blocks() {
    let s = Session::new();
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fake";
    s.write("pic.PNG", png);
    let out = s
        .call("Read", json!({"file_path": s.p("pic.PNG")}))
        .await
        .unwrap();
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    assert_eq!(
        out.content,
        ToolResultContent::Blocks(vec![ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data
            },
            cache_control: None,
        }])
    );
}

#[tokio::test]
async fn read_renders_notebooks() {
    let s = Session::new();
    let nb = json!({
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {"cell_type": "markdown", "id": "m1", "source": ["# Title\n", "text"]},
            {"cell_type": "code", "id": "c1", "source": "print(1)", "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                {"output_type": "display_data", "data": {"image/png": "AAAA"}}
            ]}
        ]
    });
    s.write("n.ipynb", nb.to_string());
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("n.ipynb")})).await,
        "<cell id=\"m1\" type=\"markdown\">\n# Title\ntext\n</cell>\n\
         <cell id=\"c1\" type=\"code\" language=\"python\">\nprint(1)\n</cell>\n\
         <output cell=\"c1\">\n1\n</output>\n\
         <output cell=\"c1\">\n[image/png output not shown]\n</output>\n"
    );
}

#[tokio::test]
async fn read_resolves_relative_paths_against_the_cwd() {
    let s = Session::new();
    s.write("sub/rel.txt", "hi\n");
    s.env.set_cwd(s.path("sub"));
    assert_eq!(
        s.ok("Read", json!({"file_path": "rel.txt"})).await,
        "1\thi\n"
    );
    assert_eq!(
        s.tool("Read")
            .paths_touched(&json!({"file_path": "rel.txt"}), &s.ctx()),
        vec![s.path("sub/rel.txt")]
    );
}

#[tokio::test]
async fn validation_names_the_field_and_the_expected_shape() {
    let s = Session::new();
    assert_eq!(
        s.err("Read", json!({"offset": 2})).await,
        "InputValidationError: Read failed: missing field `file_path`. Expected input: {file_path: string, offset?: integer, limit?: integer}"
    );
    assert_eq!(
        s.err("Read", json!({"file_path": "/x", "limit": "ten"}))
            .await,
        "InputValidationError: Read failed: invalid type: string \"ten\", expected u64 at `limit`. Expected input: {file_path: string, offset?: integer, limit?: integer}"
    );
    // Extra fields are tolerated.
    s.write("a.txt", "a\n");
    assert_eq!(
        s.ok("Read", json!({"file_path": s.p("a.txt"), "pages": "1-2"}))
            .await,
        "1\ta\n"
    );
}

// ---------------------------------------------------------------- Write

#[tokio::test]
async fn write_creates_files_and_parent_directories() {
    let s = Session::new();
    let path = s.path("new/deep/file.txt");
    assert_eq!(
        s.ok(
            "Write",
            json!({"file_path": s.p("new/deep/file.txt"), "content": "hello\n"})
        )
        .await,
        format!("File created successfully at: {}", path.display())
    );
    assert_eq!(read_to_string(&path), "hello\n");
}

#[tokio::test]
async fn write_refuses_a_file_not_read() {
    let s = Session::new();
    let path = s.write("a.txt", "old");
    assert_eq!(
        s.err(
            "Write",
            json!({"file_path": s.p("a.txt"), "content": "new"})
        )
        .await,
        NOT_READ
    );
    assert_eq!(read_to_string(&path), "old");
}

#[tokio::test]
async fn write_refuses_a_file_changed_on_disk_after_read() {
    let s = Session::new();
    let path = s.write("a.txt", "old\n");
    s.ok("Read", json!({"file_path": s.p("a.txt")})).await;
    std::fs::write(&path, "changed by someone else\n").unwrap();
    assert_eq!(
        s.err(
            "Write",
            json!({"file_path": s.p("a.txt"), "content": "new"})
        )
        .await,
        MODIFIED
    );
    assert_eq!(read_to_string(&path), "changed by someone else\n");
}

#[tokio::test]
async fn write_accepts_a_file_only_touched_after_read() {
    let s = Session::new();
    let path = s.write("a.txt", "same\n");
    s.ok("Read", json!({"file_path": s.p("a.txt")})).await;
    let later = SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    s.ok(
        "Write",
        json!({"file_path": s.p("a.txt"), "content": "new\n"}),
    )
    .await;
    assert_eq!(read_to_string(&path), "new\n");
}

#[tokio::test]
async fn write_keeps_permissions_and_allows_a_second_write() {
    let s = Session::new();
    let path = s.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
    s.ok("Read", json!({"file_path": s.p("run.sh")})).await;
    assert_eq!(
        s.ok(
            "Write",
            json!({"file_path": s.p("run.sh"), "content": "#!/bin/sh\necho 1\n"})
        )
        .await,
        format!(
            "The file {} has been overwritten successfully.",
            path.display()
        )
    );
    s.ok(
        "Write",
        json!({"file_path": s.p("run.sh"), "content": "#!/bin/sh\necho 2\n"}),
    )
    .await;
    assert_eq!(read_to_string(&path), "#!/bin/sh\necho 2\n");
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o751
    );
    // No temp files left behind.
    let names: Vec<String> = std::fs::read_dir(&s.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["run.sh".to_string()]);
}

#[tokio::test]
async fn write_through_a_symlink_keeps_the_link() {
    let s = Session::new();
    let target = s.write("real.txt", "old\n");
    std::os::unix::fs::symlink(&target, s.path("link.txt")).unwrap();
    s.ok("Read", json!({"file_path": s.p("link.txt")})).await;
    s.ok(
        "Write",
        json!({"file_path": s.p("link.txt"), "content": "new\n"}),
    )
    .await;
    assert!(
        std::fs::symlink_metadata(s.path("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read_to_string(&target), "new\n");
}

#[tokio::test]
async fn write_to_a_directory_is_refused() {
    let s = Session::new();
    std::fs::create_dir(s.path("d")).unwrap();
    s.env.record_read(
        s.path("d"),
        tack_tool::ReadRecord {
            mtime: None,
            len: 0,
            content_hash: 0,
            partial: false,
        },
    );
    assert_eq!(
        s.err("Write", json!({"file_path": s.p("d"), "content": "x"}))
            .await,
        format!("{} is a directory; give the path of a file.", s.p("d"))
    );
}

// ---------------------------------------------------------------- Edit

async fn read_then(s: &Session, rel: &str, content: &str) -> std::path::PathBuf {
    let path = s.write(rel, content);
    s.ok("Read", json!({"file_path": s.p(rel)})).await;
    path
}

#[tokio::test]
async fn edit_with_zero_one_and_three_matches() {
    let s = Session::new();
    let path = read_then(
        &s,
        "f.rs",
        "fn a() {}\nfn b() {}\nlet x = 1;\nlet x = 1;\nlet x = 1;\n",
    )
    .await;

    assert_eq!(
        s.err(
            "Edit",
            json!({"file_path": s.p("f.rs"), "old_string": "fn c()", "new_string": "fn d()"})
        )
        .await,
        "String to replace not found in file.\nString: fn c()"
    );
    assert_eq!(
        s.err("Edit", json!({"file_path": s.p("f.rs"), "old_string": "let x = 1;", "new_string": "let y = 2;"})).await,
        "Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: let x = 1;"
    );
    assert_eq!(
        s.ok("Edit", json!({"file_path": s.p("f.rs"), "old_string": "fn b() {}", "new_string": "fn beta() {}"})).await,
        format!(
            "The file {} has been updated. Here's a snippet of the result:\n1\tfn a() {{}}\n2\tfn beta() {{}}\n3\tlet x = 1;\n4\tlet x = 1;\n5\tlet x = 1;\n",
            path.display()
        )
    );
    // The record was refreshed by the edit: no re-read needed.
    s.ok("Edit", json!({"file_path": s.p("f.rs"), "old_string": "let x = 1;", "new_string": "let y = 2;", "replace_all": true}))
        .await;
    assert_eq!(
        read_to_string(&path),
        "fn a() {}\nfn beta() {}\nlet y = 2;\nlet y = 2;\nlet y = 2;\n"
    );
}

#[tokio::test]
async fn edit_checks_read_state_and_identical_strings() {
    let s = Session::new();
    // As Claude Code 2.1.328: an Edit of a file not read in this session is
    // taken (its old_string must be in the file); a stale read refuses it.
    let unread = s.write("u.txt", "one two\n");
    s.ok(
        "Edit",
        json!({"file_path": s.p("u.txt"), "old_string": "two", "new_string": "three"}),
    )
    .await;
    assert_eq!(read_to_string(&unread), "one three\n");
    assert_eq!(
        s.err(
            "MultiEdit",
            json!({"file_path": s.p("u.txt"), "edits": [{"old_string": "two", "new_string": "2"}]})
        )
        .await,
        "Edit 1 of 1: String to replace not found in file.\nString: two"
    );
    let path = s.write("g.txt", "alpha\n");
    s.ok("Read", json!({"file_path": s.p("g.txt")})).await;
    std::fs::write(&path, "alpha gamma\n").unwrap();
    assert_eq!(
        s.err(
            "Edit",
            json!({"file_path": s.p("g.txt"), "old_string": "alpha", "new_string": "beta"})
        )
        .await,
        MODIFIED
    );
    assert_eq!(
        s.err(
            "Edit",
            json!({"file_path": s.p("g.txt"), "old_string": "alpha", "new_string": "alpha"})
        )
        .await,
        "No changes to make: old_string and new_string are exactly the same."
    );
    assert_eq!(
        s.err(
            "Edit",
            json!({"file_path": s.p("missing.txt"), "old_string": "a", "new_string": "b"})
        )
        .await,
        format!(
            "File does not exist. Current working directory: {}",
            s.root.display()
        )
    );
}

#[tokio::test]
async fn edit_keeps_crlf_and_the_trailing_newline_state() {
    let s = Session::new();
    let crlf = read_then(&s, "w.txt", "one\r\ntwo\r\nthree\r\n").await;
    s.ok("Edit", json!({"file_path": s.p("w.txt"), "old_string": "one\ntwo", "new_string": "uno\ndos\ndos-bis"})).await;
    assert_eq!(read_to_string(&crlf), "uno\r\ndos\r\ndos-bis\r\nthree\r\n");

    let no_nl = read_then(&s, "n.txt", "a\nb").await;
    s.ok(
        "Edit",
        json!({"file_path": s.p("n.txt"), "old_string": "b", "new_string": "c"}),
    )
    .await;
    assert_eq!(read_to_string(&no_nl), "a\nc");
}

#[tokio::test]
async fn edit_unicode() {
    let s = Session::new();
    let path = read_then(&s, "u.txt", "naïve café — 日本語\n").await;
    s.ok(
        "Edit",
        json!({"file_path": s.p("u.txt"), "old_string": "café — 日本", "new_string": "thé ☕ 中"}),
    )
    .await;
    assert_eq!(read_to_string(&path), "naïve thé ☕ 中語\n");
}

#[tokio::test]
async fn edit_with_empty_old_string_creates_a_file() {
    let s = Session::new();
    s.ok(
        "Edit",
        json!({"file_path": s.p("fresh/new.txt"), "old_string": "", "new_string": "content\n"}),
    )
    .await;
    assert_eq!(read_to_string(&s.path("fresh/new.txt")), "content\n");
}

#[tokio::test]
async fn edit_a_large_file_after_a_partial_read() {
    let s = Session::new();
    let body: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let path = s.write("big.txt", &body);
    s.ok(
        "Read",
        json!({"file_path": s.p("big.txt"), "offset": 4000, "limit": 10}),
    )
    .await;
    s.ok("Edit", json!({"file_path": s.p("big.txt"), "old_string": "line 4005\n", "new_string": "LINE 4005\n"})).await;
    assert_eq!(
        read_to_string(&path),
        body.replace("line 4005\n", "LINE 4005\n")
    );
}

// ---------------------------------------------------------------- MultiEdit

#[tokio::test]
async fn multi_edit_applies_in_order() {
    let s = Session::new();
    let path = read_then(&s, "lib.rs", "fn a() {}\nfn main() { a(); a(); }\n").await;
    s.ok(
        "MultiEdit",
        json!({"file_path": s.p("lib.rs"), "edits": [
            {"old_string": "fn a() {}", "new_string": "fn b() {}"},
            // Matches only the text the first edit produced.
            {"old_string": "fn b() {}", "new_string": "fn b() { todo!() }"},
            {"old_string": " a();", "new_string": " b();", "replace_all": true}
        ]}),
    )
    .await;
    assert_eq!(
        read_to_string(&path),
        "fn b() { todo!() }\nfn main() { b(); b(); }\n"
    );
}

#[tokio::test]
async fn multi_edit_is_all_or_nothing() {
    let s = Session::new();
    let path = read_then(&s, "x.txt", "one two three\n").await;
    let err = s
        .err(
            "MultiEdit",
            json!({"file_path": s.p("x.txt"), "edits": [
                {"old_string": "one", "new_string": "1"},
                {"old_string": "four", "new_string": "4"}
            ]}),
        )
        .await;
    assert_eq!(
        err,
        "Edit 2 of 2: String to replace not found in file.\nString: four"
    );
    assert_eq!(read_to_string(&path), "one two three\n");
    assert!(
        s.err("MultiEdit", json!({"file_path": s.p("x.txt"), "edits": []}))
            .await
            .contains("`edits` is empty")
    );
}
