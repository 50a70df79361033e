//! The SDK's control requests, answered through the runtime. Each answer is a
//! future: most are ready at once; an interrupt's comes when the turn has
//! stopped (before its result), a mode change once the runtime applied it.

use futures::future::{BoxFuture, FutureExt, ready};
use serde_json::{Map, Value};
use tack_protocol::control::{
    ContextUsageCategory, ContextUsageResponse, ControlRequest, ControlResponse, InterruptResponse,
    McpServerStatus, McpStatusResponse, RewindFilesResponse, SdkRequest,
};
use tack_runtime::PermissionMode;
use tack_runtime::{McpControl, Op, Rewound, RuntimeHandle, SdkBridge, SessionSnapshot};

/// The answer to one SDK request.
pub fn answer(
    request: ControlRequest<SdkRequest>,
    handle: &RuntimeHandle,
    mcp: &SdkBridge,
) -> BoxFuture<'static, ControlResponse> {
    let ControlRequest {
        request_id: id,
        request,
    } = request;
    match request {
        // The first line was read before the session started; a second one
        // cannot change what is running.
        SdkRequest::Initialize(_) => {
            ready(ControlResponse::error(id, "Already initialized")).boxed()
        }
        SdkRequest::Interrupt(r) => {
            let cancel_queued = r.cancel_queued.unwrap_or(false);
            let receipt = handle.interrupt_with_receipt(cancel_queued);
            async move {
                match receipt.await {
                    Ok(receipt) => success(
                        id,
                        &InterruptResponse {
                            still_queued: receipt.still_queued,
                            cancelled: cancel_queued.then_some(receipt.cancelled),
                        },
                    ),
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::SetPermissionMode(r) => {
            let mode = match r.mode.parse::<PermissionMode>() {
                Ok(mode) => mode,
                Err(e) => return ready(ControlResponse::error(id, e.to_string())).boxed(),
            };
            let set = handle.set_permission_mode(mode);
            async move {
                match set.await {
                    // The mode now in effect (TypeScript 0.3.332 resolves
                    // `setPermissionMode` with it).
                    Ok(Ok(())) => ControlResponse::success(&id, &serde_json::json!({"mode": mode}))
                        .unwrap_or_else(|e| ControlResponse::error(&id, e.to_string())),
                    Ok(Err(why)) => {
                        let mut refused = ControlResponse::error(id, why.to_string());
                        // Claude Code's code, for hosts that branch on it.
                        if let ControlResponse::Error(e) = &mut refused {
                            e.extra.insert("error_code".into(), why.code().into());
                        }
                        refused
                    }
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::SetModel(r) => {
            let model = r.model.filter(|m| m != "default");
            let response = match handle.send(Op::SetModel(model)) {
                Ok(()) => ControlResponse::empty_success(id),
                Err(e) => ControlResponse::error(id, e.to_string()),
            };
            ready(response).boxed()
        }
        SdkRequest::McpStatus(_) => {
            let statuses = handle.mcp_status();
            async move {
                match statuses.await {
                    Ok(servers) => success(
                        id,
                        &McpStatusResponse {
                            mcp_servers: servers
                                .into_iter()
                                .map(|s| McpServerStatus {
                                    name: s.name,
                                    status: s.status,
                                    extra: Default::default(),
                                })
                                .collect(),
                        },
                    ),
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::McpMessage(r) => ready(super::mcp::deliver(mcp, id, r)).boxed(),
        SdkRequest::McpReconnect(r) => {
            mcp_control(handle, id, McpControl::Reconnect(r.server_name))
        }
        SdkRequest::McpToggle(r) => mcp_control(
            handle,
            id,
            McpControl::Toggle {
                server: r.server_name,
                enabled: r.enabled,
            },
        ),
        SdkRequest::McpSetServers(r) => mcp_control(handle, id, McpControl::SetServers(r.servers)),
        SdkRequest::GetContextUsage(_) => {
            let snapshot = handle.snapshot();
            async move {
                match snapshot.await {
                    Ok(snapshot) => success(id, &context_usage(&snapshot)),
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::StopTask(r) => {
            let stopped = handle.stop_task(r.task_id);
            async move {
                match stopped.await {
                    Ok(Ok(())) => ControlResponse::empty_success(id),
                    Ok(Err(why)) => ControlResponse::error(id, why.to_string()),
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::RewindFiles(r) => {
            let dry_run = r.dry_run.unwrap_or(false);
            let rewound = handle.rewind_files(r.user_message_id, dry_run);
            async move {
                match rewound.await {
                    Ok(Ok(rewound)) => success(id, &rewind_answer(rewound, dry_run)),
                    // A preview says why not; a rewind that cannot be done fails.
                    Ok(Err(why)) if dry_run => success(
                        id,
                        &RewindFilesResponse {
                            can_rewind: false,
                            error: Some(why.to_string()),
                            ..RewindFilesResponse::default()
                        },
                    ),
                    Ok(Err(why)) => ControlResponse::error(id, why.to_string()),
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::Other(other) => ready(unsupported(id, other.subtype())).boxed(),
    }
}

/// The SDKs' `RewindFilesResult`: `skippedLinks` only on a real rewind.
fn rewind_answer(rewound: Rewound, dry_run: bool) -> RewindFilesResponse {
    let mut extra = Map::new();
    if !dry_run && rewound.skipped > 0 {
        extra.insert("skippedLinks".into(), rewound.skipped.into());
    }
    RewindFilesResponse {
        can_rewind: true,
        error: None,
        files_changed: Some(
            rewound
                .files_changed
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
        ),
        insertions: Some(rewound.insertions),
        deletions: Some(rewound.deletions),
        extra,
    }
}

/// `/context`'s figures in the SDKs' `ContextUsageResponse` shape. tack
/// knows no per-file, per-tool or per-agent breakdown, so those lists are
/// empty; the categories are the terminal UI's `/context` rows.
fn context_usage(s: &SessionSnapshot) -> ContextUsageResponse {
    let c = &s.context;
    let total = c.current();
    let category = |name: &str, tokens: u64, color: &str| ContextUsageCategory {
        name: name.to_owned(),
        tokens,
        color: color.to_owned(),
        extra: Map::new(),
    };
    let mut extra = Map::new();
    if let Some(at) = c.autocompact_at {
        extra.insert("autoCompactThreshold".into(), Value::from(at));
    }
    ContextUsageResponse {
        categories: vec![
            category("System prompt", c.system_prompt, "promptBorder"),
            category("System tools", c.tools, "inactive"),
            category("Memory files", c.memory, "claude"),
            category("Messages", c.messages, "purple"),
            category("Free space", c.window.saturating_sub(total), "promptBorder"),
        ],
        total_tokens: total,
        max_tokens: c.autocompact_at.unwrap_or(c.window),
        raw_max_tokens: c.window,
        percentage: total as f64 * 100.0 / c.window.max(1) as f64,
        model: s.model.clone(),
        is_auto_compact_enabled: c.autocompact_at.is_some(),
        memory_files: Vec::new(),
        mcp_tools: Vec::new(),
        agents: Vec::new(),
        grid_rows: Vec::new(),
        extra,
    }
}

fn success(id: String, payload: &impl serde::Serialize) -> ControlResponse {
    ControlResponse::success(id.clone(), payload)
        .unwrap_or_else(|e| ControlResponse::error(id, format!("cannot encode the answer: {e}")))
}

/// Worded as the SDKs word theirs, with the TypeScript SDK's error code.
fn unsupported(id: String, subtype: &str) -> ControlResponse {
    let mut response = ControlResponse::unsupported(id, subtype);
    if let ControlResponse::Error(e) = &mut response {
        e.extra.insert(
            "error_code".into(),
            Value::String("unsupported_request".into()),
        );
    }
    response
}

/// `mcp_reconnect`, `mcp_toggle`, `mcp_set_servers`: answered once done.
fn mcp_control(
    handle: &RuntimeHandle,
    id: String,
    control: McpControl,
) -> BoxFuture<'static, ControlResponse> {
    let done = handle.mcp_control(control);
    async move {
        match done.await {
            Ok(Ok(Value::Null)) => ControlResponse::empty_success(id),
            Ok(Ok(answer)) => success(id, &answer),
            Ok(Err(e)) => ControlResponse::error(id, e.to_string()),
            Err(e) => ControlResponse::error(id, e.to_string()),
        }
    }
    .boxed()
}
