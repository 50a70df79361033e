//! What the server saw: one record per HTTP request.

use serde_json::Value;

/// One request as received, recorded before it is answered.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `"POST"`.
    pub method: String,
    /// URI path without the query string, e.g. `"/v1/messages"`.
    pub path: String,
    /// Headers in arrival order, names lowercased; non-UTF-8 values are lossily decoded.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, or `Null` if it is empty or not JSON.
    pub body: Value,
    /// When the request's head arrived (wall clock, so another process's start
    /// time can be compared with it: the start-up benchmark does).
    pub received_at: std::time::SystemTime,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Each message of a Messages API body as its text (a string content,
    /// or its text blocks joined), the `<system-reminder>` context left out:
    /// what the user and the model said, in order.
    pub fn message_texts(&self) -> Vec<String> {
        let messages = self.body["messages"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        messages
            .iter()
            .map(|m| match &m["content"] {
                Value::String(s) => s.clone(),
                blocks => blocks
                    .as_array()
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .filter(|t| !t.starts_with("<system-reminder>"))
                    .collect(),
            })
            .collect()
    }
}
