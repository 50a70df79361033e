//! Properties of tool-input parsing and validation, for every built-in tool:
//! no input makes `validate` (or the permission helpers) panic, the error a
//! model gets back stays short however large its input was, and every input
//! the tool's own schema allows gets past parsing (the schema sent to the
//! model and the parser cannot drift apart). `PROPTEST_CASES` raises the case
//! count (see BENCHMARKS.md).

use crate::common;

use common::Session;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

const TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Bash",
    "TaskOutput",
    "TaskStop",
    "Glob",
    "Grep",
    "LS",
    "TodoWrite",
];

/// Longest error text `validate` may return, whatever the input.
const MAX_ERROR_CHARS: usize = 4_000;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,16}".prop_map(Value::String),
        // Large strings: what a confused model may send.
        (0usize..20_000).prop_map(|n| Value::String("x".repeat(n))),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Objects with the field names the tools use and any values.
fn tool_shaped() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "file_path",
        "offset",
        "limit",
        "content",
        "old_string",
        "new_string",
        "replace_all",
        "edits",
        "command",
        "timeout",
        "description",
        "run_in_background",
        "pattern",
        "path",
        "glob",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "type",
        "head_limit",
        "multiline",
        "ignore",
        "todos",
        "task_id",
        "shell_id",
        "bash_id",
        "filter",
        "block",
        "extra",
    ]);
    prop::collection::btree_map(key, json_value(), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// Values the JSON schema `schema` allows (the subset the tools' schemas use).
fn from_schema(schema: &Value) -> BoxedStrategy<Value> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return prop::sample::select(values.clone()).boxed();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => ".{0,24}".prop_map(Value::String).boxed(),
        Some("integer") => {
            let min = schema.get("minimum").and_then(Value::as_u64).unwrap_or(0);
            (min..min + 100_000).prop_map(Value::from).boxed()
        }
        Some("number") => (0.0f64..1e6).prop_map(Value::from).boxed(),
        Some("boolean") => any::<bool>().prop_map(Value::Bool).boxed(),
        Some("array") => {
            let item = schema.get("items").cloned().unwrap_or(Value::Null);
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            prop::collection::vec(from_schema(&item), min..min + 4)
                .prop_map(Value::Array)
                .boxed()
        }
        Some("object") => {
            let required: Vec<String> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(name, sub)| {
                    let name = name.clone();
                    let value = from_schema(sub);
                    if required.contains(&name) {
                        value.prop_map(move |v| Some((name.clone(), v))).boxed()
                    } else {
                        prop::option::of(value)
                            .prop_map(move |v| v.map(|v| (name.clone(), v)))
                            .boxed()
                    }
                })
                .collect();
            fields
                .prop_map(|pairs| Value::Object(pairs.into_iter().flatten().collect::<Map<_, _>>()))
                .boxed()
        }
        _ => json_value().boxed(),
    }
}

/// Each tool's name and a strategy for inputs its schema allows.
fn schema_inputs() -> impl Strategy<Value = (String, Value)> {
    let s = Session::new();
    let per_tool: Vec<BoxedStrategy<(String, Value)>> = TOOLS
        .iter()
        .map(|name| {
            let schema = s.tool(name).input_schema();
            let name = (*name).to_owned();
            from_schema(&schema)
                .prop_map(move |v| (name.clone(), v))
                .boxed()
        })
        .collect();
    prop::strategy::Union::new(per_tool)
}

/// `validate`, `is_read_only` and `paths_touched` of `tool` on `input`; the
/// validation error, if any.
fn check(s: &Session, tool: &str, input: &Value) -> Option<String> {
    let tool = s.tool(tool);
    let ctx = s.ctx();
    let _ = tool.is_read_only(input);
    let _ = tool.paths_touched(input, &ctx);
    tool.validate(input, &ctx).err().map(|e| e.message)
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn prop_any_input_validates_or_gets_a_short_error(
        tool in prop::sample::select(TOOLS),
        input in prop_oneof![json_value(), tool_shaped()],
    ) {
        let s = Session::new();
        if let Some(message) = check(&s, tool, &input) {
            let chars = message.chars().count();
            prop_assert!(chars <= MAX_ERROR_CHARS, "{} chars for {}", chars, tool);
        }
    }

    #[test]
    fn prop_every_input_the_schema_allows_gets_past_parsing((tool, input) in schema_inputs()) {
        let s = Session::new();
        if let Some(message) = check(&s, &tool, &input) {
            prop_assert!(
                !message.starts_with("InputValidationError"),
                "{} refused a schema-valid input {}: {}", tool, input, message
            );
        }
    }
}
