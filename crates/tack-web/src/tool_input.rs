//! Input schemas generated from the Rust input types, and input parsing with
//! errors that name the field. The same rules as `tack-tools`' helper (which is
//! private to that crate): draft-07, subschemas inlined, `Option` fields simply
//! not required, `additionalProperties: false`.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tack_tool::ToolError;

/// The `input_schema` for `T`.
pub(crate) fn schema_for<T: JsonSchema>() -> Value {
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
            // `format: uri` is kept: Claude Code's WebFetch schema has it.
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

/// `Option<T>` comes out as `"type": [T, "null"]`; Claude Code's schemas leave
/// the field out of `required` instead.
fn drop_null_type(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            obj.insert("type".into(), single);
        }
    }
}

/// Deserialises a tool's input; a missing or wrongly typed field is an error
/// naming the field.
pub(crate) fn parse<T: DeserializeOwned>(tool: &str, input: &Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(input).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let location = if path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        ToolError::new(format!(
            "InputValidationError: {tool} failed: {inner}{location}"
        ))
    })
}
