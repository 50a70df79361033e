//! [`MessagesRequest`] → a Responses API request body.
//!
//! The system prompt is `instructions`; each message becomes input items:
//! user text and images one `message` item (`input_text` / `input_image`), an
//! assistant's text one `message` item (`output_text`), each `tool_use` a
//! `function_call` item and each `tool_result` a `function_call_output` item
//! (images a tool returned follow in a user message). `store: false`: tack
//! sends the whole conversation every time and keeps no state on the server.

use serde_json::{Map, Value, json};
use tack_protocol::{ContentBlock, Message, MessagesRequest, Role};

use super::parts::{image_url, system_text, tool_choice, tool_images_note, tool_result};

pub(crate) fn responses_body(request: &MessagesRequest) -> Value {
    let mut input = Vec::new();
    for message in &request.messages {
        match message.role {
            Role::Assistant => assistant(message, &mut input),
            Role::User => user(message, &mut input),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    if let Some(system) = system_text(request.system.as_ref()) {
        body.insert("instructions".into(), json!(system));
    }
    body.insert("input".into(), Value::Array(input));
    body.insert("max_output_tokens".into(), json!(request.max_tokens));
    body.insert("stream".into(), json!(true));
    body.insert("store".into(), json!(false));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                let mut tool = Map::new();
                tool.insert("type".into(), json!("function"));
                tool.insert("name".into(), json!(t.name));
                if let Some(d) = &t.description {
                    tool.insert("description".into(), json!(d));
                }
                tool.insert("parameters".into(), t.input_schema.clone());
                // Claude's schemas are not all valid under strict mode.
                tool.insert("strict".into(), json!(false));
                Value::Object(tool)
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        let (choice, parallel) =
            tool_choice(choice, |name| json!({"type": "function", "name": name}));
        body.insert("tool_choice".into(), choice);
        if let Some(parallel) = parallel.filter(|_| !request.tools.is_empty()) {
            body.insert("parallel_tool_calls".into(), json!(parallel));
        }
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    Value::Object(body)
}

fn assistant(message: &Message, input: &mut Vec<Value>) {
    for block in &message.content {
        match block {
            ContentBlock::Text { text, .. } if !text.is_empty() => input.push(json!({
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            })),
            ContentBlock::ToolUse {
                id,
                name,
                input: args,
                ..
            } => input.push(json!({
                "type": "function_call",
                "call_id": id,
                "name": name,
                "arguments": args.to_string(),
            })),
            _ => {}
        }
    }
}

fn user(message: &Message, input: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } => {
                let (text, images) = tool_result(content.as_ref());
                input.push(json!({
                    "type": "function_call_output",
                    "call_id": tool_use_id,
                    "output": text,
                }));
                if !images.is_empty() {
                    parts
                        .push(json!({"type": "input_text", "text": tool_images_note(tool_use_id)}));
                    parts.extend(images.into_iter().map(image_part));
                }
            }
            ContentBlock::Text { text, .. } => {
                parts.push(json!({"type": "input_text", "text": text}));
            }
            ContentBlock::Image { source, .. } => parts.push(image_part(image_url(source))),
            _ => {}
        }
    }
    if !parts.is_empty() {
        input.push(json!({"type": "message", "role": "user", "content": parts}));
    }
}

fn image_part(url: String) -> Value {
    json!({"type": "input_image", "image_url": url})
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tack_protocol::{ImageSource, SystemPrompt, ToolChoice, ToolDefinition};

    use super::*;

    #[test]
    fn a_tool_round_trip_maps_to_input_items() {
        let image = ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBO".into(),
            },
            cache_control: None,
        };
        let mut request = MessagesRequest::new(
            "gpt-5",
            2048,
            vec![
                Message::user(vec![ContentBlock::text("look"), image.clone()]),
                Message::assistant(vec![
                    ContentBlock::text("Reading."),
                    ContentBlock::tool_use("call_1", "Read", json!({"file_path": "/p.png"})),
                ]),
                Message::user(vec![ContentBlock::tool_result(
                    "call_1",
                    vec![ContentBlock::text("ok"), image],
                    false,
                )]),
            ],
        );
        request.system = Some(SystemPrompt::Text("You are tack.".into()));
        request.tools = vec![ToolDefinition {
            name: "Read".into(),
            description: None,
            input_schema: json!({"type": "object"}),
            cache_control: None,
        }];
        request.tool_choice = Some(ToolChoice::Tool {
            name: "Read".into(),
            disable_parallel_tool_use: Some(false),
        });
        let expected = json!({
            "model": "gpt-5",
            "instructions": "You are tack.",
            "input": [
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
                ]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading."}]},
                {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": "{\"file_path\":\"/p.png\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "The images returned by tool call call_1:"},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
                ]},
            ],
            "max_output_tokens": 2048,
            "stream": true,
            "store": false,
            "tools": [{"type": "function", "name": "Read", "parameters": {"type": "object"}, "strict": false}],
            "tool_choice": {"type": "function", "name": "Read"},
            "parallel_tool_calls": true,
        });
        assert_eq!(responses_body(&request), expected);
    }
}
