//! Pieces of an Anthropic request both OpenAI request builders need: the system
//! prompt as one string, images as data URLs, a tool result as text plus images.

use serde_json::{Value, json};
use tack_protocol::content::join_texts;
use tack_protocol::{ContentBlock, ImageSource, SystemPrompt, ToolChoice, ToolResultContent};

/// The system prompt's blocks joined by blank lines (`cache_control` dropped).
pub(crate) fn system_text(system: Option<&SystemPrompt>) -> Option<String> {
    match system? {
        SystemPrompt::Text(text) => Some(text.clone()),
        SystemPrompt::Blocks(blocks) => {
            let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
            Some(texts.join("\n\n"))
        }
    }
    .filter(|s| !s.is_empty())
}

/// An image as the URL OpenAI takes: a `data:` URL for inline bytes.
pub(crate) fn image_url(source: &ImageSource) -> String {
    match source {
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
        ImageSource::Url { url } => url.clone(),
    }
}

/// A tool result's text (blocks joined by newlines; an error result's text is
/// sent as is) and its images.
pub(crate) fn tool_result(content: Option<&ToolResultContent>) -> (String, Vec<String>) {
    match content {
        None => (String::new(), Vec::new()),
        Some(ToolResultContent::Text(text)) => (text.clone(), Vec::new()),
        Some(ToolResultContent::Blocks(blocks)) => {
            let images = blocks.iter().filter_map(|block| match block {
                ContentBlock::Image { source, .. } => Some(image_url(source)),
                _ => None,
            });
            (join_texts(blocks, "\n"), images.collect())
        }
    }
}

/// The text introducing the images a tool returned, sent as a user message
/// (OpenAI's `tool` messages carry text only).
pub(crate) fn tool_images_note(tool_use_id: &str) -> String {
    format!("The images returned by tool call {tool_use_id}:")
}

/// `tool_choice` for both APIs; `function` wraps a forced tool's name the way
/// the API wants it. Also whether parallel calls were turned off.
pub(crate) fn tool_choice(
    choice: &ToolChoice,
    function: impl Fn(&str) -> Value,
) -> (Value, Option<bool>) {
    let parallel = |disable: &Option<bool>| disable.map(|d| !d);
    match choice {
        ToolChoice::Auto {
            disable_parallel_tool_use,
        } => (json!("auto"), parallel(disable_parallel_tool_use)),
        ToolChoice::Any {
            disable_parallel_tool_use,
        } => (json!("required"), parallel(disable_parallel_tool_use)),
        ToolChoice::Tool {
            name,
            disable_parallel_tool_use,
        } => (function(name), parallel(disable_parallel_tool_use)),
        ToolChoice::None => (json!("none"), None),
    }
}
