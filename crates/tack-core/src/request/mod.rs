//! Turning the loop's messages and context into one `MessagesRequest`:
//! normalisation, context placement and prompt-cache breakpoints.
//!
//! The request layout, in prefix order:
//! - `tools`: as given;
//! - `system`: one text block per system prompt layer, then the system context
//!   (git snapshot) as the last block;
//! - `messages`: normalised ([`normalize_messages`]), with the user context
//!   as a `<system-reminder>` text block at the start of the first user message.
//!
//! Then the cache breakpoints ([`place_cache_breakpoints`]).

mod cache_breakpoints;
mod normalize;

use tack_protocol::{
    ContentBlock, Message, MessagesRequest, Role, SystemBlock, SystemPrompt, ThinkingConfig,
    ToolDefinition,
};

use crate::context::PromptContext;

pub use cache_breakpoints::{
    MAX_CACHE_BREAKPOINTS, clear_cache_breakpoints, place_cache_breakpoints,
};
pub use normalize::normalize_messages;

/// Everything about a request that is not the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestOptions<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    pub tools: &'a [ToolDefinition],
    pub thinking: Option<ThinkingConfig>,
    /// `false` with DISABLE_PROMPT_CACHING: no cache_control anywhere.
    pub prompt_caching: bool,
}

/// Builds the request for `messages` (the loop's messages for this query, after
/// compaction). Pure: the same input gives the same bytes, which is what keeps
/// the prompt cache warm across turns. `messages` is not modified: the user
/// context and the breakpoints exist only in the request.
pub fn build_request(
    ctx: &PromptContext,
    messages: &[Message],
    opts: &RequestOptions<'_>,
) -> MessagesRequest {
    let mut messages = normalize_messages(messages);
    if let Some(user_context) = ctx.user_context.as_deref().filter(|u| !u.trim().is_empty()) {
        prepend_user_context(&mut messages, user_context);
    }
    let mut req = MessagesRequest::new(opts.model, opts.max_tokens, messages);
    req.system = system_prompt(ctx);
    req.tools = opts.tools.to_vec();
    req.thinking = opts.thinking.clone();
    if opts.prompt_caching {
        place_cache_breakpoints(&mut req);
    } else {
        clear_cache_breakpoints(&mut req);
    }
    req
}

/// `text` wrapped in `<system-reminder>` tags, the way tack marks text it adds
/// to a user message (the system prompt tells the model so).
pub fn system_reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// Puts the user context at the start of the first message (after any
/// tool results, which must come first), or in a user message of its own if the
/// conversation does not start with one.
fn prepend_user_context(messages: &mut Vec<Message>, user_context: &str) {
    let block = ContentBlock::text(system_reminder(user_context));
    match messages.first_mut() {
        Some(first) if first.role == Role::User => {
            let at = first
                .content
                .iter()
                .take_while(|b| matches!(b, ContentBlock::ToolResult { .. }))
                .count();
            first.content.insert(at, block);
        }
        Some(_) | None => messages.insert(0, Message::user(vec![block])),
    }
}

/// The `system` blocks: the prompt layers, then the system context. `None` if
/// all are empty.
fn system_prompt(ctx: &PromptContext) -> Option<SystemPrompt> {
    let blocks: Vec<SystemBlock> = ctx
        .system_prompt
        .iter()
        .chain(&ctx.system_context)
        .filter(|text| !text.trim().is_empty())
        .map(|text| SystemBlock::text(text.as_str()))
        .collect();
    (!blocks.is_empty()).then_some(SystemPrompt::Blocks(blocks))
}
