//! The SDK's control requests, answered through the runtime. Each answer is a
//! future: most are ready at once; an interrupt's comes when the turn has
//! stopped (before its result), a mode change once the runtime applied it.

use futures::future::{BoxFuture, FutureExt, ready};
use serde_json::Value;
use tack_protocol::control::{
    ControlRequest, ControlResponse, InterruptResponse, McpServerStatus, McpStatusResponse,
    SdkRequest,
};
use tack_runtime::PermissionMode;
use tack_runtime::{Command, RuntimeHandle};

/// The SDK's in-process MCP servers (`mcp_message`) and live server control.
const NO_SDK_MCP: &str = "in-process SDK MCP servers and reconnecting or toggling MCP servers are not supported by tack yet";

/// The answer to one SDK request.
pub fn answer(
    request: ControlRequest<SdkRequest>,
    handle: &RuntimeHandle,
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
            match handle.interrupt_with_receipt(cancel_queued) {
                Ok(receipt) => async move {
                    match receipt.await {
                        Ok(receipt) => success(
                            id,
                            &InterruptResponse {
                                still_queued: receipt.still_queued,
                                cancelled: cancel_queued.then_some(receipt.cancelled),
                            },
                        ),
                        Err(_) => ControlResponse::error(id, "the session has ended"),
                    }
                }
                .boxed(),
                Err(e) => ready(ControlResponse::error(id, e.to_string())).boxed(),
            }
        }
        SdkRequest::SetPermissionMode(r) => {
            let mode = match r.mode.parse::<PermissionMode>() {
                Ok(mode) => mode,
                Err(e) => return ready(ControlResponse::error(id, e.to_string())).boxed(),
            };
            let handle = handle.clone();
            async move {
                match handle.set_permission_mode(mode).await {
                    Ok(Ok(())) => ControlResponse::empty_success(id),
                    Ok(Err(why)) => ControlResponse::error(id, why),
                    Err(e) => ControlResponse::error(id, e.to_string()),
                }
            }
            .boxed()
        }
        SdkRequest::SetModel(r) => {
            let model = r.model.filter(|m| m != "default");
            let response = match handle.send(Command::SetModel(model)) {
                Ok(()) => ControlResponse::empty_success(id),
                Err(e) => ControlResponse::error(id, e.to_string()),
            };
            ready(response).boxed()
        }
        SdkRequest::McpStatus(_) => {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if let Err(e) = handle.send(Command::McpStatus(tx)) {
                return ready(ControlResponse::error(id, e.to_string())).boxed();
            }
            async move {
                match rx.await {
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
                    Err(_) => ControlResponse::error(id, "the session has ended"),
                }
            }
            .boxed()
        }
        SdkRequest::McpMessage(_) | SdkRequest::McpReconnect(_) | SdkRequest::McpToggle(_) => {
            ready(ControlResponse::error(id, NO_SDK_MCP)).boxed()
        }
        SdkRequest::GetContextUsage(_) | SdkRequest::RewindFiles(_) | SdkRequest::StopTask(_) => {
            let subtype = request.subtype().to_owned();
            ready(unsupported(id, &subtype)).boxed()
        }
        SdkRequest::Other(other) => ready(unsupported(id, other.subtype())).boxed(),
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
