//! A prompt larger than the model's whole context window (a 50 MB stream-json
//! message, a huge `-p` argument) cannot succeed, and compaction cannot shrink
//! what the user just typed: the turn ends at once with the answer the API
//! would give, rather than sending a request of that size.

use std::time::Duration;

use tack_api::ApiError;
use tack_core::Terminal;
use tack_core::session::{ResultSubtype, Session, SessionResult};
use tack_protocol::Message;

/// The result of a turn whose `prompt` alone is estimated past `model`'s
/// context window; `None` when it may fit.
pub(crate) fn too_long(session: &Session, model: &str, prompt: &Message) -> Option<SessionResult> {
    let limit = tack_api::model_limits(model).context_window;
    let tokens = tack_api::estimate_messages(std::slice::from_ref(prompt));
    if tokens <= limit {
        return None;
    }
    let terminal = Terminal::PromptTooLong(ApiError::PromptTooLong {
        actual: Some(tokens),
        limit: Some(limit),
        message: format!("{tokens} tokens > {limit} maximum (estimated; not sent)"),
    });
    let totals = session.totals();
    Some(SessionResult {
        subtype: ResultSubtype::ErrorDuringExecution,
        is_error: true,
        errors: terminal.error_message().into_iter().collect(),
        terminal: Some(terminal),
        result: String::new(),
        duration: Duration::ZERO,
        duration_api: Duration::ZERO,
        num_turns: 0,
        total_cost_usd: totals.total_cost_usd,
        usage: Default::default(),
        model_usage: Default::default(),
        session_id: session.session_id().to_owned(),
    })
}
