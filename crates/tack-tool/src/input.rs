//! Tool inputs, one way for every tool: the input schema generated from the
//! Rust input type, and parsing with errors that name the field and the
//! expected shape.

use crate::output::ToolError;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A tool's `input_schema` kept as JSON text (the tool's crate stores what
/// [`schema_for`] gives for its input type, and a test there checks they
/// agree, rewriting the file under `UPDATE_SCHEMAS=1`). Generating a schema
/// builds and rewrites maps of maps; for the built-in tools that was about a
/// third of the main thread's work before the first request, and parsing the
/// text is a small part of it.
pub fn stored_schema(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or_default()
}

/// Whether the schema stored at `path` is [`schema_for::<T>`]'s; with
/// `update`, rewrites it when not. The error says what differs and how to
/// update. For the tool crates' tests.
pub fn check_stored_schema<T: JsonSchema>(
    path: &std::path::Path,
    update: bool,
) -> Result<(), String> {
    let generated = schema_for::<T>();
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    if stored_schema(&stored) == generated && !stored.is_empty() {
        return Ok(());
    }
    let text = serde_json::to_string_pretty(&generated).unwrap_or_default() + "\n";
    if update {
        return std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()));
    }
    Err(format!(
        "{} is not the schema of its input type (run the test with UPDATE_SCHEMAS=1):\n{text}",
        path.display()
    ))
}

/// One tool's check for [`check_stored_schemas`]: `check_stored_schema::<T>`.
pub type SchemaCheck = fn(&std::path::Path, bool) -> Result<(), String>;

/// Runs each `(file stem, check)` against `dir/<stem>.json`, rewriting the
/// files when `UPDATE_SCHEMAS` is set; the failures.
pub fn check_stored_schemas(dir: &std::path::Path, checks: &[(&str, SchemaCheck)]) -> Vec<String> {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    checks
        .iter()
        .filter_map(|(stem, check)| check(&dir.join(format!("{stem}.json")), update).err())
        .collect()
}

/// The `input_schema` for `T`: a draft-07 object schema with subschemas inlined,
/// `Option` fields plain (not nullable), `additionalProperties: false` on every
/// object, and without the `$schema`/`title`/`format` noise (`format: uri`
/// is kept: Claude Code's WebFetch schema has it).
pub fn schema_for<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    clean(&mut schema);
    schema
}

fn clean(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            obj.remove("$schema");
            obj.remove("title");
            if obj
                .get("format")
                .is_some_and(|f| f.is_string() && f != "uri")
            {
                obj.remove("format");
            }
            drop_null_type(obj);
            if obj.contains_key("properties") {
                obj.insert("additionalProperties".into(), Value::Bool(false));
                obj.entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
            }
            for v in obj.values_mut() {
                clean(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

/// `Option<T>` fields come out as `"type": ["integer", "null"]` (or an `anyOf`
/// with a null branch); Claude Code's schemas simply leave the field out of
/// `required`, so the null is dropped.
fn drop_null_type(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            obj.insert("type".into(), single);
        }
    }
    let any_of = obj.get("anyOf").and_then(Value::as_array).cloned();
    if let Some(branches) = any_of {
        let non_null: Vec<Value> = branches
            .into_iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [Value::Object(only)] = non_null.as_slice() {
            obj.remove("anyOf");
            for (k, v) in only {
                obj.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    if let Some(Value::Array(variants)) = obj.get_mut("enum") {
        variants.retain(|v| !v.is_null());
    }
}

/// Deserialises a tool's input. Unknown fields are ignored (models sometimes add
/// some); a missing or wrongly typed field is an error naming the field and the
/// expected shape of the whole input.
pub fn parse<T: DeserializeOwned + JsonSchema>(tool: &str, input: &Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(input).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let location = if path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        let inner = cap_middle(&inner.to_string());
        ToolError::new(format!(
            "InputValidationError: {tool} failed: {inner}{location}. Expected input: {}",
            shape(&schema_for::<T>())
        ))
    })
}

/// Characters of a parse error kept from its start and from its end: serde
/// quotes the offending value (`invalid type: string "…", expected u64`),
/// which can be a megabyte the model just sent.
const ERROR_HEAD_CHARS: usize = 800;
const ERROR_TAIL_CHARS: usize = 200;

/// `text` whole if short, else its start and end around a note of how much
/// was left out.
fn cap_middle(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= ERROR_HEAD_CHARS + ERROR_TAIL_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(ERROR_HEAD_CHARS).collect();
    let tail: String = text.chars().skip(chars - ERROR_TAIL_CHARS).collect();
    let left_out = text.len() - head.len() - tail.len();
    format!("{head}… ({left_out} bytes left out) …{tail}")
}

/// A one-line, TypeScript-like rendering of a schema: `{file_path: string, limit?: integer}`.
pub fn shape(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let fields: Vec<String> = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|props| {
                    props
                        .iter()
                        .map(|(name, sub)| {
                            let optional = if required.contains(&name.as_str()) {
                                ""
                            } else {
                                "?"
                            };
                            format!("{name}{optional}: {}", shape(sub))
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!("{{{}}}", fields.join(", "))
        }
        Some("array") => {
            let item = schema
                .get("items")
                .map(shape)
                .unwrap_or_else(|| "any".into());
            format!("[{item}, ...]")
        }
        Some(other) => other.to_string(),
        None => "any".into(),
    }
}

/// Parses a tool's input for `paths_touched` and friends, where a bad input
/// simply touches nothing (`validate` reports it).
pub fn parse_quiet<T: DeserializeOwned>(input: &Value) -> Option<T> {
    T::deserialize(input).ok()
}
