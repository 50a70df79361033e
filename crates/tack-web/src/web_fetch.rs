//! WebFetch: downloads a page, turns it into Markdown and has the small model
//! answer the caller's prompt from it. The model gets that answer, not the page.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_api::ModelClient;
use tack_protocol::content::join_texts;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::cache::PageCache;
use crate::fetch::{ClientSettings, Fetcher, Limits, Outcome};
use crate::page_prompt;
use crate::url_policy;
use crate::{WebFetchConfig, model_call, tool_input};

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WebFetchInput {
    /// The URL to fetch content from
    #[schemars(url)]
    url: String,
    /// The prompt to run on the fetched content
    prompt: String,
}

const DESCRIPTION: &str = "Fetches a URL and answers a prompt about its content.

- Takes a URL and a prompt. The page is downloaded, HTML is converted to Markdown, and a small, fast model answers the prompt from the page: you receive that answer, not the raw page.
- Use it to read documentation, articles or any web page you need information from.
- If an MCP-provided web fetch tool is available, prefer it: it may have fewer restrictions.
- The URL must be fully formed and valid. http URLs are upgraded to https, except for localhost and other loopback addresses.
- The prompt should say what you want to know from the page.
- Read-only: it changes nothing.
- Very large pages are cut before they are read; the answer may then be incomplete.
- Fetched pages are cached for 15 minutes, so asking about the same URL again soon is fast.
- When a URL redirects to a different host, the tool does not follow it: it tells you the redirect URL, and you call WebFetch again with that URL.
- Images, PDFs and other binary content cannot be read.";

/// The WebFetch tool. Build one per session with [`WebFetchTool::new`]; it is
/// shared across calls (`Arc<dyn Tool>`) and holds the HTTP client and the cache.
pub struct WebFetchTool {
    fetcher: Fetcher,
    cache: PageCache,
    client: Arc<dyn ModelClient>,
    small_model: String,
    config: WebFetchConfig,
}

// By hand: the model client is a trait object without `Debug`.
impl std::fmt::Debug for WebFetchTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebFetchTool")
            .field("small_model", &self.small_model)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl WebFetchTool {
    /// `client` makes the small-model call that applies the prompt, with
    /// `small_model` (the configured provider's fast model). Cheap: the HTTP
    /// client is built on the first fetch.
    pub fn new(
        client: Arc<dyn ModelClient>,
        small_model: impl Into<String>,
        config: WebFetchConfig,
    ) -> Self {
        let limits = Limits {
            max_bytes: config.max_bytes,
            timeout: config.timeout,
            max_redirects: config.max_redirects,
        };
        let settings = ClientSettings {
            user_agent: config.user_agent.clone(),
            resolver: config.resolver.clone(),
            system_proxy: config.system_proxy,
            connect_timeout: config.timeout,
        };
        let cache = PageCache::new(
            config.cache_ttl,
            config.cache_max_bytes,
            config.clock.clone(),
        );
        WebFetchTool {
            fetcher: Fetcher::new(limits, settings),
            cache,
            client,
            small_model: small_model.into(),
            config,
        }
    }

    async fn run(&self, input: WebFetchInput, ctx: &ToolContext) -> ToolResult {
        let started = Instant::now();
        let url = url_policy::fetch_url(&input.url).map_err(|e| ToolError::new(e.to_string()))?;
        let key = url.to_string();
        let page = match self.cache.get(&key) {
            Some(page) => page,
            None => match self.fetcher.fetch(url, &ctx.cancel).await {
                Ok(Outcome::Page(page)) => {
                    let page = Arc::new(page);
                    self.cache.put(&key, page.clone());
                    page
                }
                Ok(Outcome::Redirect {
                    from,
                    to,
                    status,
                    status_text,
                }) => {
                    let text = redirect_message(&from, &to, status, &status_text, &input.prompt);
                    return Ok(ToolOutput::text(text.clone()).with_structured(structured(
                        0,
                        status,
                        &status_text,
                        &text,
                        started.elapsed(),
                        &input.url,
                    )));
                }
                Err(e) => return Err(ToolError::new(e.to_string())),
            },
        };
        let request = page_prompt::request(
            &self.small_model,
            self.config.answer_max_tokens,
            &page,
            &input.prompt,
            self.config.max_prompt_chars,
        );
        let answer = model_call::complete(self.client.as_ref(), request, ctx.cancel.child_token())
            .await
            .map_err(|e| {
                ToolError::new(format!(
                    "Fetched {} ({} bytes), but applying the prompt to it failed: {e}",
                    page.url, page.bytes
                ))
            })?;
        let mut text = join_texts(&answer.content, "");
        if text.trim().is_empty() {
            text = "The model gave no answer about this page.".into();
        }
        if page.truncated {
            text.push_str(&format!(
                "\n\n[Note: the page is larger than {}; only its first {} bytes were read.]",
                human_bytes(self.config.max_bytes),
                page.bytes
            ));
        }
        Ok(ToolOutput::text(text.clone()).with_structured(structured(
            page.bytes,
            page.status,
            &page.status_text,
            &text,
            started.elapsed(),
            &input.url,
        )))
    }
}

/// Claude Code's `toolUseResult` for WebFetch.
fn structured(
    bytes: usize,
    code: u16,
    code_text: &str,
    result: &str,
    duration: Duration,
    url: &str,
) -> Value {
    json!({
        "bytes": bytes,
        "code": code,
        "codeText": code_text,
        "result": result,
        "durationMs": u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        "url": url,
    })
}

fn redirect_message(from: &str, to: &str, status: u16, status_text: &str, prompt: &str) -> String {
    format!(
        "REDIRECT DETECTED: {from} redirects to a different host.\n\n\
         Original URL: {from}\nRedirect URL: {to}\nStatus: {status} {status_text}\n\n\
         WebFetch does not follow redirects to another host. To read the page, call WebFetch again with:\n\
         - url: \"{to}\"\n- prompt: \"{prompt}\""
    )
}

fn human_bytes(n: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MB", n / MIB)
    } else {
        format!("{n} bytes")
    }
}

impl Tool for WebFetchTool {
    fn name(&self) -> &str {
        "WebFetch"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/web_fetch.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: WebFetchInput = tool_input::parse(self.name(), input)?;
        url_policy::fetch_url(&input.url).map_err(|e| ToolError::new(e.to_string()))?;
        if input.prompt.trim().is_empty() {
            return Err(ToolError::new(
                "`prompt` is empty: say what you want to know from the page.",
            ));
        }
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: WebFetchInput = tool_input::parse(self.name(), &input)?;
            self.run(input, ctx).await
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_bytes(10 * 1024 * 1024), "10 MB");
        assert_eq!(human_bytes(1000), "1000 bytes");
    }

    #[test]
    fn a_redirect_tells_the_model_what_to_call() {
        assert_eq!(
            redirect_message(
                "http://127.0.0.1:1/a",
                "http://localhost:1/b",
                302,
                "Found",
                "list the APIs"
            ),
            "REDIRECT DETECTED: http://127.0.0.1:1/a redirects to a different host.\n\n\
             Original URL: http://127.0.0.1:1/a\nRedirect URL: http://localhost:1/b\nStatus: 302 Found\n\n\
             WebFetch does not follow redirects to another host. To read the page, call WebFetch again with:\n\
             - url: \"http://localhost:1/b\"\n- prompt: \"list the APIs\""
        );
    }
}
