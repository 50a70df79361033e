//! [`MessagesRequest`] → a Chat Completions request body.
//!
//! The system prompt becomes the first `system` message; an assistant turn's
//! text and `tool_use` blocks one `assistant` message with `tool_calls`; a user
//! turn's `tool_result` blocks one `tool` message each (first, as the API wants
//! them right after the calls), then its text and images one `user` message
//! (text only → a plain string, which every server's chat template takes).
//! Images a tool returned follow in a `user` message. Thinking blocks,
//! `cache_control`, `thinking`, `metadata` and Anthropic-only extras are not
//! sent.

use serde_json::{Map, Value, json};
use tack_protocol::{ContentBlock, Message, MessagesRequest, Role};

use super::parts::{image_url, system_text, tool_choice, tool_images_note, tool_result};

/// How the output cap is named: OpenAI's own API wants `max_completion_tokens`
/// (reasoning models reject `max_tokens`); local and other compatible servers
/// all take `max_tokens`, not all the newer name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MaxTokensField {
    MaxCompletionTokens,
    MaxTokens,
}

pub(crate) fn chat_body(request: &MessagesRequest, max_field: MaxTokensField) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = system_text(request.system.as_ref()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        match message.role {
            Role::Assistant => messages.extend(assistant(message)),
            Role::User => user(message, &mut messages),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    let field = match max_field {
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        MaxTokensField::MaxTokens => "max_tokens",
    };
    body.insert(field.into(), json!(request.max_tokens));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                let mut function = Map::new();
                function.insert("name".into(), json!(t.name));
                if let Some(d) = &t.description {
                    function.insert("description".into(), json!(d));
                }
                function.insert("parameters".into(), t.input_schema.clone());
                json!({"type": "function", "function": function})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        let (choice, parallel) = tool_choice(
            choice,
            |name| json!({"type": "function", "function": {"name": name}}),
        );
        body.insert("tool_choice".into(), choice);
        if let Some(parallel) = parallel.filter(|_| !request.tools.is_empty()) {
            body.insert("parallel_tool_calls".into(), json!(parallel));
        }
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if !request.stop_sequences.is_empty() {
        body.insert("stop".into(), json!(request.stop_sequences));
    }
    Value::Object(body)
}

fn assistant(message: &Message) -> Option<Value> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text: t, .. } => text.push_str(t),
            ContentBlock::ToolUse {
                id, name, input, ..
            } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": input.to_string()},
            })),
            _ => {}
        }
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    // An empty string, not null, when there are only calls: OpenAI takes
    // either, but some servers (llama-cpp-python) refuse a null content.
    out.insert("content".into(), json!(text));
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(out))
}

fn user(message: &Message, messages: &mut Vec<Value>) {
    let mut parts = Vec::new();
    let mut tool_images = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } => {
                let (text, images) = tool_result(content.as_ref());
                messages
                    .push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": text}));
                if !images.is_empty() {
                    tool_images
                        .push(json!({"type": "text", "text": tool_images_note(tool_use_id)}));
                    tool_images.extend(images.into_iter().map(image_part));
                }
            }
            ContentBlock::Text { text, .. } => parts.push(json!({"type": "text", "text": text})),
            ContentBlock::Image { source, .. } => parts.push(image_part(image_url(source))),
            _ => {}
        }
    }
    tool_images.extend(parts);
    if tool_images.is_empty() {
        return;
    }
    let all_text = tool_images.iter().all(|p| p["type"] == "text");
    let content = if all_text {
        let texts: Vec<&str> = tool_images
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect();
        json!(texts.join("\n\n"))
    } else {
        Value::Array(tool_images)
    };
    messages.push(json!({"role": "user", "content": content}));
}

fn image_part(url: String) -> Value {
    json!({"type": "image_url", "image_url": {"url": url}})
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tack_protocol::{ImageSource, SystemBlock, SystemPrompt, ToolChoice, ToolDefinition};

    use super::*;

    fn image() -> ContentBlock {
        ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBO".into(),
            },
            cache_control: None,
        }
    }

    #[test]
    fn a_tool_round_trip_maps_to_chat_messages() {
        let mut request = MessagesRequest::new(
            "qwen3-coder",
            4096,
            vec![
                Message::user_text("list files"),
                Message::assistant(vec![
                    ContentBlock::Thinking {
                        thinking: "hmm".into(),
                        signature: String::new(),
                    },
                    ContentBlock::text("Looking."),
                    ContentBlock::tool_use("call_1", "Bash", json!({"command": "ls"})),
                    ContentBlock::tool_use("call_2", "Read", json!({"file_path": "/a"})),
                ]),
                Message::user(vec![
                    ContentBlock::tool_result("call_1", "a\nb", false),
                    ContentBlock::tool_result(
                        "call_2",
                        vec![ContentBlock::text("a picture"), image()],
                        true,
                    ),
                    ContentBlock::text("<system-reminder>x</system-reminder>"),
                ]),
            ],
        );
        request.system = Some(SystemPrompt::Blocks(vec![
            SystemBlock::text("You are tack."),
            SystemBlock::text("Be brief."),
        ]));
        request.tools = vec![ToolDefinition {
            name: "Bash".into(),
            description: Some("Run a command".into()),
            input_schema: json!({"type": "object"}),
            cache_control: None,
        }];
        request.tool_choice = Some(ToolChoice::Auto {
            disable_parallel_tool_use: Some(true),
        });
        request.temperature = Some(0.5);
        request.thinking = Some(tack_protocol::ThinkingConfig::Adaptive { display: None });
        let expected = json!({
            "model": "qwen3-coder",
            "messages": [
                {"role": "system", "content": "You are tack.\n\nBe brief."},
                {"role": "user", "content": "list files"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"/a\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a\nb"},
                {"role": "tool", "tool_call_id": "call_2", "content": "a picture"},
                {"role": "user", "content": [
                    {"type": "text", "text": "The images returned by tool call call_2:"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                    {"type": "text", "text": "<system-reminder>x</system-reminder>"},
                ]},
            ],
            "max_tokens": 4096,
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "Bash", "description": "Run a command", "parameters": {"type": "object"}}}],
            "tool_choice": "auto",
            "parallel_tool_calls": false,
            "temperature": 0.5,
        });
        assert_eq!(chat_body(&request, MaxTokensField::MaxTokens), expected);
    }

    #[test]
    fn forced_tool_and_openai_output_cap() {
        let mut request = MessagesRequest::new("gpt-5", 100, vec![Message::user_text("hi")]);
        request.tool_choice = Some(ToolChoice::Tool {
            name: "Read".into(),
            disable_parallel_tool_use: None,
        });
        request.stop_sequences = vec!["END".into()];
        let expected = json!({
            "model": "gpt-5",
            "messages": [{"role": "user", "content": "hi"}],
            "max_completion_tokens": 100,
            "stream": true,
            "stream_options": {"include_usage": true},
            "tool_choice": {"type": "function", "function": {"name": "Read"}},
            "stop": ["END"],
        });
        assert_eq!(
            chat_body(&request, MaxTokensField::MaxCompletionTokens),
            expected
        );
    }

    /// Calls without text: `content` is an empty string (llama-cpp-python
    /// answers a null one with a 500).
    #[test]
    fn calls_without_text_carry_an_empty_content() {
        let request = MessagesRequest::new(
            "m",
            10,
            vec![
                Message::user_text("go"),
                Message::assistant(vec![ContentBlock::tool_use("c1", "Read", json!({}))]),
            ],
        );
        let body = chat_body(&request, MaxTokensField::MaxTokens);
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]})
        );
    }
}
