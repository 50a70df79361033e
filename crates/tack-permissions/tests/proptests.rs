//! Properties of the bash parser and of Bash permission decisions: no script
//! makes the parser panic, static words round-trip through `render` and the
//! parser, and a denied command is never allowed however it is wrapped.
//! `PROPTEST_CASES` raises the case count (see BENCHMARKS.md).

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::json;
use tack_permissions::bash::{Word, parse_command, parse_script, render};
use tack_permissions::{
    Decision, PermissionContext, PermissionMode, RuleLists, RuleSet, RuleSource,
};

fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

/// Shell-ish text: words, quotes, operators, expansions, line ends.
fn shellish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z0-9_./-]{1,6}",
        1 => prop::sample::select(vec![
            " ", " ", "\t", "\n", ";", "&&", "||", "|", "&", "(", ")", "{ ", " }", "$(", "`",
            "'", "\"", "\\", "$", "${", "}", "$((", "))", "<", ">", ">>", "2>&1", "<<EOF\n",
            "\nEOF\n", "<<<", "<(", ">(", "=", "[[ ", " ]]", "*", "?", "~", "#", "!", "if ",
            " then ", " fi", "for x in ", " do ", " done", "case ", " esac", "f() ", "\u{0}",
            "é", "\r",
        ])
        .prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

/// Static words `render` quotes or leaves alone and the parser reads back as
/// the same literal. (Characters `render` leaves bare although the shell gives
/// them meaning are not generated; see the note at the end of this file.)
fn word() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_./:@%+,-]{1,8}( [a-zA-Z0-9'\";&|<>()$`\\\\*]{0,6})?"
}

/// A command name that is a plain word (not a keyword, not an assignment).
fn command_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_-]{0,7}".prop_filter("not a shell keyword", |w| {
        ![
            "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
            "esac", "in", "function", "select", "time", "coproc",
        ]
        .contains(&w.as_str())
    })
}

/// A permission context in `mode` with `Bash(rm *)` denied and some allows.
fn context(mode: PermissionMode) -> (tempfile::TempDir, PermissionContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let source = RuleSource {
        name: "projectSettings".into(),
        file: None,
        root: Some(root.clone()),
    };
    let lists = RuleLists {
        allow: vec![
            "Bash(echo *)".into(),
            "Bash(ls *)".into(),
            "Bash(true)".into(),
        ],
        ask: Vec::new(),
        deny: vec!["Bash(rm *)".into()],
    };
    let rules = RuleSet::from_sources([(source, lists)]).unwrap_or_else(|_| panic!("rules"));
    let ctx = PermissionContext::new(mode, rules, &root, &root.join("home"), &[] as &[PathBuf]);
    (dir, ctx)
}

/// `rm <arg>` hidden in one of the ways a script can run a command.
fn wrapped_rm() -> impl Strategy<Value = String> {
    (
        "[a-z]{1,6}",
        prop::sample::select(vec![
            "{rm}",
            "echo a; {rm}",
            "echo a && {rm}",
            "false || {rm}",
            "echo a | {rm}",
            "( {rm} )",
            "{ {rm}; }",
            "echo $({rm})",
            "echo `{rm}`",
            "ls <({rm})",
            "if true; then {rm}; fi",
            "for f in a; do {rm}; done",
            "x=1 {rm}",
            "env {rm}",
            "command {rm}",
            "nice {rm}",
            "timeout 5 {rm}",
            "sudo {rm}",
            "bash -c '{rm}'",
            "sh -c \"{rm}\"",
            "echo ok\n{rm}",
            "cat <<EOF\n$({rm})\nEOF",
        ]),
        prop::sample::select(vec!["rm", "/bin/rm", "\\rm", "'rm'", "\"rm\""]),
    )
        .prop_map(|(arg, template, rm)| template.replace("{rm}", &format!("{rm} -rf {arg}")))
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn prop_the_parser_never_panics(script in shellish()) {
        let _ = parse_script(&script);
    }

    #[test]
    fn prop_the_parser_never_panics_on_any_text(
        script in "\\PC{0,120}",
    ) {
        let _ = parse_script(&script);
    }

    #[test]
    fn prop_static_words_round_trip_through_render_and_the_parser(
        name in command_name(),
        args in prop::collection::vec(word(), 0..6),
    ) {
        let words: Vec<Word> = std::iter::once(name)
            .chain(args)
            .map(|v| Word { raw: v.clone(), value: Some(v) })
            .collect();
        let script = render(&words);
        let commands = parse_command(&script).map_err(|e| TestCaseError::fail(format!("{e}: {script}")))?;
        prop_assert_eq!(commands.len(), 1, "{}", script);
        let values: Vec<Option<&str>> = commands[0].values();
        let expected: Vec<Option<&str>> = words.iter().map(|w| w.value.as_deref()).collect();
        prop_assert_eq!(values, expected, "{}", script);
    }

    #[test]
    fn prop_a_denied_command_is_never_allowed_however_it_is_wrapped(
        script in wrapped_rm(),
        mode in prop::sample::select(vec![
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::DontAsk,
            PermissionMode::BypassPermissions,
            PermissionMode::Auto,
        ]),
    ) {
        let (_dir, ctx) = context(mode);
        let decision = ctx.decide("Bash", &[], &json!({"command": script}), false, &[]);
        prop_assert!(
            !matches!(decision, Decision::Allow { .. }),
            "{:?} allowed {:?}: {:?}", mode, script, decision
        );
    }
}

/// Found by the soak of `prop_the_parser_never_panics_on_any_text`: the
/// process died with SIGSEGV parsing `{` followed by a character above U+00FF
/// (after optional digits, or digits `..` digits): tree-sitter-bash 0.25.1's
/// scanner calls `isdigit` on the lookahead code point (upstream
/// tree-sitter/tree-sitter-bash#337). `parse_script` refuses these scripts
/// before calling the parser, so the command is asked about.
#[test]
fn a_brace_before_a_wide_character_is_refused_not_crashed_on() {
    for script in ["{\u{E0139}", "{\u{31860}", "echo {1..\u{1F600}"] {
        assert!(parse_script(script).is_err(), "{script:?}");
    }
}

/// Found by `prop_a_denied_command_is_never_allowed_however_it_is_wrapped`:
/// tree-sitter-bash reads `\n\\rm` as one word (value "\nrm") of the
/// previous command, so `echo ok` + newline + `\rm -rf a` was one allowed
/// `echo` to the engine while bash runs `rm`. `parse_script` no longer trusts
/// a word whose source holds a line break.
#[test]
fn a_backslash_word_after_a_newline_is_not_allowed_as_part_of_the_previous_command() {
    let (_dir, ctx) = context(PermissionMode::Default);
    let decision = ctx.decide(
        "Bash",
        &[],
        &json!({"command": "echo ok\n\\rm -rf a"}),
        false,
        &[],
    );
    assert!(!matches!(decision, Decision::Allow { .. }), "{decision:?}");
}

// Note: `render` leaves `#`, `?`, `[`, `]`, `{`, `}`, `!` and a leading
// `NAME=` unquoted, and the shell gives them meaning (a comment, globs, brace
// expansion, an assignment): `render(["echo", "#x"])` is `echo #x`, which
// parses as `echo`. `word()` does not generate them (see the issue 17 report).
