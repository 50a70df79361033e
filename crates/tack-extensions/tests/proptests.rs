//! Properties of agent definition files (`.claude/agents/*.md`) and of the
//! frontmatter of commands, skills and output styles, which a repository
//! writes: any text is a definition or an error, never a panic, and the YAML
//! in it is bounded.

use proptest::prelude::*;
use tack_extensions::agents::{AgentSource, parse_markdown};
use tack_extensions::frontmatter::{parse_frontmatter, split_frontmatter};

fn frontmatter_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("name: x".to_owned()),
        Just("description: d".to_owned()),
        Just("tools: [Read, Bash]".to_owned()),
        Just("model: haiku".to_owned()),
        (0u8..3, 1usize..12).prop_map(|(i, n)| {
            let refs = if i == 0 {
                vec!["lol".to_owned(); n]
            } else {
                vec![format!("*a{}", i - 1); n]
            };
            format!("a{i}: &a{i} [{}]", refs.join(", "))
        }),
        "[a-z]{1,6}: .{0,20}",
        ".{0,30}",
    ]
}

proptest! {
    #[test]
    fn prop_any_agent_file_parses_or_names_a_line_of_it(
        lines in proptest::collection::vec(frontmatter_line(), 0..12),
        body in ".{0,40}",
        closed in any::<bool>(),
    ) {
        let mut text = format!("---\n{}\n", lines.join("\n"));
        if closed {
            text.push_str("---\n");
        }
        text.push_str(&body);
        let source = AgentSource::Project("/p/.claude/agents/x.md".into());
        if let Err(e) = parse_markdown(&text, source) {
            prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1), "{:?} in {:?}", e, text);
        }
    }

    /// A command's, skill's or output style's file: split, then its
    /// frontmatter parsed, or a one-line reason; the body is what follows the
    /// closing `---`.
    #[test]
    fn prop_any_command_skill_or_style_file_splits_and_parses_or_errs(
        lines in proptest::collection::vec(frontmatter_line(), 0..12),
        body in ".{0,40}",
        closed in any::<bool>(),
        crlf in any::<bool>(),
    ) {
        let nl = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("---{nl}{}{nl}", lines.join(nl));
        if closed {
            text.push_str(&format!("---{nl}"));
        }
        text.push_str(&body);
        let (front, rest) = split_frontmatter(&text);
        prop_assert!(text.ends_with(rest));
        if let Some(Err(reason)) = front.map(parse_frontmatter) {
            prop_assert!(!reason.is_empty() && reason.len() < 2_000, "{reason}");
        }
    }
}
