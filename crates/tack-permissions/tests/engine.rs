//! Engine behaviour that needs a real filesystem (symlinks) or several calls:
//! symlinks leaving the project, additional directories, legacy names, rule
//! sources, hook-allowed decisions and print mode.

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_permissions::{
    Decision, PermissionContext, PermissionMode, RuleBehavior, RuleSet, RuleSource,
};

/// A project, a home and directories around them, in a fresh temporary directory.
pub(crate) struct Fx {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) proj: PathBuf,
    pub(crate) home: PathBuf,
}

pub(crate) fn fx() -> Fx {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let proj = root.join("proj");
    let home = root.join("home");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::create_dir_all(proj.join("docs")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(root.join("outside/deep/er")).unwrap();
    std::fs::create_dir_all(root.join("shared")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "k").unwrap();
    Fx {
        _dir: dir,
        root,
        proj,
        home,
    }
}

fn ctx(fx: &Fx, mode: PermissionMode, rules: &[(RuleBehavior, &str)]) -> PermissionContext {
    let mut set = RuleSet::new();
    let src = RuleSource {
        name: "projectSettings".into(),
        file: Some(fx.proj.join(".tack/settings.json")),
        root: Some(fx.proj.clone()),
    };
    for (b, r) in rules {
        set.add(&src, *b, r).unwrap();
    }
    PermissionContext::new(mode, set, &fx.proj, &fx.home, &[fx.root.join("shared")])
}

fn label(d: &Decision) -> &'static str {
    match d {
        Decision::Allow { .. } => "allow",
        Decision::Deny { .. } => "deny",
        Decision::Ask { .. } => "ask",
        Decision::Classify { .. } => "classify",
    }
}

fn edit(c: &PermissionContext, p: &str) -> &'static str {
    let input = json!({"file_path": p, "old_string": "a", "new_string": "b"});
    label(&c.decide("Edit", &[], &input, false, &[PathBuf::from(p)]))
}

fn read(c: &PermissionContext, p: &str) -> &'static str {
    label(&c.decide(
        "Read",
        &[],
        &json!({"file_path": p}),
        true,
        &[PathBuf::from(p)],
    ))
}

fn bash(c: &PermissionContext, cmd: &str) -> &'static str {
    label(&c.decide("Bash", &[], &json!({"command": cmd}), false, &[]))
}

#[test]
fn symlink_inside_pointing_outside_counts_as_outside() {
    let fx = fx();
    symlink(fx.home.join(".ssh"), fx.proj.join("keys")).unwrap();
    symlink(fx.root.join("outside/new.txt"), fx.proj.join("dangling")).unwrap();
    symlink(fx.root.join("outside/deep/er"), fx.proj.join("deeplink")).unwrap();
    let c = ctx(&fx, PermissionMode::AcceptEdits, &[]);
    assert_eq!(read(&c, "./keys/id_rsa"), "ask");
    assert_eq!(edit(&c, "./keys/authorized_keys"), "ask");
    // A dangling symlink: writing through it creates its (outside) target.
    assert_eq!(edit(&c, "./dangling"), "ask");
    // `deeplink/..` is outside/deep for the kernel, although lexically it is proj.
    assert_eq!(edit(&c, "./deeplink/../x.txt"), "ask");
    // Redirections follow the same resolution.
    assert_eq!(bash(&c, "echo hi > keys/authorized_keys"), "ask");
    assert_eq!(bash(&c, "echo hi > dangling"), "ask");
    // The same edits through real project paths are fine.
    assert_eq!(edit(&c, "./src/x.rs"), "allow");
    assert_eq!(bash(&c, "echo hi > src/x.txt"), "allow");
}

#[test]
fn symlink_to_a_denied_file_is_denied() {
    let fx = fx();
    std::fs::write(fx.proj.join(".env"), "S=1").unwrap();
    symlink(fx.proj.join(".env"), fx.proj.join("innocent.txt")).unwrap();
    let c = ctx(
        &fx,
        PermissionMode::Default,
        &[(RuleBehavior::Deny, "Read(./.env)")],
    );
    assert_eq!(read(&c, "./innocent.txt"), "deny");
    assert_eq!(bash(&c, "head -1 < innocent.txt"), "deny");
}

#[test]
fn symlink_swapped_after_a_decision_is_seen_by_the_next_one() {
    // A race cannot be closed by the engine (tools must open with care); but every
    // decision re-resolves, so a link swapped between two calls is caught.
    let fx = fx();
    let c = ctx(&fx, PermissionMode::AcceptEdits, &[]);
    std::fs::create_dir_all(fx.proj.join("build")).unwrap();
    assert_eq!(edit(&c, "./build/out.txt"), "allow");
    std::fs::remove_dir(fx.proj.join("build")).unwrap();
    symlink(fx.root.join("outside"), fx.proj.join("build")).unwrap();
    assert_eq!(edit(&c, "./build/out.txt"), "ask");
}

#[test]
fn symlink_loop_is_asked() {
    let fx = fx();
    symlink("loop", fx.proj.join("loop")).unwrap();
    let c = ctx(
        &fx,
        PermissionMode::BypassPermissions,
        &[(RuleBehavior::Deny, "Read(./secret)")],
    );
    assert_eq!(read(&c, "./loop/x"), "ask");
}

#[test]
fn additional_directories_are_working_directories() {
    let fx = fx();
    let c = ctx(&fx, PermissionMode::AcceptEdits, &[]);
    let shared = fx.root.join("shared/a.txt");
    assert_eq!(edit(&c, shared.to_str().unwrap()), "allow");
    assert_eq!(read(&c, shared.to_str().unwrap()), "allow");
    assert_eq!(
        edit(&c, fx.root.join("outside/a.txt").to_str().unwrap()),
        "ask"
    );
    assert_eq!(c.working_dirs(), &[fx.proj.clone(), fx.root.join("shared")]);
}

#[test]
fn settings_root_anchor_and_absolute_anchor() {
    let fx = fx();
    let abs = format!("Edit(/{}/outside/**)", fx.root.display());
    let c = ctx(
        &fx,
        PermissionMode::Default,
        &[
            (RuleBehavior::Allow, "Edit(/docs/**)"),
            (RuleBehavior::Allow, &abs),
        ],
    );
    assert_eq!(edit(&c, "./docs/guide.md"), "allow");
    assert_eq!(edit(&c, "./src/main.rs"), "ask");
    assert_eq!(
        edit(&c, fx.root.join("outside/x").to_str().unwrap()),
        "allow"
    );
}

#[test]
fn legacy_names_and_aliases() {
    let fx = fx();
    let c = ctx(
        &fx,
        PermissionMode::Default,
        &[
            (RuleBehavior::Deny, "KillShell"),
            (RuleBehavior::Deny, "Task(Explore)"),
            (RuleBehavior::Deny, "Agent(model:opus)"),
        ],
    );
    let d = |tool: &str, aliases: &[&str], input: Value| {
        label(&c.decide(tool, aliases, &input, false, &[]))
    };
    assert_eq!(
        d("TaskStop", &["KillShell"], json!({"task_id": "1"})),
        "deny"
    );
    assert_eq!(d("TaskStop", &[], json!({"task_id": "1"})), "deny");
    assert_eq!(
        d("TaskOutput", &["BashOutput"], json!({"task_id": "1"})),
        "allow"
    );
    assert_eq!(d("Agent", &[], json!({"subagent_type": "Explore"})), "deny");
    assert_eq!(d("Task", &[], json!({"subagent_type": "Explore"})), "deny");
    assert_eq!(d("Agent", &[], json!({"subagent_type": "Plan"})), "allow");
    assert_eq!(
        d(
            "Agent",
            &[],
            json!({"subagent_type": "Plan", "model": "opus"})
        ),
        "deny"
    );
}

#[test]
fn param_rules() {
    let fx = fx();
    let c = ctx(
        &fx,
        PermissionMode::Default,
        &[
            (RuleBehavior::Allow, "Bash(npm test)"),
            (RuleBehavior::Deny, "Bash(run_in_background:true)"),
        ],
    );
    let d = |input: Value| label(&c.decide("Bash", &[], &input, false, &[]));
    assert_eq!(d(json!({"command": "npm test"})), "allow");
    assert_eq!(
        d(json!({"command": "npm test", "run_in_background": true})),
        "deny"
    );
}

#[test]
fn hook_allow_still_honours_deny_and_ask() {
    let fx = fx();
    let c = ctx(
        &fx,
        PermissionMode::Default,
        &[
            (RuleBehavior::Deny, "Bash(rm:*)"),
            (RuleBehavior::Ask, "Bash(git push:*)"),
        ],
    );
    let h = |cmd: &str| {
        label(&c.decide_hook_allowed("Bash", &[], &json!({"command": cmd}), false, &[]))
    };
    assert_eq!(h("curl x | sh"), "allow");
    assert_eq!(h("rm -rf x"), "deny");
    assert_eq!(h("git push"), "ask");
}

#[test]
fn print_mode_turns_ask_into_deny() {
    let fx = fx();
    let c = ctx(&fx, PermissionMode::Default, &[]);
    let d = c
        .decide("Bash", &[], &json!({"command": "make"}), false, &[])
        .without_prompt();
    assert_eq!(
        d,
        Decision::Deny {
            reason: "Bash: `make` is not allowed by any rule (no permission prompt available)"
                .into(),
            rule: None
        }
    );
}

#[test]
fn suggestions_for_allow_always() {
    let fx = fx();
    let c = ctx(&fx, PermissionMode::Default, &[]);
    let Decision::Ask { suggestions, .. } = c.decide(
        "Bash",
        &[],
        &json!({"command": "git log --oneline | grep fix"}),
        false,
        &[],
    ) else {
        panic!()
    };
    assert_eq!(suggestions, vec!["Bash(git log *)", "Bash(grep *)"]);
    let Decision::Ask { suggestions, .. } = c.decide(
        "WebFetch",
        &[],
        &json!({"url": "https://Docs.RS/x", "prompt": "p"}),
        true,
        &[],
    ) else {
        panic!()
    };
    assert_eq!(suggestions, vec!["WebFetch(domain:docs.rs)"]);
}

/// ExitPlanMode and EnterPlanMode ask a person in every mode (auto mode
/// does not classify them, dontAsk refuses them); an allow rule or a deny
/// rule decides first. In plan mode Write and Edit may change the plan file
/// and nothing else.
#[test]
fn plan_mode_switches_ask_and_the_plan_file_is_the_one_file_plan_mode_writes() {
    let fx = fx();
    let switch =
        |c: &PermissionContext, tool: &str| label(&c.decide(tool, &[], &json!({}), false, &[]));
    let modes = [
        PermissionMode::Plan,
        PermissionMode::Default,
        PermissionMode::Auto,
        PermissionMode::AcceptEdits,
        PermissionMode::DontAsk,
    ];
    let asked: Vec<(&str, &str)> = modes
        .iter()
        .map(|m| {
            let c = ctx(&fx, *m, &[]);
            (switch(&c, "ExitPlanMode"), switch(&c, "EnterPlanMode"))
        })
        .collect();
    assert_eq!(
        asked,
        [
            ("ask", "ask"),
            ("ask", "ask"),
            ("ask", "ask"),
            ("ask", "ask"),
            ("deny", "deny")
        ]
    );
    let ruled = ctx(
        &fx,
        PermissionMode::Plan,
        &[
            (RuleBehavior::Allow, "ExitPlanMode"),
            (RuleBehavior::Deny, "EnterPlanMode"),
        ],
    );
    assert_eq!(
        (
            switch(&ruled, "ExitPlanMode"),
            switch(&ruled, "EnterPlanMode")
        ),
        ("allow", "deny")
    );
    let plan_file = fx.home.join(".claude/plans/quiet-river.md");
    let mut plan = ctx(&fx, PermissionMode::Plan, &[]);
    assert_eq!(edit(&plan, plan_file.to_str().unwrap()), "deny");
    plan.set_plan_file(plan_file.clone());
    let write = |c: &PermissionContext, p: &std::path::Path| {
        let input = json!({"file_path": p, "content": "# plan"});
        label(&c.decide("Write", &[], &input, false, &[p.to_path_buf()]))
    };
    assert_eq!(
        [
            write(&plan, &plan_file),
            edit(&plan, plan_file.to_str().unwrap()),
            write(&plan, &fx.home.join(".claude/plans/other.md")),
            edit(&plan, "./src/a.rs"),
        ],
        ["allow", "allow", "deny", "deny"]
    );
    // `//` starts an absolute path in a rule.
    let rule = format!("Write(/{})", plan_file.display());
    let mut denied = ctx(&fx, PermissionMode::Plan, &[(RuleBehavior::Deny, &rule)]);
    denied.set_plan_file(plan_file.clone());
    assert_eq!(write(&denied, &plan_file), "deny");
    let mut default = ctx(&fx, PermissionMode::Default, &[]);
    default.set_plan_file(plan_file.clone());
    assert_eq!(write(&default, &plan_file), "ask");
}

#[test]
fn modes_for_plain_tools() {
    let fx = fx();
    let plan = ctx(&fx, PermissionMode::Plan, &[]);
    assert_eq!(edit(&plan, "./src/a.rs"), "deny");
    assert_eq!(read(&plan, "./src/a.rs"), "allow");
    let dont = ctx(&fx, PermissionMode::DontAsk, &[]);
    assert_eq!(edit(&dont, "./src/a.rs"), "deny");
    assert_eq!(read(&dont, "./src/a.rs"), "allow");
    assert_eq!(
        label(&dont.decide("TodoWrite", &[], &json!({"todos": []}), false, &[])),
        "allow"
    );
    let asking = ctx(
        &fx,
        PermissionMode::DontAsk,
        &[
            (RuleBehavior::Ask, "mcp__fs__read"),
            (RuleBehavior::Ask, "Bash(ls)"),
        ],
    );
    assert_eq!(
        asking.decide("mcp__fs__read", &[], &json!({}), true, &[]),
        Decision::Deny {
            reason: "mcp__fs__read requires approval (rule `mcp__fs__read`); dontAsk mode denies anything not pre-allowed".into(),
            rule: None,
        }
    );
    assert_eq!(
        label(&asking.decide("Bash", &[], &json!({"command": "ls"}), false, &[])),
        "deny"
    );
    let def = ctx(&fx, PermissionMode::Default, &[]);
    assert_eq!(
        label(&def.decide("WebSearch", &[], &json!({"query": "x"}), true, &[])),
        "ask"
    );
    assert_eq!(
        label(&def.decide("mcp__fs__read", &[], &json!({}), true, &[])),
        "ask"
    );
}

#[test]
fn monitor_rules_name_its_command_as_bash_rules_do() {
    let fx = fx();
    let c = ctx(
        &fx,
        PermissionMode::Default,
        &[
            (RuleBehavior::Allow, "Monitor(tail -f:*)"),
            (RuleBehavior::Deny, "Monitor(rm:*)"),
            (RuleBehavior::Ask, "Monitor(npm run dev)"),
            (RuleBehavior::Allow, "Bash(npm:*)"),
        ],
    );
    let monitor = |cmd: &str| {
        label(&c.decide(
            "Monitor",
            &[],
            &json!({"description": "d", "command": cmd}),
            false,
            &[],
        ))
    };
    let got = [
        monitor("tail -f build.log"),
        monitor("tail -f a.log && rm -rf x"),
        monitor("rm -rf x"),
        monitor("npm run dev"),
        monitor("npm test"),
        monitor("make watch"),
        // A Monitor rule says nothing about Bash calls.
        bash(&c, "tail -f build.log"),
        bash(&c, "rm -rf x"),
    ];
    assert_eq!(
        got,
        ["allow", "deny", "deny", "ask", "allow", "ask", "ask", "ask"]
    );
    // As Bash's, a rule's specifier must be a command pattern.
    let mut set = RuleSet::new();
    let src = RuleSource {
        name: "projectSettings".into(),
        file: None,
        root: None,
    };
    assert!(
        set.add(&src, RuleBehavior::Allow, "Monitor(tail -f *)")
            .is_ok()
    );
}

#[test]
fn monitor_ws_is_decided_as_a_webfetch_of_its_host_and_a_monitor_rule_allows_it() {
    let fx = fx();
    let ws = |c: &PermissionContext, url: &str| {
        c.decide(
            "Monitor",
            &[],
            &json!({"description": "d", "ws": url}),
            false,
            &[],
        )
    };
    let rules = ctx(
        &fx,
        PermissionMode::Default,
        &[
            (RuleBehavior::Allow, "WebFetch(domain:feed.example.com)"),
            (RuleBehavior::Deny, "WebFetch(domain:*.evil.test)"),
            // A command pattern says nothing about a socket.
            (RuleBehavior::Allow, "Monitor(tail -f:*)"),
        ],
    );
    let got = [
        label(&ws(&rules, "wss://feed.example.com/stream")),
        label(&ws(&rules, "ws://a.evil.test:8080/")),
        label(&ws(&rules, "ws://127.0.0.1:9000/")),
    ];
    assert_eq!(got, ["allow", "deny", "ask"]);
    // "Always allow" suggests the host's WebFetch rule.
    let Decision::Ask { suggestions, .. } = ws(&rules, "ws://127.0.0.1:9000/") else {
        panic!("not an ask");
    };
    assert_eq!(suggestions, ["WebFetch(domain:127.0.0.1)"]);
    let whole = ctx(
        &fx,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "Monitor")],
    );
    assert_eq!(label(&ws(&whole, "ws://127.0.0.1:9000/")), "allow");
}
