//! What a new user meets first: `--version` and `--help` (issue 37).

use std::process::Command;

use pretty_assertions::assert_eq;

fn tack(args: &[&str]) -> (bool, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .args(args)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn the_version_is_one_line_with_v_and_capital_v() {
    let want = (true, format!("tack {}\n", env!("CARGO_PKG_VERSION")));
    assert_eq!(tack(&["--version"]), want);
    assert_eq!(tack(&["-v"]), want);
    assert_eq!(tack(&["-V"]), want);
}

#[test]
fn help_groups_the_flags_and_hides_the_sdks_own() {
    let (ok, help) = tack(&["--help"]);
    assert!(ok);
    let headings: Vec<&str> = (help.lines())
        .filter(|l| l.ends_with(':') && !l.starts_with(' '))
        .collect();
    assert_eq!(
        headings,
        [
            "Commands:",
            "Arguments:",
            "Options:",
            "Print mode (-p):",
            "Model:",
            "Sessions:",
            "Context and extensions:",
            "Permissions and sandbox:",
            "Examples:",
        ]
    );
    let hidden = [
        "--permission-prompt-tool",
        "--replay-user-messages",
        "--include-hook-events",
        "--resume-session-at",
        "--thinking-display",
        "--session-mirror",
        "--serve",
        "--demo",
        "--debug",
        "--plugin-dir-no-mcp",
    ];
    let listed: Vec<&str> = hidden
        .into_iter()
        .filter(|flag| help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")))
        .collect();
    assert_eq!(listed, Vec::<&str>::new(), "{help}");
    // Hidden is not gone: the SDKs still pass them.
    let (ok, _) = tack(&[
        "--replay-user-messages",
        "--include-hook-events",
        "--version",
    ]);
    assert!(ok);
}
