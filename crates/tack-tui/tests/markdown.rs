//! Markdown rendering and streaming.

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use ratatui::text::Line;
use tack_tui::markdown::{MarkdownStream, render_markdown};
use tack_tui::{Theme, ThemeKind};

fn plain(lines: &[Line<'static>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect()
}

/// Pieces whose meaning depends on what follows them: list numbers, setext
/// underlines, fences, tables, lazy continuations, loose lists.
const PIECES: &[&str] = &[
    "Some *emphasis* and **strong** text with `code`.\n",
    "\n",
    "1. first\n",
    "2. second\n",
    "- bullet\n",
    "  continued item text\n",
    "# Heading\n",
    "Title\n",
    "=====\n",
    "---\n",
    "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n",
    "```\nunclosed fence\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "> quoted line\n",
    "lazy continuation\n",
    "    indented code\n",
    "- [ ] task\n- [x] done\n",
    "A [link](https://example.com) here.\n",
    "2\n",
    "* star item\n",
];

fn stream_in(chunks: &[&str], width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut s = MarkdownStream::new();
    let mut out = Vec::new();
    for c in chunks {
        out.extend(s.push(c, width, theme));
    }
    out.extend(s.finish(width, theme));
    out
}

fn split_at_points(text: &str, points: &[usize]) -> Vec<String> {
    let mut cuts: Vec<usize> = points
        .iter()
        .map(|p| p % (text.len() + 1))
        .filter(|p| text.is_char_boundary(*p))
        .collect();
    cuts.sort();
    cuts.dedup();
    let mut out = Vec::new();
    let mut last = 0;
    for c in cuts {
        out.push(text[last..c].to_string());
        last = c;
    }
    out.push(text[last..].to_string());
    out
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(300) })]

    /// However an answer is cut into deltas, what reaches history is what
    /// rendering the whole answer gives.
    #[test]
    fn streaming_in_any_split_renders_like_the_whole(
        picks in proptest::collection::vec(0..PIECES.len(), 1..12),
        points in proptest::collection::vec(0usize..10_000, 0..40),
        width in 20u16..100,
        color in any::<bool>(),
    ) {
        let text: String = picks.iter().map(|i| PIECES[*i]).collect();
        let theme = Theme::new(ThemeKind::Dark, color);
        let chunks = split_at_points(&text, &points);
        let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
        prop_assert_eq!(stream_in(&refs, width, &theme), render_markdown(&text, width, &theme));
    }

    /// Token by token too (every char boundary a delta).
    #[test]
    fn char_by_char_renders_like_the_whole(picks in proptest::collection::vec(0..PIECES.len(), 1..8)) {
        let text: String = picks.iter().map(|i| PIECES[*i]).collect();
        let theme = Theme::new(ThemeKind::Light, true);
        let chunks: Vec<String> = text.chars().map(String::from).collect();
        let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
        prop_assert_eq!(stream_in(&refs, 60, &theme), render_markdown(&text, 60, &theme));
    }
}

fn push(s: &mut MarkdownStream, text: &str, theme: &Theme) -> Vec<String> {
    plain(&s.push(text, 40, theme))
}

#[test]
fn lines_leave_as_they_complete_and_what_may_change_stays_live() {
    let theme = Theme::new(ThemeKind::Dark, false);
    let none = Vec::<String>::new();
    let mut s = MarkdownStream::new();
    assert_eq!(push(&mut s, "First line", &theme), none);
    // A paragraph's line is final as soon as it is complete.
    assert_eq!(
        push(&mut s, " of the poem\nSecond", &theme),
        vec!["First line of the poem"]
    );
    assert_eq!(plain(&s.live_lines(40, &theme)), vec!["Second"]);
    assert_eq!(push(&mut s, " line\n\n", &theme), vec!["Second line"]);
    // A line with a `|` may be a table's header: it waits for the next line.
    assert_eq!(push(&mut s, "| a | b |\n", &theme), none);
    assert_eq!(push(&mut s, "|---|---|\n| 1 | 2 |\n", &theme), none);
    // A table stays live, whole, until a block after it starts.
    let table = vec!["", "a │ b", "──┼──", "1 │ 2"];
    assert_eq!(plain(&s.live_lines(40, &theme)), table);
    assert_eq!(push(&mut s, "\n- one\n", &theme), table);
    // A list's line is final once the next one shows it gained no continuation.
    assert_eq!(push(&mut s, "- two\n", &theme), vec!["", "• one"]);
    assert_eq!(push(&mut s, "  more\n", &theme), none);
    assert_eq!(plain(&s.live_lines(40, &theme)), vec!["• two", "  more"]);
    // A code fence stays live until a block after it starts.
    assert_eq!(push(&mut s, "```\n", &theme), vec!["• two", "  more"]);
    assert_eq!(push(&mut s, "code\n```\nDone", &theme), none);
    assert_eq!(plain(&s.finish(40, &theme)), vec!["", "code", "", "Done"]);
}

#[test]
fn single_newlines_are_line_breaks_and_long_lines_still_wrap() {
    let theme = Theme::new(ThemeKind::Dark, false);
    let text = "Roses are red,\nviolets are blue.\n\n- an item\n  on two lines\n\n> quoted\n> twice\n\n\
                A line long enough that it has to be wrapped at the width.\nshort";
    assert_eq!(
        plain(&render_markdown(text, 30, &theme)),
        vec![
            "Roses are red,",
            "violets are blue.",
            "",
            "• an item",
            "  on two lines",
            "",
            "│ quoted",
            "│ twice",
            "",
            "A line long enough that it has",
            "to be wrapped at the width.",
            "short",
        ]
    );
}

#[test]
fn renders_the_common_blocks() {
    let theme = Theme::new(ThemeKind::Dark, false);
    let text = "# Plan\n\nWe will *fix* the `parser` and add tests for the cases that broke.\n\n\
                - step one\n- step two\n  - nested\n\n1. first\n2. second\n\n\
                > a quote\n\n```python\nprint('hi')\n```\n\n| Name | Size |\n|------|-----:|\n| a.rs | 12 |\n\n---\n\n\
                See [the docs](https://docs.rs).\n";
    let lines = plain(&render_markdown(text, 40, &theme));
    assert_eq!(
        lines,
        vec![
            "Plan",
            "",
            "We will fix the parser and add tests for",
            "the cases that broke.",
            "",
            "• step one",
            "• step two",
            "  ◦ nested",
            "",
            "1. first",
            "2. second",
            "",
            "│ a quote",
            "",
            "print('hi')",
            "",
            "Name │ Size",
            "─────┼─────",
            "a.rs │ 12",
            "",
            "────────────────────────────────────────",
            "",
            "See the docs (https://docs.rs).",
        ]
    );
}

#[test]
fn code_blocks_are_highlighted_with_colour_and_plain_without() {
    let code = "```rust\nfn main() {}\n```\n";
    let colored = render_markdown(code, 40, &Theme::new(ThemeKind::Dark, true));
    assert!(
        colored[0].spans.len() > 1 && colored[0].spans.iter().any(|s| s.style.fg.is_some()),
        "{colored:?}"
    );
    let plain_lines = render_markdown(code, 40, &Theme::new(ThemeKind::Dark, false));
    assert!(
        plain_lines[0].spans.iter().all(|s| s.style.fg.is_none()),
        "{plain_lines:?}"
    );
    assert_eq!(plain(&plain_lines), vec!["fn main() {}"]);
}

#[test]
fn the_languages_models_write_most_are_highlighted() {
    let langs = tack_tui::markdown::highlighted_languages();
    for name in [
        "Rust",
        "Python",
        "JavaScript",
        "Bourne Again Shell (bash)",
        "JSON",
        "Go",
        "C",
        "C++",
        "Java",
        "YAML",
        "HTML",
        "CSS",
        "SQL",
        "Diff",
    ] {
        assert!(
            langs.iter().any(|l| l == name),
            "{name} missing from {langs:?}"
        );
    }
    let theme = Theme::new(ThemeKind::Dark, true);
    // TypeScript has no grammar in the set: JavaScript's is used.
    for (fence, code) in [
        ("ts", "const x: number = 1 // note"),
        ("tsx", "const x = 1 // note"),
        ("typescript", "let y = 'a'"),
        ("sh", "echo \"$HOME\" # home"),
        ("shell", "ls -la # list"),
        ("py", "def f(): return 1  # one"),
        ("yml", "key: value # comment"),
    ] {
        let lines = tack_tui::markdown::highlight_code(code, fence, &theme);
        assert!(lines[0].spans.len() > 1, "{fence}: {lines:?}");
    }
}
