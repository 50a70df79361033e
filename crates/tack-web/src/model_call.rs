//! A side request to the model (the small model applying a WebFetch prompt, the
//! web search), streamed through the session's [`ModelClient`] and read to the end.

use futures::StreamExt;
use tack_api::{ApiError, ModelClient, StreamEvent};
use tack_protocol::{ContentBlock, MessageResponse, MessagesRequest};
use tokio_util::sync::CancellationToken;

/// The final message of `request`. Cancelling `cancel` ends the stream promptly
/// (the client stops reading) with [`ApiError::Cancelled`].
pub(crate) async fn complete(
    client: &dyn ModelClient,
    request: MessagesRequest,
    cancel: CancellationToken,
) -> Result<MessageResponse, ApiError> {
    let mut stream = client.stream(request, cancel);
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::MessageDone(message) => return Ok(message),
            StreamEvent::Retry { .. }
            | StreamEvent::RequestId(_)
            | StreamEvent::Sse(_)
            | StreamEvent::BlockDone { .. } => {}
        }
    }
    Err(ApiError::Protocol {
        message: "the response stream ended without a message".into(),
    })
}

/// The text blocks of a response, joined (what the model "said").
pub(crate) fn text_of(blocks: &[ContentBlock]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("")
}
