//! What kind of JSON value something is, worded for an error message
//! ("expected a JSON object, got an array").

use serde_json::Value;

/// `"null"`, `"a boolean"`, `"a number"`, `"a string"`, `"an array"` or
/// `"an object"`.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn each_kind_with_its_article() {
        let values = [
            json!(null),
            json!(true),
            json!(1),
            json!("x"),
            json!([]),
            json!({}),
        ];
        assert_eq!(
            values.each_ref().map(kind_of),
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }
}
