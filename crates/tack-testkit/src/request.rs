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
}
