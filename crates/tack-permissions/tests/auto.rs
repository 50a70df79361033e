//! Auto mode's decision order on a real project directory: rules, the safety
//! checks, the allow rules it sets aside, the fast paths, and what goes to the
//! classifier (`Decision::Classify`).

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use crate::engine::Fx;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_permissions::{
    AutoOptions, Decision, PermissionContext, PermissionMode, RuleBehavior, RuleSet, RuleSource,
};

/// The engine tests' fixture, with a build directory, a `.git`, `~/.claude`
/// and a file `a` in the project.
fn fx() -> Fx {
    let fx = crate::engine::fx();
    std::fs::create_dir_all(fx.proj.join("build")).unwrap();
    std::fs::create_dir_all(fx.proj.join(".git")).unwrap();
    std::fs::create_dir_all(fx.home.join(".claude")).unwrap();
    std::fs::write(fx.proj.join("a"), "a").unwrap();
    fx
}

fn ctx(fx: &Fx, mode: PermissionMode, rules: &[(RuleBehavior, &str)]) -> PermissionContext {
    let mut set = RuleSet::new();
    let src = RuleSource::named("userSettings");
    for (b, r) in rules {
        set.add(&src, *b, r).unwrap();
    }
    PermissionContext::new(mode, set, &fx.proj, &fx.home, &[])
}

fn auto(fx: &Fx) -> PermissionContext {
    ctx(fx, PermissionMode::Auto, &[])
}

fn bash(c: &PermissionContext, cmd: &str) -> Decision {
    c.decide("Bash", &[], &json!({"command": cmd}), false, &[])
}

fn edit(c: &PermissionContext, p: &str) -> Decision {
    let input = json!({"file_path": p, "old_string": "a", "new_string": "b"});
    c.decide("Edit", &[], &input, false, &[PathBuf::from(p)])
}

fn read(c: &PermissionContext, p: &str) -> Decision {
    c.decide(
        "Read",
        &[],
        &json!({"file_path": p}),
        true,
        &[PathBuf::from(p)],
    )
}

fn fast(reason: &str) -> Decision {
    Decision::Allow {
        reason: format!("auto mode fast path: {reason}"),
        rule: None,
    }
}

fn classify(cmd: &str, suggestions: &[&str]) -> Decision {
    Decision::Classify {
        reason: format!("Bash: `{cmd}` is not allowed by any rule"),
        suggestions: suggestions.iter().map(|s| s.to_string()).collect(),
    }
}

const FILES: &str = "only creates, copies, moves or removes files inside the working directories";
const PROTECTED: &str =
    "auto mode asks a person about project metadata, settings and shell start-up files";

#[test]
fn file_commands_inside_the_project_are_fast_paths() {
    let fx = fx();
    let c = auto(&fx);
    for cmd in [
        "touch a",
        "mkdir -p src/x",
        "cp a b",
        "mv a b",
        "rm a",
        "rm -rf build",
        "rmdir build",
    ] {
        assert_eq!(bash(&c, cmd), fast(FILES), "{cmd}");
    }
    assert_eq!(
        bash(&c, "echo x > f"),
        fast("writes output inside the working directories")
    );
    assert_eq!(
        bash(&c, "mkdir out && echo x >> out/log"),
        fast(&format!(
            "{FILES}; writes output inside the working directories"
        ))
    );
}

#[test]
fn removing_a_working_directory_or_anything_outside_is_classified() {
    let fx = fx();
    let c = auto(&fx);
    for cmd in [
        "rm -rf .",
        "rm -rf /",
        "rm -rf ..",
        "rm -rf src/..",
        "mv . ../x",
    ] {
        let rule = if cmd.starts_with("mv") {
            "Bash(mv *)"
        } else {
            "Bash(rm *)"
        };
        assert_eq!(bash(&c, cmd), classify(cmd, &[rule]), "{cmd}");
    }
    // A glob is not a static operand.
    assert_eq!(bash(&c, "rm -rf *"), classify("rm -rf *", &[]));
}

#[test]
fn protected_writes_ask_a_person() {
    let fx = fx();
    let c = auto(&fx);
    assert_eq!(
        bash(&c, "touch ~/.bashrc"),
        Decision::Ask {
            reason: format!("Bash writes to a protected path (~/.bashrc): {PROTECTED}"),
            suggestions: vec!["Bash(touch ~/.bashrc)".into()],
        }
    );
    let zshrc = fx.home.join(".zshrc");
    assert_eq!(
        bash(&c, "echo x >> ~/.zshrc"),
        Decision::Ask {
            reason: format!("Bash writes to a protected path (~/.zshrc): {PROTECTED}"),
            suggestions: vec![format!("Edit(/{})", zshrc.display())],
        }
    );
    assert_eq!(
        bash(&c, "rm -rf .git"),
        Decision::Ask {
            reason: format!("Bash writes to a protected path (.git): {PROTECTED}"),
            suggestions: vec!["Bash(rm *)".into()],
        }
    );
    assert_eq!(
        bash(&c, "echo x >> \"$HOME/.profile\""),
        Decision::Ask {
            reason: format!("Bash writes to a protected path (\"$HOME/.profile\"): {PROTECTED}"),
            suggestions: Vec::new(),
        }
    );
    // After a `cd`, a relative target is tried against the new directory too.
    assert_eq!(
        bash(&c, "cd ~ && echo x >> .bashrc"),
        Decision::Ask {
            reason: format!("Bash writes to a protected path (.bashrc): {PROTECTED}"),
            suggestions: vec![
                "Bash(cd ~)".into(),
                format!("Edit(/{})", fx.proj.join(".bashrc").display())
            ],
        }
    );
    let config = fx.proj.join(".git/config");
    assert_eq!(
        edit(&c, ".git/config"),
        Decision::Ask {
            reason: format!(
                "Edit writes to a protected path ({}): {PROTECTED}",
                config.display()
            ),
            suggestions: vec![format!("Edit(/{}/**)", fx.proj.join(".git").display())],
        }
    );
    let settings = fx.home.join(".claude/settings.json");
    assert_eq!(
        edit(&c, settings.to_str().unwrap()),
        Decision::Ask {
            reason: format!(
                "Edit writes to a protected path ({}): {PROTECTED}",
                settings.display()
            ),
            suggestions: vec![format!("Edit(/{}/**)", fx.home.join(".claude").display())],
        }
    );
    let fish = fx.home.join(".config/fish/config.fish");
    assert!(matches!(
        edit(&c, fish.to_str().unwrap()),
        Decision::Ask { .. }
    ));
    // An allow rule does not skip the safety check.
    let allowed = ctx(
        &fx,
        PermissionMode::Auto,
        &[(RuleBehavior::Allow, "Edit(./.git/**)")],
    );
    assert!(matches!(
        edit(&allowed, ".git/config"),
        Decision::Ask { .. }
    ));
    // Reading them is no write.
    assert_eq!(
        read(&c, ".git/config"),
        Decision::Allow {
            reason: "read-only, inside the working directories".into(),
            rule: None,
        }
    );
}

#[test]
fn what_no_fast_path_proves_is_classified() {
    let fx = fx();
    let c = auto(&fx);
    for (cmd, suggestion) in [
        ("sh -c 'ls'", "Bash(sh -c 'ls')"),
        ("python3 -c 1", "Bash(python3 *)"),
        ("chmod +x a", "Bash(chmod +x a)"),
        ("tee f", "Bash(tee *)"),
        ("git commit -m x", "Bash(git commit *)"),
        ("git push", "Bash(git push *)"),
        ("npm install", "Bash(npm install *)"),
        ("cargo test", "Bash(cargo test *)"),
        ("curl https://example.com", "Bash(curl https://example.com)"),
        ("cat /etc/passwd", "Bash(cat *)"),
        ("ls ~", "Bash(ls ~)"),
        ("cat $f", "Bash(cat $f)"),
    ] {
        let want = match suggestion {
            s if s.contains('$') => classify(cmd, &[]),
            s => classify(cmd, &[s]),
        };
        assert_eq!(bash(&c, cmd), want, "{cmd}");
    }
    assert_eq!(
        bash(&c, "if then"),
        Decision::Classify {
            reason: "Bash: command could not be parsed: syntax error".into(),
            suggestions: Vec::new(),
        }
    );
}

#[test]
fn read_only_commands_inside_the_project_are_fast_paths() {
    let fx = fx();
    let c = auto(&fx);
    for cmd in [
        "git status",
        "git diff HEAD",
        "git log --oneline -5",
        "ls -la src",
        "cat src/main.rs | head -5",
        "grep -rn 'fn main' src",
        "rg -i todo",
        "find . -name '*.rs' -type f",
        "wc -l a",
        "cat a | sort | uniq -c",
        "pwd",
        "cat < a",
    ] {
        assert_eq!(bash(&c, cmd), fast("read-only"), "{cmd}");
    }
    // Not in other modes: the default mode still asks about `ls`.
    let default = ctx(&fx, PermissionMode::Default, &[]);
    assert!(matches!(bash(&default, "ls -la src"), Decision::Ask { .. }));
    assert!(matches!(bash(&default, "git status"), Decision::Ask { .. }));
}

#[test]
fn a_cd_into_the_project_is_followed() {
    let fx = fx();
    let c = auto(&fx);
    let proj = fx.proj.display();
    for cmd in [
        "cd src && ls".to_string(),
        format!("cd {proj} && git status"),
        "cd src && cat main.rs | head -5".into(),
    ] {
        assert_eq!(bash(&c, &cmd), fast("read-only"), "{cmd}");
    }
    assert_eq!(bash(&c, "cd src && touch new.rs"), fast(FILES));
    assert_eq!(
        bash(&c, "cd src && echo x > out.txt"),
        fast("writes output inside the working directories")
    );
    // Relative to either directory (a failed `cd` leaves the cwd): `../build`
    // from the cwd is outside the project.
    assert_eq!(
        bash(&c, "cd src && rm -rf ../build"),
        Decision::Classify {
            reason: "Bash: `rm -rf ../build` is not allowed by any rule".into(),
            suggestions: vec!["Bash(cd *)".into(), "Bash(rm *)".into()],
        }
    );
    for cmd in [
        "cd /etc && cat passwd",
        "cd src && cd .. && ls",
        "cd $d && ls",
    ] {
        assert!(matches!(bash(&c, cmd), Decision::Classify { .. }), "{cmd}");
    }
}

#[test]
fn a_symlink_leaving_the_project_is_not_read_only_inside() {
    let fx = fx();
    std::fs::create_dir_all(fx.root.join("outside")).unwrap();
    symlink(fx.root.join("outside"), fx.proj.join("out")).unwrap();
    let c = auto(&fx);
    assert_eq!(
        bash(&c, "cat out/secret"),
        classify("cat out/secret", &["Bash(cat *)"])
    );
    assert_eq!(
        bash(&c, "touch out/x"),
        classify("touch out/x", &["Bash(touch *)"])
    );
}

#[test]
fn interpreter_rules_are_set_aside_in_auto_mode_only() {
    let fx = fx();
    let rules = [
        (RuleBehavior::Allow, "Bash(python3:*)"),
        (RuleBehavior::Allow, "Bash(npm run *)"),
        (RuleBehavior::Allow, "Bash(make:*)"),
        (RuleBehavior::Allow, "Bash(python3:*)"),
    ];
    let c = ctx(&fx, PermissionMode::Auto, &rules);
    assert_eq!(
        bash(&c, "python3 x.py"),
        classify("python3 x.py", &["Bash(python3 *)"])
    );
    assert_eq!(
        bash(&c, "npm run build"),
        classify("npm run build", &["Bash(npm run *)"])
    );
    assert_eq!(
        bash(&c, "make build"),
        Decision::Allow {
            reason: "allowed by rule `Bash(make:*)`".into(),
            rule: Some("Bash(make:*)".into()),
        }
    );
    assert_eq!(
        bash(&c, "make && touch done"),
        Decision::Allow {
            reason: format!("allowed by rule `Bash(make:*)`; auto mode fast path: {FILES}"),
            rule: Some("Bash(make:*)".into()),
        }
    );
    assert_eq!(
        c.set_aside_rules(),
        vec!["Bash(python3:*)", "Bash(npm run *)"]
    );
    // Kept in the rule set: they work again in the default mode.
    let mut c = c;
    c.set_mode(PermissionMode::Default);
    assert_eq!(
        bash(&c, "python3 x.py"),
        Decision::Allow {
            reason: "every command and redirection is allowed".into(),
            rule: Some("Bash(python3:*)".into()),
        }
    );
    assert_eq!(c.rules().rules().len(), 4);
}

#[test]
fn a_tool_wide_bash_rule_is_set_aside() {
    let fx = fx();
    for rule in ["Bash", "Bash(*)"] {
        let c = ctx(&fx, PermissionMode::Auto, &[(RuleBehavior::Allow, rule)]);
        assert_eq!(
            bash(&c, "make"),
            classify("make", &["Bash(make *)"]),
            "{rule}"
        );
        assert_eq!(c.set_aside_rules(), vec![rule.to_string()]);
        let default = ctx(&fx, PermissionMode::Default, &[(RuleBehavior::Allow, rule)]);
        assert_eq!(
            bash(&default, "make"),
            Decision::Allow {
                reason: format!("allowed by rule `{rule}`"),
                rule: Some(rule.into()),
            }
        );
    }
}

#[test]
fn classify_all_shell_sets_aside_every_shell_rule_but_not_the_fast_paths() {
    let fx = fx();
    let mut c = ctx(
        &fx,
        PermissionMode::Auto,
        &[
            (RuleBehavior::Allow, "Bash(make:*)"),
            (RuleBehavior::Allow, "Read(//etc/**)"),
        ],
    );
    c.set_auto_options(AutoOptions {
        classify_all_shell: true,
        during_plan: true,
    });
    assert_eq!(bash(&c, "make"), classify("make", &["Bash(make *)"]));
    assert_eq!(bash(&c, "git status"), fast("read-only"));
    assert_eq!(c.set_aside_rules(), vec!["Bash(make:*)"]);
    assert_eq!(
        read(&c, "/etc/hosts"),
        Decision::Allow {
            reason: "allowed by rule `Read(//etc/**)`".into(),
            rule: Some("Read(//etc/**)".into()),
        }
    );
}

#[test]
fn deny_and_ask_rules_come_first() {
    let fx = fx();
    let c = ctx(
        &fx,
        PermissionMode::Auto,
        &[
            (RuleBehavior::Deny, "Bash(curl:*)"),
            (RuleBehavior::Deny, "Bash(rm:*)"),
            (RuleBehavior::Ask, "Bash(touch:*)"),
            (RuleBehavior::Deny, "Read(./secret)"),
        ],
    );
    assert_eq!(
        bash(&c, "curl https://example.com"),
        Decision::Deny {
            reason: "Permission to use Bash has been denied by rule `Bash(curl:*)` (userSettings)"
                .into(),
            rule: Some("Bash(curl:*)".into()),
        }
    );
    assert_eq!(
        bash(&c, "rm a"),
        Decision::Deny {
            reason: "Permission to use Bash has been denied by rule `Bash(rm:*)` (userSettings)"
                .into(),
            rule: Some("Bash(rm:*)".into()),
        }
    );
    assert_eq!(
        bash(&c, "touch a"),
        Decision::Ask {
            reason: "Bash command requires approval (rule `Bash(touch:*)`)".into(),
            suggestions: vec!["Bash(touch *)".into()],
        }
    );
    assert_eq!(
        bash(&c, "cat secret"),
        Decision::Deny {
            reason:
                "Permission to use Bash has been denied by rule `Read(./secret)` (userSettings)"
                    .into(),
            rule: Some("Read(./secret)".into()),
        }
    );
    // A deny rule that might match asks.
    let c = ctx(
        &fx,
        PermissionMode::Auto,
        &[(RuleBehavior::Deny, "Bash(rm:*)")],
    );
    assert_eq!(
        bash(&c, "$tool x"),
        Decision::Ask {
            reason: "Bash: `$tool x` might match deny rule `Bash(rm:*)`".into(),
            suggestions: Vec::new(),
        }
    );
}

#[test]
fn a_hook_allow_still_goes_to_the_classifier() {
    let fx = fx();
    let c = auto(&fx);
    let input = json!({"command": "npm install"});
    assert_eq!(
        c.decide_hook_allowed("Bash", &[], &input, false, &[]),
        classify("npm install", &["Bash(npm install *)"])
    );
    assert_eq!(
        c.decide_hook_allowed("WebSearch", &[], &json!({"query": "x"}), true, &[]),
        Decision::Classify {
            reason: "WebSearch requires approval".into(),
            suggestions: vec!["WebSearch".into()],
        }
    );
}

#[test]
fn other_tools_in_auto_mode() {
    let fx = fx();
    let c = auto(&fx);
    assert_eq!(
        read(&c, "src/main.rs"),
        Decision::Allow {
            reason: "read-only, inside the working directories".into(),
            rule: None,
        }
    );
    assert_eq!(
        edit(&c, "src/main.rs"),
        fast("edit inside the working directories")
    );
    let passwd = fx.root.join("outside/deep/er/notes");
    assert_eq!(
        read(&c, passwd.to_str().unwrap()),
        Decision::Classify {
            reason: format!(
                "Read touches a path outside the working directories ({})",
                passwd.display()
            ),
            suggestions: vec![format!(
                "Read(/{}/**)",
                fx.root.join("outside/deep/er").display()
            )],
        }
    );
    let outside = fx.root.join("elsewhere/x.txt");
    assert_eq!(
        edit(&c, outside.to_str().unwrap()),
        Decision::Classify {
            reason: format!(
                "Edit touches a path outside the working directories ({})",
                outside.display()
            ),
            suggestions: vec![format!("Edit(/{}/**)", fx.root.join("elsewhere").display())],
        }
    );
    assert_eq!(
        c.decide(
            "WebFetch",
            &[],
            &json!({"url": "https://docs.rs/x", "prompt": "p"}),
            true,
            &[]
        ),
        Decision::Classify {
            reason: "WebFetch requires approval".into(),
            suggestions: vec!["WebFetch(domain:docs.rs)".into()],
        }
    );
    assert_eq!(
        c.decide("mcp__fs__write", &[], &json!({}), false, &[]),
        Decision::Classify {
            reason: "mcp__fs__write requires approval".into(),
            suggestions: vec!["mcp__fs__write".into()],
        }
    );
    assert_eq!(
        c.decide("TodoWrite", &[], &json!({"todos": []}), false, &[]),
        Decision::Allow {
            reason: "TodoWrite needs no permission".into(),
            rule: None,
        }
    );
    // A path that cannot be resolved asks a person.
    symlink("loop", fx.proj.join("loop")).unwrap();
    assert_eq!(
        read(&c, "loop/x"),
        Decision::Ask {
            reason: format!(
                "Read: too many levels of symbolic links resolving {}",
                fx.proj.join("loop/x").display()
            ),
            suggestions: Vec::new(),
        }
    );
}

#[test]
fn plan_mode_classifies_what_it_would_ask_with_during_plan() {
    let fx = fx();
    let mut c = ctx(&fx, PermissionMode::Plan, &[]);
    let search =
        |c: &PermissionContext| c.decide("WebSearch", &[], &json!({"query": "x"}), true, &[]);
    assert_eq!(
        search(&c),
        Decision::Classify {
            reason: "WebSearch requires approval".into(),
            suggestions: vec!["WebSearch".into()],
        }
    );
    assert!(matches!(edit(&c, "src/a.rs"), Decision::Deny { .. }));
    c.set_auto_options(AutoOptions {
        classify_all_shell: false,
        during_plan: false,
    });
    assert_eq!(
        search(&c),
        Decision::Ask {
            reason: "WebSearch requires approval".into(),
            suggestions: vec!["WebSearch".into()],
        }
    );
    assert_eq!(AutoOptions::default().during_plan, true);
}
