//! What `http` and `prompt` hooks run on ([`tack_hooks::HookServices`]):
//! one reqwest client for hook endpoints (TLS as tack-api's, TCP_NODELAY,
//! no redirects followed) and the session's
//! model client for prompt hooks, billed like every other model call.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use tack_api::{ModelClient, StreamEvent};
use tack_hooks::HookServices;
use tack_protocol::{ContentBlock, Message, MessagesRequest, SystemPrompt};
use tokio_util::sync::CancellationToken;

/// Tokens a prompt hook's answer may take (`{"ok": false, "reason": ...}`).
const PROMPT_MAX_TOKENS: u32 = 1024;

/// The runtime's [`HookServices`].
pub(crate) struct RuntimeHookServices {
    pub client: Arc<dyn ModelClient>,
    /// The model of a prompt hook that names none.
    pub small_model: String,
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
            let response = request?.send().await.map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            let text = response.text().await.map_err(|e| e.to_string())?;
            Ok((status, text))
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
            let mut stream = client.stream(request, CancellationToken::new());
            while let Some(event) = stream.next().await {
                match event.map_err(|e| e.to_string())? {
                    StreamEvent::MessageDone(message) => {
                        return Ok(message
                            .content
                            .iter()
                            .filter_map(|b| match b {
                                ContentBlock::Text { text, .. } => Some(text.as_str()),
                                _ => None,
                            })
                            .collect());
                    }
                    StreamEvent::Retry { .. }
                    | StreamEvent::RequestId(_)
                    | StreamEvent::Sse(_)
                    | StreamEvent::BlockDone { .. } => {}
                }
            }
            Err("the model's answer ended without a message".to_owned())
        })
    }
}
