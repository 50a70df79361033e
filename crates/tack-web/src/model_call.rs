//! A side request to the model (the small model applying a WebFetch prompt, the
//! web search), streamed through the session's [`ModelClient`] and read to the end.

use tack_api::{ApiError, ModelClient, final_message};
use tack_protocol::{MessageResponse, MessagesRequest};
use tokio_util::sync::CancellationToken;

/// The final message of `request`. Cancelling `cancel` ends the stream promptly
/// (the client stops reading) with [`ApiError::Cancelled`].
pub(crate) async fn complete(
    client: &dyn ModelClient,
    request: MessagesRequest,
    cancel: CancellationToken,
) -> Result<MessageResponse, ApiError> {
    final_message(client.stream(request, cancel))
        .await?
        .ok_or_else(|| ApiError::Protocol {
            message: "the response stream ended without a message".into(),
        })
}
