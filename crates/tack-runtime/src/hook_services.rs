//! What `http`, `prompt`, `mcp_tool` and `agent` hooks run on
//! ([`tack_hooks::HookServices`]): one reqwest client for hook endpoints (TLS
//! as tack-api's, TCP_NODELAY, no redirects followed), the session's model
//! client for prompt hooks, billed like every other model call, the
//! session's MCP servers (only those already connected), and a read-only
//! sub-agent for agent hooks (`hook_agent.rs`).

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tack_api::body::read_capped;
use tack_api::{ModelClient, final_message};
use tack_hooks::{HookServices, OUTPUT_CAP};
use tack_protocol::content::join_texts;
use tack_protocol::{Message, MessagesRequest, SystemPrompt};
use tokio_util::sync::CancellationToken;

use crate::hook_agent::HookAgent;

/// Tokens a prompt hook's answer may take (`{"ok": false, "reason": ...}`).
const PROMPT_MAX_TOKENS: u32 = 1024;

/// The runtime's [`HookServices`].
pub(crate) struct RuntimeHookServices {
    pub client: Arc<dyn ModelClient>,
    /// The model of a prompt hook that names none.
    pub small_model: String,
    /// The session's MCP servers (`None`: it has none).
    pub mcp: Option<tack_mcp::WeakMcpManager>,
    /// What agent hooks run on (`None`: they fail, as without services).
    pub agent: Option<HookAgent>,
}

impl HookServices for RuntimeHookServices {
    fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> BoxFuture<'static, Result<(u16, String), String>> {
        let request = tack_mcp::http_client().map(|c| {
            let mut r = c
                .post(url)
                .header("content-type", "application/json")
                .body(body);
            for (name, value) in headers {
                r = r.header(name.as_str(), value.as_str());
            }
            r
        });
        Box::pin(async move {
            let mut response = request?.send().await.map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            let body = read_capped(&mut response, OUTPUT_CAP)
                .await
                .map_err(|e| e.to_string())?;
            if body.truncated && (200..300).contains(&status) {
                return Err(format!(
                    "the answer is larger than {} MiB",
                    OUTPUT_CAP >> 20
                ));
            }
            Ok((status, String::from_utf8_lossy(&body.bytes).into_owned()))
        })
    }

    fn ask_model(
        &self,
        model: Option<&str>,
        system: &str,
        prompt: String,
    ) -> BoxFuture<'static, Result<String, String>> {
        let model = model.map_or_else(|| self.small_model.clone(), crate::model::resolve_model);
        let mut request =
            MessagesRequest::new(&model, PROMPT_MAX_TOKENS, vec![Message::user_text(prompt)]);
        request.system = Some(SystemPrompt::Text(system.to_owned()));
        let client = Arc::clone(&self.client);
        Box::pin(async move {
            // Dropping the future (timeout, interrupt) drops the stream.
            let stream = client.stream(request, CancellationToken::new());
            match final_message(stream).await.map_err(|e| e.to_string())? {
                Some(message) => Ok(join_texts(&message.content, "")),
                None => Err("the model's answer ended without a message".to_owned()),
            }
        })
    }

    fn call_mcp_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> BoxFuture<'static, Result<String, String>> {
        let manager = self
            .mcp
            .as_ref()
            .and_then(tack_mcp::WeakMcpManager::upgrade);
        let (server, tool) = (server.to_owned(), tool.to_owned());
        Box::pin(async move {
            let manager =
                manager.ok_or_else(|| format!("MCP server \"{server}\" is not connected"))?;
            // Dropping the future (timeout, interrupt) drops the call.
            let never = CancellationToken::new();
            manager
                .call_tool_text(&server, &tool, arguments, &never)
                .await
        })
    }

    fn run_agent(
        &self,
        model: Option<&str>,
        system: &str,
        prompt: String,
    ) -> BoxFuture<'static, Result<String, String>> {
        match &self.agent {
            Some(agent) => agent.run(model, system, prompt),
            None => Box::pin(std::future::ready(Err("no agent can run here".to_owned()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// An endpoint answering 200 with a body that never ends.
    async fn endless() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head).await;
            let head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let mut chunk = b"10000\r\n".to_vec();
            chunk.extend(vec![b'{'; 0x10000]);
            chunk.extend(b"\r\n");
            while stream.write_all(&chunk).await.is_ok() {}
        });
        format!("http://{addr}/hook")
    }

    #[tokio::test]
    async fn an_endless_hook_answer_is_an_error_not_a_buffer() {
        let client = tack_api::AnthropicClient::new(tack_api::ClientConfig::default()).unwrap();
        let services = RuntimeHookServices {
            client: Arc::new(client),
            small_model: "haiku".into(),
            mcp: None,
            agent: None,
        };
        let answer = services.post(&endless().await, &[], b"{}".to_vec()).await;
        assert_eq!(answer, Err("the answer is larger than 1 MiB".to_owned()));
    }
}
