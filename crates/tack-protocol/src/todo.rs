//! The todo list the TodoWrite tool keeps and front ends show.
//!
//! With the `schema` feature the types also derive `JsonSchema`, which is how
//! TodoWrite's input schema is made from them (tack-tools turns it on).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One item of the todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TodoItem {
    /// What is to be done, in the imperative: "Run the tests".
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub content: String,
    pub status: TodoStatus,
    /// The same in the present continuous, shown while it is in progress: "Running the tests".
    #[serde(rename = "activeForm")]
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub active_form: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn items_use_claude_codes_field_names() {
        let item = TodoItem {
            content: "Run the tests".into(),
            status: TodoStatus::InProgress,
            active_form: "Running the tests".into(),
        };
        let json = serde_json::json!({
            "content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"
        });
        assert_eq!(serde_json::to_value(&item).unwrap(), json);
        assert_eq!(serde_json::from_value::<TodoItem>(json).unwrap(), item);
    }
}
