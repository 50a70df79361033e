//! The SDK control protocol against real lines: the stdin lines were captured
//! from the official SDKs (Python claude-agent-sdk 0.2.189, TypeScript
//! @anthropic-ai/claude-agent-sdk 0.3.332) driving a recording executable; the
//! lines tack sends and the SDKs' answers are built from the SDKs' sources
//! (`_internal/query.py`, `types.py`, `sdk.d.ts`). See docs/sdk-protocol.md.

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use tack_protocol::Message;
use tack_protocol::control::*;

fn parse<T: serde::de::DeserializeOwned>(line: &str) -> T {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("serialises")
}

fn extra(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn matcher(matcher: Option<&str>, ids: &[&str], timeout: Option<f64>) -> HookCallbackMatcher {
    HookCallbackMatcher {
        matcher: matcher.map(str::to_owned),
        hook_callback_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
        timeout,
        on_failure: None,
        extra: Map::new(),
    }
}

fn reviewer() -> BTreeMap<String, AgentDefinition> {
    BTreeMap::from([(
        "rev".to_owned(),
        AgentDefinition {
            description: "Reviews".into(),
            prompt: "Review.".into(),
            tools: Some(vec!["Read".into()]),
            disallowed_tools: None,
            model: None,
            extra: Map::new(),
        },
    )])
}

// ----- stdin: what the SDKs send -------------------------------------------

#[test]
fn python_initialize_with_hooks_and_agents() {
    let line = r#"{"type": "control_request", "request_id": "req_1_e547154a", "request": {"subtype": "initialize", "hooks": {"PreToolUse": [{"matcher": "Write", "hookCallbackIds": ["hook_0"], "timeout": 5}], "Stop": [{"matcher": null, "hookCallbackIds": ["hook_1"]}]}, "agents": {"rev": {"description": "Reviews", "prompt": "Review.", "tools": ["Read"]}}}}"#;
    let expected = StdinLine::ControlRequest(ControlRequest {
        request_id: "req_1_e547154a".into(),
        request: SdkRequest::Initialize(Box::new(InitializeRequest {
            hooks: Some(BTreeMap::from([
                (
                    "PreToolUse".to_owned(),
                    vec![matcher(Some("Write"), &["hook_0"], Some(5.0))],
                ),
                ("Stop".to_owned(), vec![matcher(None, &["hook_1"], None)]),
            ])),
            agents: Some(reviewer()),
            ..InitializeRequest::default()
        })),
    });
    assert_eq!(parse::<StdinLine>(line), expected);
}

#[test]
fn python_initialize_without_hooks_sends_null() {
    let line = r#"{"type": "control_request", "request_id": "req_1_197cc0e5", "request": {"subtype": "initialize", "hooks": null}}"#;
    let expected = StdinLine::ControlRequest(ControlRequest {
        request_id: "req_1_197cc0e5".into(),
        request: SdkRequest::Initialize(Box::default()),
    });
    assert_eq!(parse::<StdinLine>(line), expected);
}

#[test]
fn typescript_initialize_carries_the_system_prompt_schema_and_sdk_servers() {
    let manifests = json!({"calc": {
        "initializeResult": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "calc", "version": "1.0.0"}},
        "toolsListResult": {"tools": [{"name": "add", "description": "Add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}]}
    }});
    let sample = json!({"request_id": "71flxkhhnft", "type": "control_request", "request": {
        "subtype": "initialize",
        "hooks": {"PreToolUse": [{"matcher": "Write", "hookCallbackIds": ["hook_0"], "timeout": 5}], "Stop": [{"hookCallbackIds": ["hook_1"]}]},
        "sdkMcpServers": ["calc"],
        "sdkMcpServerManifests": manifests,
        "jsonSchema": {"type": "object"},
        "appendSystemPrompt": "Be brief.",
        "agents": {"rev": {"description": "Reviews", "prompt": "Review.", "tools": ["Read"]}}
    }});
    let expected = StdinLine::ControlRequest(ControlRequest {
        request_id: "71flxkhhnft".into(),
        request: SdkRequest::Initialize(Box::new(InitializeRequest {
            hooks: Some(BTreeMap::from([
                (
                    "PreToolUse".to_owned(),
                    vec![matcher(Some("Write"), &["hook_0"], Some(5.0))],
                ),
                ("Stop".to_owned(), vec![matcher(None, &["hook_1"], None)]),
            ])),
            agents: Some(reviewer()),
            append_system_prompt: Some("Be brief.".into()),
            json_schema: Some(json!({"type": "object"})),
            sdk_mcp_servers: Some(vec!["calc".into()]),
            extra: extra(json!({"sdkMcpServerManifests": manifests})),
            ..InitializeRequest::default()
        })),
    });
    assert_eq!(
        serde_json::from_value::<StdinLine>(sample).unwrap(),
        expected
    );
}

#[test]
fn typescript_default_system_prompt_is_one_empty_string() {
    let line = r#"{"request_id":"9jtzy4qjgiv","type":"control_request","request":{"subtype":"initialize","systemPrompt":[""]}}"#;
    let StdinLine::ControlRequest(request) = parse::<StdinLine>(line) else {
        panic!("not a control request")
    };
    assert_eq!(
        request.request,
        SdkRequest::Initialize(Box::new(InitializeRequest {
            system_prompt: Some(vec![String::new()]),
            ..InitializeRequest::default()
        }))
    );
    // What tack would echo back is the same line.
    assert_eq!(to_json(&request), {
        let mut v: Value = serde_json::from_str(line).unwrap();
        v.as_object_mut().unwrap().remove("type");
        v
    });
}

#[test]
fn user_lines_from_both_sdks() {
    let python = r#"{"type": "user", "session_id": "", "message": {"role": "user", "content": "write out.txt"}, "parent_tool_use_id": null}"#;
    let typescript = r#"{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"write out.txt"}]},"parent_tool_use_id":null}"#;
    let expected = StdinLine::User(Box::new(UserLine {
        message: Message::user_text("write out.txt"),
        parent_tool_use_id: None,
        session_id: Some(String::new()),
        uuid: None,
        should_query: None,
        priority: None,
        origin: None,
        client_composed: None,
        extra: Map::new(),
    }));
    assert_eq!(parse::<StdinLine>(python), expected);
    assert_eq!(parse::<StdinLine>(typescript), expected);
}

#[test]
fn user_line_with_uuid_should_query_and_verbatim_flag() {
    let line = r#"{"type": "user", "message": {"role": "user", "content": "note"}, "parent_tool_use_id": null, "session_id": "default", "uuid": "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60", "shouldQuery": false, "client_composed": true, "origin": {"kind": "human"}, "priority": "next", "future_field": 1}"#;
    let expected = StdinLine::User(Box::new(UserLine {
        message: Message::user_text("note"),
        parent_tool_use_id: None,
        session_id: Some("default".into()),
        uuid: Some("0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60".into()),
        should_query: Some(false),
        priority: Some("next".into()),
        origin: Some(json!({"kind": "human"})),
        client_composed: Some(true),
        extra: extra(json!({"future_field": 1})),
    }));
    assert_eq!(parse::<StdinLine>(line), expected);
}

#[test]
fn every_sdk_request_subtype() {
    let cases: Vec<(&str, SdkRequest)> = vec![
        (
            r#"{"subtype": "interrupt"}"#,
            SdkRequest::Interrupt(InterruptRequest::default()),
        ),
        (
            r#"{"subtype": "interrupt", "cancel_queued": true}"#,
            SdkRequest::Interrupt(InterruptRequest {
                cancel_queued: Some(true),
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "set_permission_mode", "mode": "acceptEdits"}"#,
            SdkRequest::SetPermissionMode(SetPermissionModeRequest {
                mode: "acceptEdits".into(),
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "set_model", "model": null}"#,
            SdkRequest::SetModel(SetModelRequest::default()),
        ),
        (
            r#"{"subtype": "set_model", "model": "claude-haiku-4-5"}"#,
            SdkRequest::SetModel(SetModelRequest {
                model: Some("claude-haiku-4-5".into()),
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "mcp_status"}"#,
            SdkRequest::McpStatus(McpStatusRequest::default()),
        ),
        (
            r#"{"subtype": "get_context_usage"}"#,
            SdkRequest::GetContextUsage(GetContextUsageRequest::default()),
        ),
        (
            r#"{"subtype": "rewind_files", "user_message_id": "5f0c0d1e-aaaa-4bbb-8ccc-111122223333", "dry_run": true}"#,
            SdkRequest::RewindFiles(RewindFilesRequest {
                user_message_id: "5f0c0d1e-aaaa-4bbb-8ccc-111122223333".into(),
                dry_run: Some(true),
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "mcp_reconnect", "serverName": "github"}"#,
            SdkRequest::McpReconnect(McpReconnectRequest {
                server_name: "github".into(),
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "mcp_toggle", "serverName": "github", "enabled": false}"#,
            SdkRequest::McpToggle(McpToggleRequest {
                server_name: "github".into(),
                enabled: false,
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "stop_task", "task_id": "task-abc123"}"#,
            SdkRequest::StopTask(StopTaskRequest {
                task_id: "task-abc123".into(),
                extra: Map::new(),
            }),
        ),
        (
            r#"{"subtype": "mcp_message", "server_name": "calc", "message": {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}}"#,
            SdkRequest::McpMessage(McpMessageRequest {
                server_name: "calc".into(),
                message: json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                extra: Map::new(),
            }),
        ),
    ];
    for (payload, expected) in cases {
        let line = format!(
            r#"{{"type": "control_request", "request_id": "req_7_0a1b2c3d", "request": {payload}}}"#
        );
        let parsed: StdinLine = parse(&line);
        assert_eq!(
            parsed,
            StdinLine::ControlRequest(ControlRequest {
                request_id: "req_7_0a1b2c3d".into(),
                request: expected.clone(),
            })
        );
        // Serialising gives the same payload back (the subtype included).
        let payload: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(to_json(&expected), payload, "{}", expected.subtype());
    }
}

#[test]
fn an_unknown_subtype_is_kept_whole_and_answered_unsupported() {
    let line = r#"{"request_id":"k3j2h1g0f9e","type":"control_request","request":{"subtype":"set_max_thinking_tokens","max_thinking_tokens":2048}}"#;
    let StdinLine::ControlRequest(request) = parse::<StdinLine>(line) else {
        panic!("not a control request")
    };
    let other = OtherRequest(extra(
        json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 2048}),
    ));
    assert_eq!(request.request, SdkRequest::Other(other));
    assert_eq!(request.request.subtype(), "set_max_thinking_tokens");
    let answer = ControlResponse::unsupported(&request.request_id, request.request.subtype());
    assert_eq!(
        to_json(&answer.into_line()),
        json!({"type": "control_response", "response": {
            "subtype": "error", "request_id": "k3j2h1g0f9e",
            "error": "Unsupported control request subtype: set_max_thinking_tokens"}})
    );
}

#[test]
fn a_malformed_known_subtype_is_an_error_not_an_unknown_one() {
    let err = serde_json::from_str::<StdinLine>(
        r#"{"type": "control_request", "request_id": "req_2_00000000", "request": {"subtype": "set_permission_mode"}}"#,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "invalid `set_permission_mode` control request: missing field `mode`"
    );
    let err = serde_json::from_str::<StdinLine>(
        r#"{"type": "control_request", "request_id": "req_2_00000000", "request": {"mode": "plan"}}"#,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(err, "missing field `subtype`");
}

#[test]
fn unknown_line_types_are_kept_and_a_line_needs_a_type() {
    let line = r#"{"type": "keep_alive", "startup_mark": "x"}"#;
    assert_eq!(
        parse::<StdinLine>(line),
        StdinLine::Other(extra(json!({"type": "keep_alive", "startup_mark": "x"})))
    );
    let err = serde_json::from_str::<StdinLine>(r#"{"message": {}}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "missing field `type`");
}

#[test]
fn typescript_cancels_a_request() {
    assert_eq!(
        parse::<StdinLine>(r#"{"type":"control_cancel_request","request_id":"r8x2k1m0n9p"}"#),
        StdinLine::ControlCancelRequest(ControlCancel {
            request_id: "r8x2k1m0n9p".into()
        })
    );
}

// ----- stdout: what tack sends, and the SDKs' answers -----------------------

#[test]
fn can_use_tool_request_as_tack_prints_it() {
    let line = ControlLine::ControlRequest(ControlRequest {
        request_id: "tack_req_1".into(),
        request: CliRequest::CanUseTool(Box::new(CanUseToolRequest {
            tool_name: "Write".into(),
            input: json!({"file_path": "/p/out.txt", "content": "hi"}),
            tool_use_id: "toolu_01".into(),
            permission_suggestions: Some(vec![PermissionUpdate::SetMode(ModeUpdate {
                mode: "acceptEdits".into(),
                destination: PermissionDestination::Session,
            })]),
            blocked_path: None,
            decision_reason: None,
            title: Some("Claude wants to write out.txt".into()),
            display_name: Some("Write file".into()),
            description: None,
            agent_id: None,
            extra: Map::new(),
        })),
    });
    let expected = json!({"type": "control_request", "request_id": "tack_req_1", "request": {
        "subtype": "can_use_tool", "tool_name": "Write",
        "input": {"file_path": "/p/out.txt", "content": "hi"}, "tool_use_id": "toolu_01",
        "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
        "blocked_path": null, "title": "Claude wants to write out.txt", "display_name": "Write file"}});
    assert_eq!(to_json(&line), expected);
    assert_eq!(
        serde_json::from_value::<ControlLine>(expected).unwrap(),
        line
    );
}

#[test]
fn hook_callback_and_mcp_message_requests_as_tack_prints_them() {
    let hook = ControlLine::ControlRequest(ControlRequest {
        request_id: "tack_req_2".into(),
        request: CliRequest::HookCallback(HookCallbackRequest {
            callback_id: "hook_0".into(),
            input: json!({"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p",
                          "hook_event_name": "PreToolUse", "tool_name": "Write",
                          "tool_input": {"file_path": "/p/a"}, "tool_use_id": "toolu_01"}),
            tool_use_id: Some("toolu_01".into()),
            extra: Map::new(),
        }),
    });
    assert_eq!(
        to_json(&hook),
        json!({"type": "control_request", "request_id": "tack_req_2", "request": {
            "subtype": "hook_callback", "callback_id": "hook_0",
            "input": {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p",
                      "hook_event_name": "PreToolUse", "tool_name": "Write",
                      "tool_input": {"file_path": "/p/a"}, "tool_use_id": "toolu_01"},
            "tool_use_id": "toolu_01"}})
    );
    let stop = CliRequest::HookCallback(HookCallbackRequest {
        callback_id: "hook_1".into(),
        input: json!({"hook_event_name": "Stop", "stop_hook_active": false}),
        tool_use_id: None,
        extra: Map::new(),
    });
    assert_eq!(
        to_json(&stop),
        json!({"subtype": "hook_callback", "callback_id": "hook_1",
               "input": {"hook_event_name": "Stop", "stop_hook_active": false}, "tool_use_id": null})
    );
    let mcp = CliRequest::McpMessage(McpMessageRequest {
        server_name: "calc".into(),
        message: json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}),
        extra: Map::new(),
    });
    let wire = json!({"subtype": "mcp_message", "server_name": "calc",
        "message": {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}});
    assert_eq!(to_json(&mcp), wire);
    assert_eq!(serde_json::from_value::<CliRequest>(wire).unwrap(), mcp);
}

/// The Python SDK's answers, as `_handle_control_request` writes them.
#[test]
fn python_permission_answers() {
    let allow = r#"{"type": "control_response", "response": {"subtype": "success", "request_id": "tack_req_1", "response": {"behavior": "allow", "updatedInput": {"file_path": "/p/out.txt", "content": "hi"}, "updatedPermissions": [{"type": "addRules", "destination": "session", "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}, {"toolName": "Read"}], "behavior": "allow"}]}}}"#;
    let StdinLine::ControlResponse(ControlResponseLine {
        response: ControlResponse::Success(success),
    }) = parse::<StdinLine>(allow)
    else {
        panic!("not a success")
    };
    assert_eq!(success.request_id, "tack_req_1");
    assert_eq!(
        success.payload::<PermissionResult>().unwrap(),
        PermissionResult::Allow(PermissionAllow {
            updated_input: Some(json!({"file_path": "/p/out.txt", "content": "hi"})),
            updated_permissions: Some(vec![PermissionUpdate::AddRules(RulesUpdate {
                rules: vec![
                    PermissionRuleValue {
                        tool_name: "Bash".into(),
                        rule_content: Some("npm test *".into()),
                    },
                    PermissionRuleValue {
                        tool_name: "Read".into(),
                        rule_content: None,
                    },
                ],
                behavior: PermissionBehavior::Allow,
                destination: PermissionDestination::Session,
            })]),
            tool_use_id: None,
            extra: Map::new(),
        })
    );

    let deny = r#"{"type": "control_response", "response": {"subtype": "success", "request_id": "tack_req_3", "response": {"behavior": "deny", "message": "Writes are not allowed", "interrupt": true}}}"#;
    let StdinLine::ControlResponse(line) = parse::<StdinLine>(deny) else {
        panic!("not a response")
    };
    let ControlResponse::Success(success) = line.response else {
        panic!("not a success")
    };
    assert_eq!(
        success.payload::<PermissionResult>().unwrap(),
        PermissionResult::Deny(PermissionDeny {
            message: "Writes are not allowed".into(),
            interrupt: Some(true),
            tool_use_id: None,
            extra: Map::new(),
        })
    );

    // No callback configured / the callback raised: an error response.
    let error = r#"{"type": "control_response", "response": {"subtype": "error", "request_id": "tack_req_4", "error": "canUseTool callback is not provided"}}"#;
    assert_eq!(
        parse::<StdinLine>(error),
        StdinLine::ControlResponse(ControlResponseLine {
            response: ControlResponse::error("tack_req_4", "canUseTool callback is not provided")
        })
    );
}

/// The TypeScript SDK adds `toolUseID` and may leave `updatedInput` out.
#[test]
fn typescript_permission_answers() {
    let allow = r#"{"type":"control_response","response":{"subtype":"success","request_id":"tack_req_5","response":{"behavior":"allow","toolUseID":"toolu_02"}}}"#;
    let StdinLine::ControlResponse(ControlResponseLine {
        response: ControlResponse::Success(success),
    }) = parse::<StdinLine>(allow)
    else {
        panic!("not a success")
    };
    assert_eq!(
        success.payload::<PermissionResult>().unwrap(),
        PermissionResult::Allow(PermissionAllow {
            updated_input: None,
            updated_permissions: None,
            tool_use_id: Some("toolu_02".into()),
            extra: Map::new(),
        })
    );
    let unsupported = r#"{"type":"control_response","response":{"subtype":"error","request_id":"tack_req_6","error":"Unsupported control request subtype: elicitation","error_code":"unsupported_request"}}"#;
    let StdinLine::ControlResponse(line) = parse::<StdinLine>(unsupported) else {
        panic!("not a response")
    };
    assert_eq!(
        line.response,
        ControlResponse::Error(ControlError {
            request_id: "tack_req_6".into(),
            error: "Unsupported control request subtype: elicitation".into(),
            extra: extra(json!({"error_code": "unsupported_request"})),
        })
    );
}

#[test]
fn a_malformed_permission_answer_is_an_error() {
    let success = ControlSuccess {
        request_id: "tack_req_7".into(),
        response: Some(json!({"behavior": "maybe"})),
        extra: Map::new(),
    };
    assert!(success.payload::<PermissionResult>().is_err());
    let success = ControlSuccess {
        request_id: "tack_req_7".into(),
        response: Some(
            json!({"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [], "behavior": "allow"}]}),
        ),
        extra: Map::new(),
    };
    assert_eq!(
        success
            .payload::<PermissionResult>()
            .unwrap_err()
            .to_string(),
        "missing field `destination`"
    );
}

#[test]
fn every_permission_update_type() {
    let wire = json!([
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "git diff *"}], "behavior": "allow", "destination": "localSettings"},
        {"type": "replaceRules", "rules": [{"toolName": "Read"}], "behavior": "ask", "destination": "projectSettings"},
        {"type": "removeRules", "rules": [{"toolName": "Edit"}], "behavior": "deny", "destination": "userSettings"},
        {"type": "setMode", "mode": "plan", "destination": "session"},
        {"type": "addDirectories", "directories": ["/srv/data"], "destination": "cliArg"},
        {"type": "removeDirectories", "directories": ["/tmp"], "destination": "session"}
    ]);
    let rule = |tool: &str, content: Option<&str>| PermissionRuleValue {
        tool_name: tool.into(),
        rule_content: content.map(str::to_owned),
    };
    let expected = vec![
        PermissionUpdate::AddRules(RulesUpdate {
            rules: vec![rule("Bash", Some("git diff *"))],
            behavior: PermissionBehavior::Allow,
            destination: PermissionDestination::LocalSettings,
        }),
        PermissionUpdate::ReplaceRules(RulesUpdate {
            rules: vec![rule("Read", None)],
            behavior: PermissionBehavior::Ask,
            destination: PermissionDestination::ProjectSettings,
        }),
        PermissionUpdate::RemoveRules(RulesUpdate {
            rules: vec![rule("Edit", None)],
            behavior: PermissionBehavior::Deny,
            destination: PermissionDestination::UserSettings,
        }),
        PermissionUpdate::SetMode(ModeUpdate {
            mode: "plan".into(),
            destination: PermissionDestination::Session,
        }),
        PermissionUpdate::AddDirectories(DirectoriesUpdate {
            directories: vec!["/srv/data".into()],
            destination: PermissionDestination::CliArg,
        }),
        PermissionUpdate::RemoveDirectories(DirectoriesUpdate {
            directories: vec!["/tmp".into()],
            destination: PermissionDestination::Session,
        }),
    ];
    let parsed: Vec<PermissionUpdate> = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(parsed, expected);
    assert_eq!(to_json(&parsed), wire);
}

#[test]
fn hook_callback_answers() {
    // Python converts `continue_`/`async_` before sending.
    let pre_tool_use = json!({"continue": true, "hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no writes"}, "systemMessage": "blocked a write"});
    let parsed: HookOutput = serde_json::from_value(pre_tool_use.clone()).unwrap();
    assert_eq!(
        parsed,
        HookOutput {
            continue_: Some(true),
            system_message: Some("blocked a write".into()),
            hook_specific_output: Some(json!({"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no writes"})),
            ..HookOutput::default()
        }
    );
    assert_eq!(to_json(&parsed), pre_tool_use);
    let deferred = json!({"async": true, "asyncTimeout": 30000});
    let parsed: HookOutput = serde_json::from_value(deferred.clone()).unwrap();
    assert_eq!(
        parsed,
        HookOutput {
            async_: Some(true),
            async_timeout: Some(30000),
            ..HookOutput::default()
        }
    );
    assert_eq!(to_json(&parsed), deferred);
    // A callback with no opinion returns {}.
    assert_eq!(
        serde_json::from_value::<HookOutput>(json!({})).unwrap(),
        HookOutput::default()
    );
}

#[test]
fn mcp_message_answer() {
    let line = r#"{"type": "control_response", "response": {"subtype": "success", "request_id": "tack_req_8", "response": {"mcp_response": {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "3"}]}}}}}"#;
    let StdinLine::ControlResponse(ControlResponseLine {
        response: ControlResponse::Success(success),
    }) = parse::<StdinLine>(line)
    else {
        panic!("not a success")
    };
    assert_eq!(
        success.payload::<McpMessageResponse>().unwrap(),
        McpMessageResponse {
            mcp_response: json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "3"}]}})
        }
    );
}

// ----- tack's answers to the SDK --------------------------------------------

#[test]
fn initialize_answer_as_tack_prints_it() {
    let payload = InitializeResponse {
        commands: vec![SlashCommand {
            name: "compact".into(),
            description: "Clear conversation history but keep a summary in context".into(),
            argument_hint: "<optional custom summarization instructions>".into(),
            aliases: None,
            builtin: Some(true),
            extra: Map::new(),
        }],
        agents: vec![],
        output_style: "default".into(),
        available_output_styles: vec!["default".into()],
        models: vec![ModelInfo {
            value: "claude-sonnet-4-5".into(),
            display_name: "Sonnet 4.5".into(),
            description: "Claude Sonnet 4.5".into(),
            resolved_model: None,
            extra: Map::new(),
        }],
        account: AccountInfo {
            api_key_source: Some("ANTHROPIC_API_KEY".into()),
            ..AccountInfo::default()
        },
        hooks_applied: Some(true),
        hook_on_failure_supported: None,
        claude_code_version: Some("0.1.0".into()),
        fast_mode_state: None,
        extra: Map::new(),
    };
    let line = ControlResponse::success("req_1_e547154a", &payload)
        .unwrap()
        .into_line();
    let expected = json!({"type": "control_response", "response": {"subtype": "success", "request_id": "req_1_e547154a", "response": {
        "commands": [{"name": "compact", "description": "Clear conversation history but keep a summary in context",
                      "argumentHint": "<optional custom summarization instructions>", "builtin": true}],
        "agents": [], "output_style": "default", "available_output_styles": ["default"],
        "models": [{"value": "claude-sonnet-4-5", "displayName": "Sonnet 4.5", "description": "Claude Sonnet 4.5"}],
        "account": {"apiKeySource": "ANTHROPIC_API_KEY"},
        "hooks_applied": true, "claude_code_version": "0.1.0"}}});
    assert_eq!(to_json(&line), expected);
    let ControlLine::ControlResponse(parsed) = serde_json::from_value(expected).unwrap() else {
        panic!("not a response")
    };
    let ControlResponse::Success(success) = parsed.response else {
        panic!("not a success")
    };
    assert_eq!(success.payload::<InitializeResponse>().unwrap(), payload);
}

#[test]
fn interrupt_and_empty_answers_as_tack_prints_them() {
    let interrupt = ControlResponse::success(
        "req_3_1f2e3d4c",
        &InterruptResponse {
            still_queued: vec!["0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60".into()],
            cancelled: None,
        },
    )
    .unwrap();
    assert_eq!(
        to_json(&interrupt.into_line()),
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "req_3_1f2e3d4c",
               "response": {"still_queued": ["0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60"]}}})
    );
    let empty = ControlResponse::empty_success("req_4_5a6b7c8d");
    assert_eq!(empty.request_id(), "req_4_5a6b7c8d");
    assert_eq!(
        to_json(&empty.into_line()),
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "req_4_5a6b7c8d", "response": {}}})
    );
    // A success without a payload reads as `{}` (as both SDKs do).
    let bare = ControlSuccess {
        request_id: "x".into(),
        response: None,
        extra: Map::new(),
    };
    assert_eq!(
        bare.payload::<McpStatusResponse>().unwrap_err().to_string(),
        "missing field `mcpServers`"
    );
    assert_eq!(bare.payload::<HookOutput>().unwrap(), HookOutput::default());
}

#[test]
fn status_context_and_rewind_answers() {
    let status = json!({"mcpServers": [{"name": "github", "status": "failed", "error": "spawn gh-mcp ENOENT", "scope": "project"}]});
    let parsed: McpStatusResponse = serde_json::from_value(status.clone()).unwrap();
    assert_eq!(
        parsed,
        McpStatusResponse {
            mcp_servers: vec![McpServerStatus {
                name: "github".into(),
                status: "failed".into(),
                extra: extra(json!({"error": "spawn gh-mcp ENOENT", "scope": "project"})),
            }]
        }
    );
    assert_eq!(to_json(&parsed), status);

    let usage = json!({"categories": [{"name": "System prompt", "tokens": 3100, "color": "promptBorder"}],
        "totalTokens": 3100, "maxTokens": 167000, "rawMaxTokens": 200000, "percentage": 1.5,
        "model": "claude-sonnet-4-5", "isAutoCompactEnabled": true, "memoryFiles": [], "mcpTools": [],
        "agents": [], "gridRows": [], "autoCompactThreshold": 167000});
    let parsed: ContextUsageResponse = serde_json::from_value(usage.clone()).unwrap();
    assert_eq!(parsed.total_tokens, 3100);
    assert_eq!(to_json(&parsed), usage);

    let rewind =
        json!({"canRewind": true, "filesChanged": ["src/a.rs"], "insertions": 3, "deletions": 1});
    let parsed: RewindFilesResponse = serde_json::from_value(rewind.clone()).unwrap();
    assert_eq!(
        parsed,
        RewindFilesResponse {
            can_rewind: true,
            error: None,
            files_changed: Some(vec!["src/a.rs".into()]),
            insertions: Some(3),
            deletions: Some(1),
            extra: Map::new(),
        }
    );
    assert_eq!(to_json(&parsed), rewind);
}
