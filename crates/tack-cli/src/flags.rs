//! The flags the Agent SDKs pass (docs/sdk-protocol.md's table) turned into
//! session options, and the ones tack refuses: a flag that would change what
//! the session does and is not implemented is an error naming it, never
//! silently ignored.

use std::path::Path;

use anyhow::{Context, bail};
use tack_config::Scope;
use tack_protocol::ThinkingConfig;
use tack_runtime::{SessionChoice, SessionOptions};

use crate::cli::{Cli, InputFormat, OutputFormat};

/// Applies the SDK-era flags to `options` (built from the classic flags).
pub fn apply(cli: &Cli, options: &mut SessionOptions) -> anyhow::Result<()> {
    if let Some((flag, what)) = cli.unsupported.first() {
        bail!("{flag} is not supported by tack yet ({what})");
    }
    let stream_json_in = cli.input_format == InputFormat::StreamJson;
    match cli.permission_prompt_tool.as_deref() {
        None => {}
        Some("stdio") if stream_json_in => options.permissions.prompts = true,
        Some("stdio") => {
            bail!("--permission-prompt-tool stdio needs --input-format stream-json")
        }
        Some(tool) if tool.starts_with("mcp__") => {
            options.permissions.prompt_tool = Some(tool.to_owned());
        }
        Some(tool) => bail!(
            "--permission-prompt-tool {tool}: expected `stdio` or an MCP tool name (mcp__server__tool)"
        ),
    }
    // `permissionPrompts`: `none` = nobody answers; what would ask is denied.
    match cli.permission_prompts.as_deref() {
        None | Some("host") => {}
        Some("none") => {
            options.permissions.prompts = false;
            options.permissions.prompt_tool = None;
        }
        Some(other) => bail!("--permission-prompts {other}: expected `host` or `none`"),
    }
    options.extensions.tools = match cli.tools.as_deref() {
        None | Some("default") => None,
        Some(list) => Some(crate::cli::split_rules(&[list.to_owned()])),
    };
    let resuming = !matches!(options.conversation.session, SessionChoice::New { .. });
    if cli.fork_session && !resuming {
        bail!("--fork-session needs --continue or --resume");
    }
    if cli.session_id.is_some() && resuming {
        bail!(
            "--session-id cannot be combined with --continue or --resume in tack (--fork-session alone gives the fork a new id)"
        );
    }
    options.conversation.fork = cli.fork_session;
    if let Some(uuid) = &cli.resume_session_at {
        if !resuming {
            bail!("--resume-session-at needs --continue or --resume");
        }
        options.conversation.resume_at = Some(uuid.clone());
    }
    options.conversation.resume_drops_turn =
        match (&cli.resume_drops_turn, &options.conversation.resume_at) {
            (Some(_), None) => bail!("--resume-drops-turn needs --resume-session-at"),
            (drops, _) => drops.clone(),
        };
    if cli.session_mirror && cli.output_format != OutputFormat::StreamJson {
        bail!("--session-mirror requires --output-format=stream-json");
    }
    options.conversation.mirror = cli.session_mirror;
    if cli.replay_user_messages
        && (!stream_json_in || cli.output_format != OutputFormat::StreamJson)
    {
        bail!(
            "--replay-user-messages requires --input-format=stream-json and --output-format=stream-json"
        );
    }
    if cli.include_hook_events && cli.output_format != OutputFormat::StreamJson {
        bail!("--include-hook-events requires --output-format=stream-json");
    }
    options.front_end.hook_events = cli.include_hook_events;
    options.request.thinking = thinking(cli)?;
    options.request.effort.clone_from(&cli.effort);
    options.request.betas = crate::cli::split_rules(&cli.betas);
    if let Some(schema) = &cli.json_schema {
        let schema = serde_json::from_str(schema).context("--json-schema: not valid JSON")?;
        options.request.json_schema = Some(schema);
    }
    options.permissions.allow_bypass = cli.allow_dangerously_skip_permissions;
    if let Some(path) = &cli.system_prompt_file {
        options.request.system_prompt = Some(read_prompt_file("--system-prompt-file", path)?);
    }
    if let Some(path) = &cli.append_system_prompt_file {
        options.request.append_system_prompt =
            Some(read_prompt_file("--append-system-prompt-file", path)?);
    }
    Ok(())
}

/// `--setting-sources user,project,local` (any subset, `""` for none).
pub fn setting_sources(cli: &Cli) -> anyhow::Result<Option<Vec<Scope>>> {
    let Some(list) = &cli.setting_sources else {
        return Ok(None);
    };
    let mut scopes = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        scopes.push(match name {
            "user" => Scope::User,
            "project" => Scope::Project,
            "local" => Scope::Local,
            other => {
                bail!("--setting-sources: unknown source `{other}` (expected user, project, local)")
            }
        });
    }
    Ok(Some(scopes))
}

/// `--thinking adaptive|disabled` beats `--max-thinking-tokens N` (0: off);
/// `--thinking-display` goes with either.
fn thinking(cli: &Cli) -> anyhow::Result<Option<ThinkingConfig>> {
    let display = cli.thinking_display.clone();
    let thinking = match (cli.thinking.as_deref(), cli.max_thinking_tokens) {
        (Some("disabled"), _) | (None, Some(0)) => Some(ThinkingConfig::Disabled),
        (Some("adaptive"), _) => Some(ThinkingConfig::Adaptive { display }),
        (None, Some(budget_tokens)) => Some(ThinkingConfig::Enabled {
            budget_tokens,
            display,
        }),
        (None, None) => None,
        (Some(other), _) => bail!("--thinking {other}: expected adaptive or disabled"),
    };
    let on = matches!(
        thinking,
        Some(ThinkingConfig::Adaptive { .. } | ThinkingConfig::Enabled { .. })
    );
    if cli.thinking_display.is_some() && !on {
        bail!(
            "--thinking-display needs thinking on (--thinking adaptive or --max-thinking-tokens)"
        );
    }
    Ok(thinking)
}

fn read_prompt_file(flag: &str, path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("{flag}: cannot read {}", path.display()))
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use pretty_assertions::assert_eq;
    use tack_runtime::{
        ConversationOptions, ExtensionOptions, FrontEndOptions, PermissionOptions, RequestOptions,
    };

    use super::*;

    fn options(args: &[&str]) -> anyhow::Result<SessionOptions> {
        let mut argv = vec!["tack", "--input-format", "stream-json"];
        argv.extend(["--output-format", "stream-json", "--verbose"]);
        argv.extend(args);
        let cli = Cli::try_parse_from(argv)?;
        let mut options = crate::print::session_options(&cli);
        apply(&cli, &mut options)?;
        Ok(options)
    }

    fn error(args: &[&str]) -> String {
        format!("{:#}", options(args).unwrap_err())
    }

    #[test]
    fn the_sdk_flags_become_session_options() {
        let got = options(&[
            "--permission-prompt-tool=stdio",
            "--tools=Read,Bash",
            "--resume=abc",
            "--fork-session",
            "--resume-session-at=m1",
            "--max-thinking-tokens",
            "4000",
            "--thinking-display",
            "summarized",
            "--effort=high",
            "--betas",
            "a-1,b-2",
            "--allow-dangerously-skip-permissions",
            "--strict-mcp-config",
            "--mcp-config",
            r#"{"mcpServers": {}}"#,
            "--agents",
            "{}",
            "--include-hook-events",
        ])
        .unwrap();
        let want = SessionOptions {
            request: RequestOptions {
                thinking: Some(ThinkingConfig::Enabled {
                    budget_tokens: 4000,
                    display: Some("summarized".into()),
                }),
                effort: Some("high".into()),
                betas: vec!["a-1".into(), "b-2".into()],
                ..Default::default()
            },
            permissions: PermissionOptions {
                prompts: true,
                allow_bypass: true,
                ..Default::default()
            },
            conversation: ConversationOptions {
                session: SessionChoice::Resume("abc".into()),
                fork: true,
                resume_at: Some("m1".into()),
                ..Default::default()
            },
            extensions: ExtensionOptions {
                tools: Some(vec!["Read".into(), "Bash".into()]),
                mcp_config: vec![r#"{"mcpServers": {}}"#.into()],
                strict_mcp_config: true,
                agents: Some("{}".into()),
                // This binary starts background teammates (no shared flags here).
                teammates: tack_runtime::teams::backend::TeammateOptions {
                    command: Some(tack_runtime::teams::backend::TeammateCommand {
                        program: std::env::current_exe().unwrap(),
                        args: vec![],
                    }),
                    ..Default::default()
                },
                ..Default::default()
            },
            front_end: FrontEndOptions {
                verbose: true,
                hook_events: true,
                ..Default::default()
            },
            ..SessionOptions::default()
        };
        assert_eq!(got, want);
        assert_eq!(
            options(&["--tools", ""]).unwrap().extensions.tools,
            Some(vec![])
        );
        assert_eq!(
            options(&["--tools=default"]).unwrap().extensions.tools,
            None
        );
        assert_eq!(
            options(&["--thinking=adaptive"]).unwrap().request.thinking,
            Some(ThinkingConfig::Adaptive { display: None })
        );
        assert_eq!(
            options(&["--max-thinking-tokens=0"])
                .unwrap()
                .request
                .thinking,
            Some(ThinkingConfig::Disabled)
        );
        assert_eq!(
            options(&["--json-schema", r#"{"type": "object"}"#])
                .unwrap()
                .request
                .json_schema,
            Some(serde_json::json!({"type": "object"}))
        );
        // `permissionPrompts: 'none'`: nobody is asked, not even the SDK's callback.
        let prompts = |args: &[&str]| options(args).map(|o| o.permissions.prompts).ok();
        assert_eq!(
            [
                prompts(&[
                    "--permission-prompt-tool=stdio",
                    "--permission-prompts=host"
                ]),
                prompts(&[
                    "--permission-prompt-tool=stdio",
                    "--permission-prompts=none"
                ]),
            ],
            [Some(true), Some(false)]
        );
        assert_eq!(
            error(&["--permission-prompts=ask"]),
            "--permission-prompts ask: expected `host` or `none`"
        );
    }

    #[test]
    fn what_tack_cannot_do_is_refused_by_name() {
        let cases: [(&[&str], &str); 8] = [
            (
                &["--json-schema", "{type: object}"],
                "--json-schema: not valid JSON: key must be a string at line 1 column 2",
            ),
            (
                &["--task-budget", "5"],
                "--task-budget is not supported by tack yet (task budgets)",
            ),
            (
                &["--channels", "c"],
                "--channels is not supported by tack yet (channels)",
            ),
            (
                &["--continue", "--resume-drops-turn", "u"],
                "--resume-drops-turn needs --resume-session-at",
            ),
            (
                &["--fork-session"],
                "--fork-session needs --continue or --resume",
            ),
            (
                &[
                    "--continue",
                    "--session-id",
                    "0b1c4c2e-5d4e-4b8a-9f1e-2a3b4c5d6e7f",
                ],
                "--session-id cannot be combined with --continue or --resume in tack (--fork-session alone gives the fork a new id)",
            ),
            (
                &["--thinking-display", "summarized"],
                "--thinking-display needs thinking on (--thinking adaptive or --max-thinking-tokens)",
            ),
            (
                &["--system-prompt-file", "/nonexistent/p.txt"],
                "--system-prompt-file: cannot read /nonexistent/p.txt: No such file or directory (os error 2)",
            ),
        ];
        for (args, want) in cases {
            assert_eq!(error(args), want, "{args:?}");
        }
        let cli =
            Cli::try_parse_from(["tack", "-p", "x", "--permission-prompt-tool", "stdio"]).unwrap();
        let mut o = crate::print::session_options(&cli);
        assert_eq!(
            format!("{:#}", apply(&cli, &mut o).unwrap_err()),
            "--permission-prompt-tool stdio needs --input-format stream-json"
        );
        let cli = Cli::try_parse_from(["tack", "-p", "x", "--include-hook-events"]).unwrap();
        let mut o = crate::print::session_options(&cli);
        assert_eq!(
            format!("{:#}", apply(&cli, &mut o).unwrap_err()),
            "--include-hook-events requires --output-format=stream-json"
        );
    }

    #[test]
    fn setting_sources_parse() {
        let parse = |v: &str| {
            let cli = Cli::try_parse_from(["tack", "-p", "x", &format!("--setting-sources={v}")])
                .unwrap();
            setting_sources(&cli).map_err(|e| e.to_string())
        };
        assert_eq!(
            parse("user,project"),
            Ok(Some(vec![Scope::User, Scope::Project]))
        );
        assert_eq!(parse(""), Ok(Some(vec![])));
        assert_eq!(
            parse("user,managed"),
            Err(
                "--setting-sources: unknown source `managed` (expected user, project, local)"
                    .into()
            )
        );
    }
}
