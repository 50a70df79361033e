//! The user's `--json-schema`, compiled once at start and checked against each
//! answer. A schema that is not a valid JSON Schema (checked against its
//! draft's meta-schema) or does not describe an object is a start error: the
//! answer is a tool call's input, which the API requires to be an object.
//! Remote `$ref`s are never fetched, nor files read: the schema must be whole.

use std::error::Error;

use serde_json::Value;

/// The location the schema is compiled under (never fetched: see `NoLoader`).
const SCHEMA_URL: &str = "tack:///json-schema";

/// A compiled `--json-schema`.
pub struct OutputSchema {
    schema: Value,
    compiled: boon::Schemas,
    index: boon::SchemaIndex,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

/// Why a `--json-schema` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error(
        "the schema must be a JSON object describing an object (\"type\": \"object\"): the answer is a tool call's input"
    )]
    NotAnObjectSchema,
    #[error("not a valid JSON Schema: {0}")]
    Invalid(String),
}

/// Refuses every URL: `$ref`s outside the schema are not followed.
struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn Error>> {
        Err(format!("{url}: tack does not load schemas from outside --json-schema").into())
    }
}

impl OutputSchema {
    /// Compiles `schema`; a schema without `$schema` is draft 2020-12.
    pub fn compile(schema: Value) -> Result<Self, SchemaError> {
        let object_type = schema.get("type").and_then(Value::as_str) == Some("object");
        if !schema.is_object() || !object_type {
            return Err(SchemaError::NotAnObjectSchema);
        }
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        compiler.use_loader(Box::new(NoLoader));
        let invalid = |e: boon::CompileError| SchemaError::Invalid(format!("{e:#}"));
        compiler
            .add_resource(SCHEMA_URL, schema.clone())
            .map_err(invalid)?;
        let mut compiled = boon::Schemas::new();
        let index = compiler
            .compile(SCHEMA_URL, &mut compiled)
            .map_err(invalid)?;
        Ok(OutputSchema {
            schema,
            compiled,
            index,
        })
    }

    /// The schema as the user gave it (the tool's `input_schema`).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// `Err` lists every place `value` breaks the schema, one
    /// `<JSON pointer>: <problem>` each (`/` for the whole value), `; `-joined.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        let Err(error) = self.compiled.validate(value, self.index) else {
            return Ok(());
        };
        let mut problems = Vec::new();
        leaves(&error, &mut problems);
        Err(problems.join("; "))
    }
}

/// The innermost errors of `error`'s tree: the ones that say what to fix.
fn leaves(error: &boon::ValidationError<'_, '_>, out: &mut Vec<String>) {
    if error.causes.is_empty() {
        let at = error.instance_location.to_string();
        let at = if at.is_empty() { "/".to_owned() } else { at };
        out.push(format!("{at}: {}", error.kind));
    }
    for cause in &error.causes {
        leaves(cause, out);
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn nested() -> OutputSchema {
        OutputSchema::compile(json!({
            "type": "object",
            "properties": {
                "status": {"type": "string", "enum": ["ok", "failed"]},
                "files": {"type": "array", "items": {"type": "string"}},
                "summary": {
                    "type": "object",
                    "properties": {"lines": {"type": "integer"}, "title": {"type": "string"}},
                    "required": ["lines", "title"]
                }
            },
            "required": ["status", "summary"],
            "additionalProperties": false
        }))
        .expect("a valid schema")
    }

    #[test]
    fn a_valid_nested_answer_passes() {
        let answer =
            json!({"status": "ok", "files": ["a.rs"], "summary": {"lines": 3, "title": "t"}});
        assert_eq!(nested().check(&answer), Ok(()));
    }

    #[test]
    fn each_problem_is_named_with_its_place() {
        let answer = json!({"status": "maybe", "summary": {"lines": "three"}, "extra": 1});
        assert_eq!(
            nested().check(&answer),
            Err("/status: value must be one of 'ok', 'failed'; \
                 /summary: missing properties 'title'; \
                 /summary/lines: want integer, but got string; \
                 /: additionalProperties 'extra' not allowed"
                .to_owned())
        );
    }

    #[test]
    fn a_schema_that_is_not_json_schema_is_refused() {
        let err = OutputSchema::compile(
            json!({"type": "object", "properties": {"a": {"type": "strnig"}}}),
        )
        .expect_err("an unknown type");
        let SchemaError::Invalid(message) = err else {
            panic!("expected Invalid, got {err:?}");
        };
        assert!(message.contains("at '/properties/a/type'"), "{message}");
    }

    #[test]
    fn a_schema_not_of_an_object_is_refused() {
        for schema in [
            json!({"type": "string"}),
            json!([1]),
            json!({"properties": {}}),
        ] {
            assert_eq!(
                OutputSchema::compile(schema).expect_err("not an object schema"),
                SchemaError::NotAnObjectSchema
            );
        }
    }

    #[test]
    fn remote_refs_are_not_loaded() {
        let err = OutputSchema::compile(json!({"type": "object", "$ref": "file:///etc/passwd"}))
            .expect_err("a file $ref");
        let SchemaError::Invalid(message) = err else {
            panic!("expected Invalid, got {err:?}");
        };
        assert!(message.contains("does not load schemas"), "{message}");
    }
}
