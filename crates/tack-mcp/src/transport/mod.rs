//! The four ways to reach a server. JSON-RPC on top is rmcp's.

pub(crate) mod http;
pub(crate) mod sdk;
pub(crate) mod sse;
pub(crate) mod stdio;

use rmcp::service::ClientInitializeError;

/// `error` and every error under it: `source()`s, and the transport error
/// rmcp keeps in a field of [`ClientInitializeError`] rather than as its source.
pub(crate) fn error_chain<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    let mut stack = vec![error];
    std::iter::from_fn(move || {
        let e = stack.pop()?;
        if let Some(init) = e.downcast_ref::<ClientInitializeError>() {
            match init {
                ClientInitializeError::TransportError { error, .. } => stack.push(error),
                ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
                    stack.push(fallback.as_ref());
                }
                _ => {}
            }
        }
        if let Some(source) = e.source() {
            stack.push(source);
        }
        Some(e)
    })
}
