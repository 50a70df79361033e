//! The text of the slash commands that show something: `/cost`, `/context`,
//! `/status`, `/permissions` (and its auto-mode decisions view), `/hooks`,
//! `/config`, `/memory`, `/model`, `/mcp` and `/agents`. Pure functions of
//! what the runtime reports, so each is snapshot-tested.

use std::path::Path;
use std::time::Duration;

use tack_config::Settings;
use tack_runtime::PermissionMode;
use tack_runtime::{AutoDecider, AutoDecisionView, HookView, SessionInfo, SessionSnapshot};
use tack_tui::status::tokens;
use tack_tui::{AutoDecision, Decider, NoticeLevel, UiEvent};

/// `/mcp`: each server the session started, its status, and how many of its
/// tools the model is offered now.
pub fn mcp(info: &SessionInfo) -> String {
    if info.mcp_servers.is_empty() {
        return "No MCP servers. Add one with `tack mcp add <name> -- <command>`, in .mcp.json, \
or with --mcp-config."
            .to_owned();
    }
    let mut lines = vec!["MCP servers:".to_owned()];
    for server in &info.mcp_servers {
        let prefix = format!("mcp__{}__", server.name);
        let tools = info.tools.iter().filter(|t| t.starts_with(&prefix)).count();
        let tools = match tools {
            1 => "1 tool".to_owned(),
            n => format!("{n} tools"),
        };
        lines.push(format!("  {}  {}  {tools}", server.name, server.status));
    }
    lines.join("\n")
}

/// `/agents`: the sub-agent types the Agent tool offers.
pub fn agents(info: &SessionInfo) -> String {
    if info.extensions.agents.is_empty() {
        return "No sub-agents: the Agent tool is not offered in this session.".to_owned();
    }
    let mut lines = vec!["Sub-agents (the Agent tool's subagent_type):".to_owned()];
    for agent in &info.extensions.agents {
        let model = agent.model.as_deref().unwrap_or("session model");
        lines.push(format!("  {} ({model})", agent.name));
        lines.push(format!("    {}", agent.description));
    }
    lines.push(
        "Define more in .claude/agents/*.md (this project) or ~/.claude/agents/*.md (you)."
            .to_owned(),
    );
    lines.join("\n")
}

/// `/cost`. `wall`: how long the session has been open.
pub fn cost(s: &SessionSnapshot, wall: Duration) -> String {
    let mut out = format!(
        "Total cost:            ${:.4}\nTotal duration (API):  {}\nTotal duration (wall): {}\n",
        s.totals.total_cost_usd,
        duration(s.totals.api_duration),
        duration(wall)
    );
    if s.totals.model_usage.is_empty() {
        out.push_str("Usage:                 no model requests yet");
        return out;
    }
    out.push_str("Usage by model:");
    for (model, u) in &s.totals.model_usage {
        let unknown = if u.cost_known { "" } else { " (price unknown)" };
        out.push_str(&format!(
            "\n  {model}: {} input, {} output, {} cache read, {} cache write (${:.4}{unknown})",
            tokens(u.input_tokens),
            tokens(u.output_tokens),
            tokens(u.cache_read_input_tokens),
            tokens(u.cache_creation_input_tokens),
            u.cost_usd
        ));
    }
    if let Some(c) = &s.classifier {
        out.push_str(&format!(
            "\nAuto mode's classifier ({}, included above): {} calls classified in {} requests, {} input, {} output, {} cache read (${:.4})",
            c.model,
            c.calls,
            c.requests,
            tokens(c.usage.input_tokens),
            tokens(c.usage.output_tokens),
            tokens(c.usage.cache_read_input_tokens),
            c.cost_usd
        ));
    }
    out
}

/// `/context`.
pub fn context(s: &SessionSnapshot) -> String {
    let c = &s.context;
    let window = c.window.max(1);
    let used = c.current();
    let pct = |n: u64| n as f64 * 100.0 / window as f64;
    let how = if c.used.is_some() {
        "as of the last request"
    } else {
        "estimated: no request yet"
    };
    let mut out = format!(
        "Context · {} · {} of {} tokens ({:.0}%), {how}\n",
        s.model,
        tokens(used),
        tokens(c.window),
        pct(used)
    );
    const WIDTH: u64 = 40;
    let filled = (used.min(window) * WIDTH).div_ceil(window);
    out.push_str(&format!(
        "[{}{}]\n",
        "█".repeat(filled as usize),
        "░".repeat((WIDTH - filled) as usize)
    ));
    let rows = [
        ("System prompt", c.system_prompt),
        ("Tools", c.tools),
        ("Memory files", c.memory),
        ("Messages", c.messages),
    ];
    for (name, n) in rows {
        out.push_str(&format!("  {name:<14}{:>8}  {:>5.1}%\n", tokens(n), pct(n)));
    }
    out.push_str(&format!(
        "  {:<14}{:>8}  {:>5.1}%\n",
        "Free space",
        tokens(window.saturating_sub(used)),
        pct(window.saturating_sub(used))
    ));
    match c.autocompact_at {
        Some(at) => out.push_str(&format!(
            "Autocompaction at {} tokens; /compact [instructions] compacts now.",
            tokens(at)
        )),
        None => out.push_str("Autocompaction is off; /compact [instructions] compacts now."),
    }
    out.push_str(&format!(
        "\n({} messages; the parts are estimates of about 4 bytes a token)",
        s.messages
    ));
    out
}

/// `/status`.
pub fn status(
    s: &SessionSnapshot,
    info: &SessionInfo,
    settings: &Settings,
    trusted: bool,
) -> String {
    let mut lines = vec![
        format!("tack {}", info.version),
        format!("  Session:          {}", s.session_id),
        format!("  Directory:        {}", info.cwd.display()),
        format!("  Model:            {}", s.model),
        format!("  Permission mode:  {}", s.permission_mode.label()),
        format!("  API key:          {}", info.api_key_source),
        format!(
            "  Workspace:        {}",
            if trusted { "trusted" } else { "not trusted" }
        ),
    ];
    if let Some(path) = &info.transcript_path {
        lines.push(format!("  Transcript:       {}", path.display()));
    }
    let sources: Vec<String> = settings.sources().map(|s| s.to_string()).collect();
    lines.push(format!(
        "  Settings:         {}",
        if sources.is_empty() {
            "none".to_owned()
        } else {
            sources.join(", ")
        }
    ));
    lines.join("\n")
}

/// `/permissions`: the rules as a notice, then the decisions view when
/// auto mode has decided anything.
pub fn permissions_view(s: &SessionSnapshot) -> Vec<UiEvent> {
    let mut events = vec![UiEvent::Notice {
        level: NoticeLevel::Info,
        text: permissions(s),
    }];
    if !s.auto_decisions.is_empty() {
        let decisions = s.auto_decisions.iter().map(auto_decision).collect();
        events.push(UiEvent::AutoDecisions(decisions));
    }
    events
}

fn auto_decision(view: &AutoDecisionView) -> AutoDecision {
    AutoDecision {
        tool_name: view.tool_name.clone(),
        summary: view.summary.clone(),
        allowed: view.allowed,
        decided_by: match &view.decided_by {
            AutoDecider::Rule { rule } => Decider::Rule(rule.clone()),
            AutoDecider::FastPath => Decider::FastPath,
            AutoDecider::Classifier { stage } => Decider::Classifier { stage: *stage },
            AutoDecider::ClassifierFailed => Decider::ClassifierFailed,
            AutoDecider::Person => Decider::Person,
        },
        reason: view.reason.clone(),
        rule: view.rule.clone(),
    }
}

/// `/permissions`' text: the mode, the rules, the rules auto mode sets
/// aside, and how many decisions the view below lists.
pub fn permissions(s: &SessionSnapshot) -> String {
    let mut out = format!(
        "Permission mode: {} (Shift+Tab changes it)",
        s.permission_mode.label()
    );
    for behavior in ["allow", "ask", "deny"] {
        let rules: Vec<String> = s
            .rules
            .iter()
            .filter(|r| r.behavior == behavior)
            .map(|r| {
                let file = r
                    .file
                    .as_ref()
                    .map(|f| format!(" · {}", f.display()))
                    .unwrap_or_default();
                format!("\n  {}  ({}{file})", r.rule, r.source)
            })
            .collect();
        out.push_str(&format!("\n{}:", capitalised(behavior)));
        if rules.is_empty() {
            out.push_str(" none");
        }
        for r in rules {
            out.push_str(&r);
        }
    }
    if !s.set_aside.is_empty() {
        out.push_str("\nSet aside while auto mode is on (the classifier decides these calls):");
        for rule in &s.set_aside {
            out.push_str(&format!("\n  {rule}"));
        }
    }
    let blocked = s.auto_decisions.iter().filter(|d| !d.allowed).count();
    match s.auto_decisions.len() {
        0 if s.permission_mode == PermissionMode::Auto => {
            out.push_str("\nAuto mode: no decisions yet.");
        }
        0 => {}
        n => out.push_str(&format!(
            "\nAuto mode: {n} recent decision{}, {blocked} blocked, listed below \
             (a on a block allows calls like it).",
            if n == 1 { "" } else { "s" }
        )),
    }
    out.push_str(
        "\nRules live in the `permissions` of a settings file; \"Yes, and don't ask again\" \
         in a permission dialog adds one to .claude/settings.local.json.",
    );
    out
}

/// `/hooks`: the command hooks the session runs, by event.
pub fn hooks(hooks: &[HookView]) -> String {
    if hooks.is_empty() {
        return "No hooks are configured. Add them under \"hooks\" in a settings file \
                (~/.claude/settings.json, .claude/settings.json)."
            .to_owned();
    }
    let mut out = String::new();
    let mut event = None;
    for hook in hooks {
        if event != Some(&hook.event) {
            out.push_str(&format!("{}\n", hook.event));
            event = Some(&hook.event);
        }
        let matcher = hook.matcher.as_deref().unwrap_or("*");
        let background = if hook.is_async { " (async)" } else { "" };
        out.push_str(&format!("  {matcher} → {}{background}\n", hook.command));
    }
    out.trim_end().to_owned()
}

/// `/config`.
pub fn config(settings: &Settings, model: &str) -> String {
    let mut out = String::from("Settings files, lowest precedence first:");
    let mut any = false;
    for source in settings.sources() {
        any = true;
        out.push_str(&format!("\n  {source}"));
    }
    if !any {
        out.push_str(" none");
    }
    // Named as the UI names modes ("Manual" for default); the values are
    // checked when the settings are read.
    let mode = settings
        .permissions()
        .default_mode()
        .and_then(|m| m.value().parse::<PermissionMode>().ok())
        .unwrap_or_default()
        .label();
    out.push_str(&format!(
        "\nmodel: {model}\npermissions.defaultMode: {mode}\nautoCompactEnabled: {}\nstatusLine: {}",
        settings.auto_compact_enabled(),
        if settings.status_line().is_some() {
            "set"
        } else {
            "not set"
        }
    ));
    let env: Vec<&str> = settings.env().keys().map(String::as_str).collect();
    if !env.is_empty() {
        out.push_str(&format!("\nenv: {}", env.join(", ")));
    }
    for ignored in settings.ignored_untrusted() {
        out.push_str(&format!(
            "\nignored until the workspace is trusted: {} ({})",
            ignored.key, ignored.source
        ));
    }
    out
}

/// `/memory`: the memory files the session read.
pub fn memory(files: &[&Path], project_file: &Path) -> String {
    let mut out = String::from("Memory files:");
    if files.is_empty() {
        out.push_str(" none");
    }
    for f in files {
        out.push_str(&format!("\n  {}", f.display()));
    }
    out.push_str(&format!(
        "\n#note adds a line to {}; /memory edit opens it in $EDITOR. \
         Memory is read when a session starts.",
        project_file.display()
    ));
    out
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `1m 2.3s`, `12.3s`.
fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 60.0 {
        format!("{}m {:.1}s", (secs / 60.0) as u64, secs % 60.0)
    } else {
        format!("{secs:.1}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use tack_protocol::stream_json::McpServerStatus;
    use tack_runtime::PermissionMode;
    use tack_runtime::{AgentSummary, ContextUsage, RuleView};
    use tack_runtime::{ModelUsage, SessionTotals};

    fn snapshot() -> SessionSnapshot {
        let mut model_usage = BTreeMap::new();
        model_usage.insert(
            "claude-sonnet-4-5".to_owned(),
            ModelUsage {
                input_tokens: 1_200,
                output_tokens: 340,
                cache_read_input_tokens: 45_000,
                cache_creation_input_tokens: 3_100,
                web_search_requests: 0,
                cost_usd: 0.0421,
                cost_known: true,
            },
        );
        SessionSnapshot {
            session_id: "0d9c1f3e-0000-4000-8000-000000000000".into(),
            model: "claude-sonnet-4-5".into(),
            permission_mode: PermissionMode::AcceptEdits,
            totals: SessionTotals {
                model_usage,
                total_cost_usd: 0.0421,
                api_duration: Duration::from_millis(12_340),
                ..SessionTotals::default()
            },
            turns_duration: Duration::from_secs(20),
            context: ContextUsage {
                window: 200_000,
                used: Some(49_640),
                system_prompt: 3_100,
                tools: 11_800,
                memory: 420,
                messages: 33_900,
                autocompact_at: Some(167_000),
            },
            messages: 14,
            rules: vec![
                RuleView {
                    behavior: "allow".into(),
                    rule: "Bash(git diff:*)".into(),
                    source: "localSettings".into(),
                    file: Some(PathBuf::from("/p/.claude/settings.local.json")),
                },
                RuleView {
                    behavior: "deny".into(),
                    rule: "WebFetch".into(),
                    source: "cliArg".into(),
                    file: None,
                },
            ],
            turn_running: false,
            hooks: Vec::new(),
            sandbox: "sandbox: off (Bash commands run unconfined)".to_owned(),
            auto_decisions: Vec::new(),
            set_aside: Vec::new(),
            classifier: None,
            place: Default::default(),
        }
    }

    #[test]
    fn cost_shows_the_classifier_apart() {
        let s = SessionSnapshot {
            classifier: Some(tack_runtime::ClassifierUsage {
                model: "claude-haiku-4-5".into(),
                calls: 3,
                requests: 4,
                usage: tack_protocol::Usage {
                    input_tokens: 1200,
                    output_tokens: 40,
                    cache_read_input_tokens: 9000,
                    ..Default::default()
                },
                cost_usd: 0.0021,
            }),
            ..snapshot()
        };
        let shown = cost(&s, Duration::from_secs(1));
        assert_eq!(
            shown.lines().last(),
            Some(
                "Auto mode's classifier (claude-haiku-4-5, included above): 3 calls classified in 4 requests, 1.2k input, 40 output, 9.0k cache read ($0.0021)"
            )
        );
    }

    #[test]
    fn cost_context_permissions() {
        let s = snapshot();
        insta::assert_snapshot!("cost", cost(&s, Duration::from_secs(75)));
        insta::assert_snapshot!("context", context(&s));
        insta::assert_snapshot!("permissions", permissions(&s));
        let fresh = SessionSnapshot {
            totals: SessionTotals::default(),
            context: ContextUsage {
                used: None,
                messages: 0,
                autocompact_at: None,
                ..s.context
            },
            messages: 0,
            rules: Vec::new(),
            ..s
        };
        insta::assert_snapshot!("cost_fresh", cost(&fresh, Duration::from_secs(3)));
        insta::assert_snapshot!("context_fresh", context(&fresh));
    }

    #[test]
    fn permissions_in_auto_mode_list_set_aside_rules_and_open_the_decisions() {
        let decision =
            |tool: &str, summary: &str, allowed, decided_by, rule: Option<&str>| AutoDecisionView {
                tool_use_id: format!("toolu_{summary}"),
                tool_name: tool.into(),
                summary: summary.into(),
                allowed,
                decided_by,
                reason: format!("why {summary}"),
                rule: rule.map(str::to_owned),
            };
        let s = SessionSnapshot {
            permission_mode: PermissionMode::Auto,
            set_aside: vec!["Bash(python3:*)".into(), "Bash(npm run:*)".into()],
            auto_decisions: vec![
                decision("Read", "src/lib.rs", true, AutoDecider::FastPath, None),
                decision(
                    "Bash",
                    "git status",
                    true,
                    AutoDecider::Rule {
                        rule: "Bash(git status:*)".into(),
                    },
                    None,
                ),
                decision(
                    "Bash",
                    "npm install",
                    false,
                    AutoDecider::Classifier { stage: 2 },
                    Some("Bash(npm install:*)"),
                ),
                decision("Bash", "curl x", false, AutoDecider::ClassifierFailed, None),
                decision("Bash", "rm -rf /tmp/x", true, AutoDecider::Person, None),
            ],
            ..snapshot()
        };
        insta::assert_snapshot!("permissions_auto", permissions(&s));
        let shown = |summary: &str, allowed, decided_by, rule: Option<&str>| AutoDecision {
            tool_name: if summary == "src/lib.rs" {
                "Read"
            } else {
                "Bash"
            }
            .into(),
            summary: summary.into(),
            allowed,
            decided_by,
            reason: format!("why {summary}"),
            rule: rule.map(str::to_owned),
        };
        assert_eq!(
            permissions_view(&s),
            vec![
                UiEvent::Notice {
                    level: NoticeLevel::Info,
                    text: permissions(&s),
                },
                UiEvent::AutoDecisions(vec![
                    shown("src/lib.rs", true, Decider::FastPath, None),
                    shown(
                        "git status",
                        true,
                        Decider::Rule("Bash(git status:*)".into()),
                        None
                    ),
                    shown(
                        "npm install",
                        false,
                        Decider::Classifier { stage: 2 },
                        Some("Bash(npm install:*)")
                    ),
                    shown("curl x", false, Decider::ClassifierFailed, None),
                    shown("rm -rf /tmp/x", true, Decider::Person, None),
                ]),
            ]
        );
        // Nothing decided yet: the rules only, and no view.
        let fresh = SessionSnapshot {
            auto_decisions: Vec::new(),
            ..s
        };
        let text = permissions(&fresh);
        assert!(text.contains("\nAuto mode: no decisions yet.\n"), "{text}");
        assert_eq!(
            permissions_view(&fresh),
            vec![UiEvent::Notice {
                level: NoticeLevel::Info,
                text
            }]
        );
    }

    #[test]
    fn status_names_the_default_mode_manual() {
        let s = SessionSnapshot {
            permission_mode: PermissionMode::Default,
            ..snapshot()
        };
        insta::assert_snapshot!("status", status(&s, &session_info(), &settings(&[]), true));
    }

    fn settings(layers: &[(tack_config::Scope, &str)]) -> Settings {
        Settings::from_layers(
            layers.iter().map(|(scope, text)| {
                let file = match scope {
                    tack_config::Scope::User => "/home/u/.claude/settings.json",
                    _ => "/p/.claude/settings.json",
                };
                (
                    tack_config::Source::file(*scope, file, "/p"),
                    (*text).to_owned(),
                )
            }),
            None,
        )
        .unwrap()
    }

    #[test]
    fn hooks_and_config() {
        let view = |event: &str, matcher: Option<&str>, command: &str, is_async| HookView {
            event: event.into(),
            matcher: matcher.map(str::to_owned),
            command: command.into(),
            is_async,
        };
        let listed = [
            view("Notification", None, "notify-send tack", false),
            view("PostToolUse", Some("Edit|Write"), "cargo fmt", true),
        ];
        insta::assert_snapshot!("hooks", hooks(&listed));
        insta::assert_snapshot!("hooks_none", hooks(&[]));
        let s = settings(&[
            (tack_config::Scope::User, r#"{"model": "opus"}"#),
            (
                tack_config::Scope::Project,
                r#"{"env": {"RUST_LOG": "info"}}"#,
            ),
        ]);
        insta::assert_snapshot!("config", config(&s, "claude-opus-4-1"));
    }

    #[test]
    fn memory_files() {
        let files = [
            Path::new("/home/u/.claude/CLAUDE.md"),
            Path::new("/p/CLAUDE.md"),
        ];
        insta::assert_snapshot!("memory", memory(&files, Path::new("/p/CLAUDE.md")));
    }

    fn session_info() -> SessionInfo {
        SessionInfo {
            extensions: tack_runtime::ExtensionsInfo {
                agents: vec![
                    AgentSummary {
                        name: "general-purpose".into(),
                        description: "Researches and does multi-step tasks".into(),
                        model: None,
                    },
                    AgentSummary {
                        name: "reviewer".into(),
                        description: "Reviews a diff".into(),
                        model: Some("haiku".into()),
                    },
                ],
                main_agent: None,
                slash_commands: Vec::new(),
                output_style: "default".into(),
                output_styles: vec!["default".into()],
                skills: Vec::new(),
                plugins: Vec::new(),
                plugin_errors: Vec::new(),
            },
            session_id: "0b5e".into(),
            cwd: PathBuf::from("/p"),
            model: "claude-sonnet-4-5".into(),
            tools: ["Bash", "Agent", "mcp__docs__search", "mcp__docs__fetch"]
                .map(String::from)
                .to_vec(),
            permission_mode: PermissionMode::Default,
            api_key_source: "ANTHROPIC_API_KEY".into(),
            api_provider: "firstParty".into(),
            transcript_path: None,
            resumed: false,
            mcp_servers: vec![
                McpServerStatus {
                    name: "docs".into(),
                    status: "connected".into(),
                },
                McpServerStatus {
                    name: "broken".into(),
                    status: "failed".into(),
                },
            ],
            version: "0.1.0".into(),
        }
    }

    #[test]
    fn mcp_and_agents() {
        let info = session_info();
        assert_eq!(
            mcp(&info),
            "MCP servers:\n  docs  connected  2 tools\n  broken  failed  0 tools"
        );
        assert_eq!(
            agents(&info),
            "Sub-agents (the Agent tool's subagent_type):\n  \
             general-purpose (session model)\n    Researches and does multi-step tasks\n  \
             reviewer (haiku)\n    Reviews a diff\n\
             Define more in .claude/agents/*.md (this project) or ~/.claude/agents/*.md (you)."
        );
        let bare = SessionInfo {
            extensions: tack_runtime::ExtensionsInfo {
                agents: Vec::new(),
                ..info.extensions
            },
            mcp_servers: Vec::new(),
            ..info
        };
        assert!(mcp(&bare).starts_with("No MCP servers."), "{}", mcp(&bare));
        assert_eq!(
            agents(&bare),
            "No sub-agents: the Agent tool is not offered in this session."
        );
    }
}
