//! A `session/prompt`'s content blocks as the user message tack sends, the
//! way Claude Code's ACP adapter (`claude-agent-acp`'s `promptToClaude`)
//! builds it: text as written, a resource link as a `[@name](uri)` mention,
//! an embedded resource (the editor's selection or open file) as its link
//! plus a `<context ref="uri">` block after everything else, images as
//! images. Audio and binary resources are left out, as the adapter does.

use serde_json::Value;
use tack_protocol::{ContentBlock, ImageSource, Message};

/// The user message for `prompt` (an ACP `ContentBlock[]`); `None` if it is
/// not an array.
pub fn user_message(prompt: &Value) -> Option<Message> {
    let mut content = Vec::new();
    let mut context = Vec::new();
    for block in prompt.as_array()? {
        let text = |key: &str| block.get(key).and_then(Value::as_str);
        match text("type") {
            Some("text") => content.push(ContentBlock::text(text("text").unwrap_or_default())),
            Some("resource_link") => {
                content.push(ContentBlock::text(link(text("uri").unwrap_or_default())));
            }
            Some("resource") => {
                let resource = &block["resource"];
                let uri = resource["uri"].as_str().unwrap_or_default();
                if let Some(body) = resource.get("text").and_then(Value::as_str) {
                    content.push(ContentBlock::text(link(uri)));
                    context.push(ContentBlock::text(format!(
                        "\n<context ref=\"{uri}\">\n{body}\n</context>"
                    )));
                }
            }
            Some("image") => {
                if let Some(image) = image(block) {
                    content.push(image);
                }
            }
            _ => {}
        }
    }
    content.extend(context);
    Some(Message::user(content))
}

/// `file:///a/b.rs` → `[@b.rs](file:///a/b.rs)`; `zed://…` likewise; any
/// other URI as it is.
fn link(uri: &str) -> String {
    match uri
        .strip_prefix("file://")
        .or_else(|| uri.starts_with("zed://").then_some(uri))
    {
        Some(path) => {
            let name = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(path);
            format!("[@{name}]({uri})")
        }
        None => uri.to_owned(),
    }
}

fn image(block: &Value) -> Option<ContentBlock> {
    let source = match (block.get("data").and_then(Value::as_str), block.get("uri")) {
        (Some(data), _) => ImageSource::Base64 {
            media_type: block.get("mimeType")?.as_str()?.to_owned(),
            data: data.to_owned(),
        },
        (None, Some(Value::String(uri))) if uri.starts_with("http") => {
            ImageSource::Url { url: uri.clone() }
        }
        _ => return None,
    };
    Some(ContentBlock::Image {
        source,
        cache_control: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn links_and_embedded_files_become_mentions_and_context() {
        let prompt = json!([
            {"type": "text", "text": "explain"},
            {"type": "resource_link", "uri": "file:///repo/src/main.rs", "name": "main.rs"},
            {"type": "resource", "resource": {"uri": "file:///repo/a.txt", "text": "unsaved"}},
            {"type": "resource", "resource": {"uri": "file:///repo/b.bin", "blob": "AAAA"}},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "https://example.com/x"},
        ]);
        assert_eq!(
            user_message(&prompt),
            Some(Message::user(vec![
                ContentBlock::text("explain"),
                ContentBlock::text("[@main.rs](file:///repo/src/main.rs)"),
                ContentBlock::text("[@a.txt](file:///repo/a.txt)"),
                ContentBlock::Image {
                    source: ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBO".into()
                    },
                    cache_control: None,
                },
                ContentBlock::text("https://example.com/x"),
                ContentBlock::text("\n<context ref=\"file:///repo/a.txt\">\nunsaved\n</context>"),
            ]))
        );
        assert_eq!(user_message(&json!("text")), None);
    }
}
