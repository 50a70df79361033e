//! tack's web tools, with Claude Code's names and input schemas:
//!
//! - **WebFetch** (`url`, `prompt`): a real HTTP GET (reqwest, rustls). `http://`
//!   is upgraded to `https://` except for loopback hosts; same-host redirects are
//!   followed (at most [`WebFetchConfig::max_redirects`]), a redirect to another
//!   host is reported to the model instead; the body is streamed and cut at
//!   [`WebFetchConfig::max_bytes`], the whole fetch stopped after
//!   [`WebFetchConfig::timeout`]; HTML becomes Markdown (`htmd`, a port of the
//!   turndown library Claude Code uses); binary content is refused. The small
//!   model then answers the prompt from the page (cut to
//!   [`WebFetchConfig::max_prompt_chars`]) and that answer is the result. Pages
//!   are cached by URL for 15 minutes within a byte budget.
//! - **WebSearch** (`query`, `allowed_domains`, `blocked_domains`): one model
//!   request carrying Anthropic's server tool `web_search_20250305`; the result
//!   lists the sources found (titles and links) with the model's summary.
//!
//! Both are read-only and concurrency-safe. They get everything at construction
//! (the model client, model names, caps, resolver, clock) and read no settings
//! from the environment (only reqwest reads the proxy variables, when
//! [`WebFetchConfig::system_proxy`] is on). Permission rules need nothing from here:
//! `tack-permissions` matches `WebFetch(domain:host)` against the `url` input.
//!
//! The server tool blocks themselves (`server_tool_use`, `web_search_tool_result`)
//! are kept verbatim by `tack-protocol` wherever they appear, including in the
//! main conversation; see `tack_protocol::server_tool`.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - WebFetch and WebSearch; URL policy (https upgrade, redirects), HTML to Markdown, fetch
//!   cache, small-model prompt, search report:
//!   `tack-web/src/{web_fetch,web_search,url_policy,fetch,convert,cache,page_prompt,search_report}.rs`

mod cache;
mod convert;
mod fetch;
mod model_call;
mod page_prompt;
mod resolver;
mod search_report;
use tack_tool::input as tool_input;
mod url_policy;
mod web_fetch;
mod web_search;

#[cfg(test)]
mod stored_schemas_tests;

use std::sync::Arc;
use std::time::Duration;

use tack_api::ModelClient;
use tack_tool::Tool;

pub use cache::{Clock, SystemClock};
pub use resolver::{HostResolver, SystemResolver};
pub use url_policy::{MAX_URL_LEN, UrlError, fetch_url};
pub use web_fetch::WebFetchTool;
pub use web_search::WebSearchTool;

/// Caps and collaborators of [`WebFetchTool`]; `Default` is Claude Code's behaviour.
#[derive(Debug, Clone)]
pub struct WebFetchConfig {
    /// Body bytes read at most; the rest is not downloaded (10 MiB).
    pub max_bytes: usize,
    /// Whole fetch, connection to last byte, redirects included (60 s).
    pub timeout: Duration,
    /// Same-host redirects followed before giving up (10).
    pub max_redirects: usize,
    /// Characters of page text sent to the small model (100,000).
    pub max_prompt_chars: usize,
    /// `max_tokens` of the small model's answer (4,096).
    pub answer_max_tokens: u32,
    /// How long a fetched page is reused (15 min; `CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS`).
    pub cache_ttl: Duration,
    /// Page text the cache holds at most, least recently used evicted first (50 MiB).
    pub cache_max_bytes: usize,
    pub user_agent: String,
    /// Use `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` (reqwest reads them when the
    /// tool is built). True by default, like the model client; tests turn it off.
    pub system_proxy: bool,
    pub resolver: Arc<dyn HostResolver>,
    pub clock: Arc<dyn Clock>,
}

impl Default for WebFetchConfig {
    fn default() -> Self {
        WebFetchConfig {
            max_bytes: 10 * 1024 * 1024,
            timeout: Duration::from_secs(60),
            max_redirects: 10,
            max_prompt_chars: 100_000,
            answer_max_tokens: 4096,
            cache_ttl: Duration::from_secs(15 * 60),
            cache_max_bytes: 50 * 1024 * 1024,
            user_agent: concat!("Claude-User (tack/", env!("CARGO_PKG_VERSION"), ")").into(),
            system_proxy: true,
            resolver: Arc::new(SystemResolver),
            clock: Arc::new(SystemClock),
        }
    }
}

/// Caps of [`WebSearchTool`]; `Default` is Claude Code's behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSearchConfig {
    /// Searches the server may run for one call (`max_uses`: 8).
    pub max_uses: u32,
    /// `max_tokens` of the search request (4,096).
    pub max_tokens: u32,
    /// Times a `pause_turn` is continued before taking what there is (3).
    pub max_continuations: u32,
}

impl Default for WebSearchConfig {
    fn default() -> Self {
        WebSearchConfig {
            max_uses: 8,
            max_tokens: 4096,
            max_continuations: 3,
        }
    }
}

/// Both web tools for one session: WebFetch applying prompts with
/// `small_model`, WebSearch searching with `search_model`, both through `client`.
pub fn web_tools(
    client: Arc<dyn ModelClient>,
    small_model: &str,
    search_model: &str,
    fetch: WebFetchConfig,
    search: WebSearchConfig,
) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(WebFetchTool::new(client.clone(), small_model, fetch)),
        Arc::new(WebSearchTool::new(client, search_model, search)),
    ]
}
