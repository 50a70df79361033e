//! `initialize`, the first line of every SDK session: its options become
//! session options before the session starts (so the SDK's hooks see the
//! first SessionStart and prompt), and the answer says what tack really has.

use std::time::Duration;

use anyhow::bail;
use serde_json::json;
use tack_protocol::control::{
    AccountInfo, AgentInfo, HookCallbackMatcher, InitializeRequest, InitializeResponse,
    SlashCommand,
};
use tack_runtime::{CallbackHook, CallbackMatcher, OnFailure};
use tack_runtime::{CommandSource, SessionInfo, SessionOptions};

/// Applies what `initialize` asks for to `options`; what tack cannot do is an
/// error naming it (the session does not start).
pub fn apply(request: &InitializeRequest, options: &mut SessionOptions) -> anyhow::Result<()> {
    if let Some(hooks) = &request.hooks {
        for (event, matchers) in hooks {
            for m in matchers {
                options
                    .extensions
                    .hook_callbacks
                    .push(callback_matcher(event, m)?);
            }
        }
    }
    if let Some(agents) = request.agents.as_ref().filter(|a| !a.is_empty()) {
        // The runtime reads them as `--agents` JSON: one path for both.
        options.extensions.agents = Some(serde_json::to_string(agents)?);
    }
    if let Some(schema) = &request.json_schema {
        // The TypeScript SDK also passes `--json-schema`; either one is the schema.
        options.request.json_schema = Some(schema.clone());
    }
    if let Some(servers) = request.sdk_mcp_servers.as_ref().filter(|s| !s.is_empty()) {
        sdk_mcp_servers(servers, request, options);
    }
    if let Some(parts) = &request.system_prompt {
        // The TypeScript SDK's default is `[""]`: no default prompt at all.
        options.request.system_prompt = Some(parts.join("\n\n"));
    }
    if let Some(append) = &request.append_system_prompt {
        options.request.append_system_prompt = Some(append.clone());
    }
    Ok(())
}

/// TypeScript's in-process servers: `{"type": "sdk"}` entries as Python
/// passes them in `--mcp-config`, what the host declares of each
/// (`sdkMcpServerConfigs`: timeouts, tool policies), and what the SDK
/// captured of each (`sdkMcpServerManifests`) for the bridge to answer the
/// handshake with.
fn sdk_mcp_servers(servers: &[String], request: &InitializeRequest, options: &mut SessionOptions) {
    let entries: serde_json::Map<String, serde_json::Value> = servers
        .iter()
        .map(|name| (name.clone(), json!({"type": "sdk", "name": name})))
        .collect();
    options
        .extensions
        .mcp_config
        .push(json!({ "mcpServers": entries }).to_string());
    if let Some(configs) = request.extra.get("sdkMcpServerConfigs") {
        super::server_configs::apply(
            configs,
            servers,
            options.extensions.sdk_mcp.as_ref(),
            &mut options.permissions.sdk_tool_policy,
        );
    }
    let manifests = request
        .extra
        .get("sdkMcpServerManifests")
        .and_then(serde_json::Value::as_object);
    if let (Some(bridge), Some(manifests)) = (&options.extensions.sdk_mcp, manifests) {
        for (name, manifest) in manifests {
            bridge.set_manifest(name, manifest);
        }
    }
}

/// One `{matcher, hookCallbackIds, timeout, onFailure}` of `event`.
fn callback_matcher(event: &str, m: &HookCallbackMatcher) -> anyhow::Result<CallbackMatcher> {
    let timeout = match m.timeout {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t.min(86_400.0))),
        Some(t) => bail!("hooks.{event}: timeout must be a positive number of seconds (got {t})"),
    };
    let on_failure = match m.on_failure.as_deref() {
        None | Some("continue") => OnFailure::Continue,
        Some("block") => OnFailure::Block,
        Some(other) => {
            bail!("hooks.{event}: onFailure must be \"continue\" or \"block\" (got {other:?})")
        }
    };
    Ok(CallbackMatcher {
        event: event.to_owned(),
        matcher: m.matcher.clone(),
        hooks: m
            .hook_callback_ids
            .iter()
            .map(|id| CallbackHook {
                id: id.clone(),
                timeout,
                on_failure,
            })
            .collect(),
    })
}

/// The answer: the session's slash commands, the models `set_model` takes,
/// where the credentials come from.
pub fn response(request: &InitializeRequest, info: &SessionInfo) -> InitializeResponse {
    let commands = info
        .extensions
        .slash_commands
        .iter()
        .map(|c| SlashCommand {
            name: c.name.clone(),
            description: c.description.clone(),
            argument_hint: c.argument_hint.clone(),
            aliases: None,
            builtin: (c.source == CommandSource::Builtin).then_some(true),
            extra: Default::default(),
        })
        .collect();
    InitializeResponse {
        commands,
        agents: info
            .extensions
            .agents
            .iter()
            .map(|a| AgentInfo {
                name: a.name.clone(),
                description: a.description.clone(),
                model: a.model.clone(),
                extra: Default::default(),
            })
            .collect(),
        output_style: info.extensions.output_style.clone(),
        available_output_styles: info.extensions.output_styles.clone(),
        models: tack_runtime::model_choices(&info.model),
        account: AccountInfo {
            api_key_source: Some(info.api_key_source.clone()),
            api_provider: Some(info.api_provider.to_owned()),
            ..AccountInfo::default()
        },
        hooks_applied: request.hooks.as_ref().map(|_| true),
        hook_on_failure_supported: Some(true),
        claude_code_version: Some(info.version.clone()),
        fast_mode_state: None,
        extra: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use pretty_assertions::assert_eq;
    use serde_json::json;
    use tack_runtime::PermissionMode;
    use tack_runtime::{CommandScope, CustomCommand, CustomCommands};

    use super::*;

    fn request(value: serde_json::Value) -> InitializeRequest {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn hooks_and_prompts_become_session_options() {
        let r = request(json!({
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 2.5}],
                "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2"], "onFailure": "block"}],
            },
            "systemPrompt": ["You are terse.", "Answer in French."],
            "appendSystemPrompt": "Never use emoji.",
            "jsonSchema": {"type": "object", "required": ["a"]},
        }));
        let mut options = SessionOptions::default();
        apply(&r, &mut options).unwrap();
        let hook = |id: &str, timeout: Option<Duration>, on_failure| CallbackHook {
            id: id.into(),
            timeout,
            on_failure,
        };
        assert_eq!(
            options.extensions.hook_callbacks,
            [
                CallbackMatcher {
                    event: "PreToolUse".into(),
                    matcher: Some("Bash".into()),
                    hooks: vec![
                        hook(
                            "hook_0",
                            Some(Duration::from_millis(2500)),
                            OnFailure::Continue
                        ),
                        hook(
                            "hook_1",
                            Some(Duration::from_millis(2500)),
                            OnFailure::Continue
                        ),
                    ],
                },
                CallbackMatcher {
                    event: "Stop".into(),
                    matcher: None,
                    hooks: vec![hook("hook_2", None, OnFailure::Block)],
                },
            ]
        );
        assert_eq!(
            options.request.system_prompt.as_deref(),
            Some("You are terse.\n\nAnswer in French.")
        );
        assert_eq!(
            options.request.append_system_prompt.as_deref(),
            Some("Never use emoji.")
        );
        assert_eq!(
            options.request.json_schema,
            Some(json!({"type": "object", "required": ["a"]}))
        );
    }

    #[test]
    fn what_tack_cannot_do_is_refused() {
        let refused = |v: serde_json::Value| {
            let mut options = SessionOptions::default();
            apply(&request(v), &mut options).unwrap_err().to_string()
        };
        assert_eq!(
            refused(json!({"hooks": {"Stop": [{"hookCallbackIds": ["h"], "timeout": 0}]}})),
            "hooks.Stop: timeout must be a positive number of seconds (got 0)"
        );
        assert_eq!(
            refused(json!({"hooks": {"Stop": [{"hookCallbackIds": ["h"], "onFailure": "retry"}]}})),
            "hooks.Stop: onFailure must be \"continue\" or \"block\" (got \"retry\")"
        );
        // Empty ones are fine.
        let mut options = SessionOptions::default();
        apply(
            &request(json!({"hooks": null, "agents": {}, "sdkMcpServers": []})),
            &mut options,
        )
        .unwrap();
        assert_eq!(options, SessionOptions::default());
    }

    #[test]
    fn typescripts_in_process_servers_join_the_mcp_config() {
        let mut options = SessionOptions::default();
        let r = request(json!({"sdkMcpServers": ["calc", "notes"]}));
        apply(&r, &mut options).unwrap();
        let passed: Vec<serde_json::Value> = options
            .extensions
            .mcp_config
            .iter()
            .map(|c| serde_json::from_str(c).unwrap())
            .collect();
        assert_eq!(
            passed,
            [
                json!({"mcpServers": {"calc": {"type": "sdk", "name": "calc"},
                                   "notes": {"type": "sdk", "name": "notes"}}})
            ]
        );
    }

    #[test]
    fn agents_reach_the_session_as_agents_json() {
        let mut options = SessionOptions::default();
        let agents = json!({"reviewer": {"description": "Reviews", "prompt": "Review.",
                                         "tools": ["Read"], "model": "haiku", "maxTurns": 3}});
        apply(&request(json!({"agents": agents})), &mut options).unwrap();
        let passed: serde_json::Value =
            serde_json::from_str(options.extensions.agents.as_deref().unwrap()).unwrap();
        assert_eq!(passed, agents);
    }

    #[test]
    fn the_answer_lists_what_the_session_has() {
        let info = SessionInfo {
            extensions: tack_runtime::ExtensionsInfo {
                agents: vec![tack_runtime::AgentSummary {
                    name: "Explore".into(),
                    description: "Searches".into(),
                    model: Some("claude-haiku-4-5".into()),
                }],
                main_agent: None,
                slash_commands: tack_runtime::slash_commands(
                    &CustomCommands(vec![CustomCommand {
                        name: "review".into(),
                        scope: CommandScope::Project,
                        description: Some("Review a PR".into()),
                        argument_hint: Some("<pr>".into()),
                        allowed_tools: vec![],
                        model: None,
                        body: "Review PR $1.\n".into(),
                        path: PathBuf::from("/p/.claude/commands/review.md"),
                        runs_shell: true,
                    }]),
                    &Default::default(),
                ),
                output_style: "Explanatory".into(),
                output_styles: vec!["default".into(), "Explanatory".into()],
                skills: vec![],
                plugins: vec![],
                plugin_errors: vec![],
            },
            session_id: "s".into(),
            cwd: PathBuf::from("/p"),
            model: "claude-sonnet-4-5".into(),
            tools: vec![],
            permission_mode: PermissionMode::Default,
            api_key_source: "ANTHROPIC_API_KEY".into(),
            api_provider: "firstParty".into(),
            transcript_path: None,
            resumed: false,
            mcp_servers: vec![],
            version: "0.1.0".into(),
        };
        let r = request(json!({"hooks": {}}));
        let answer = serde_json::to_value(response(&r, &info)).unwrap();
        let models: Vec<&str> = answer["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["value"].as_str().unwrap())
            .collect();
        assert_eq!(
            &models[..5],
            ["default", "sonnet", "opus", "haiku", "claude-opus-5-5"]
        );
        assert_eq!(models.len(), 4 + tack_api::known_models().count());
        let mut rest = answer.as_object().unwrap().clone();
        rest.remove("models");
        assert_eq!(
            serde_json::Value::Object(rest),
            json!({
                "commands": [{"name": "clear", "argumentHint": "",
                    "description": "Clear conversation history and free up context", "builtin": true},
                    {"name": "compact", "argumentHint": "<optional custom summarization instructions>",
                    "description": "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]",
                    "builtin": true},
                    {"name": "init", "argumentHint": "",
                    "description": "Initialize a new CLAUDE.md file with codebase documentation", "builtin": true},
                    {"name": "review", "argumentHint": "<pr>", "description": "Review a PR"}],
                "agents": [{"name": "Explore", "description": "Searches", "model": "claude-haiku-4-5"}],
                "output_style": "Explanatory",
                "available_output_styles": ["default", "Explanatory"],
                "account": {"apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
                "hooks_applied": true,
                "hook_on_failure_supported": true,
                "claude_code_version": "0.1.0",
            })
        );
        assert_eq!(
            answer["models"][0],
            json!({"value": "default", "displayName": "Default",
                   "description": "This session's model (claude-sonnet-4-5)",
                   "resolvedModel": "claude-sonnet-4-5"})
        );
        let no_hooks = serde_json::to_value(response(&request(json!({})), &info)).unwrap();
        assert_eq!(no_hooks.get("hooks_applied"), None);
    }
}
