//! Which of the servers' tools may reach the model: the Messages API rejects a
//! request that names one tool twice or whose tool has no object input schema,
//! so such a tool is left out with a warning rather than failing every turn.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::tool::McpTool;

/// Why `schema` is not an input schema the API takes, if it is not: `type`
/// (when given) must be `"object"`, `properties` an object of schemas,
/// `required` a list of names.
pub(crate) fn schema_problem(schema: &JsonObject) -> Option<String> {
    if let Some(kind) = schema.get("type")
        && kind != "object"
    {
        return Some(format!("its type is {kind}, not \"object\""));
    }
    match schema.get("properties") {
        None | Some(Value::Null) => {}
        Some(Value::Object(properties)) => {
            if let Some((name, _)) = properties
                .iter()
                .find(|(_, p)| !matches!(p, Value::Object(_) | Value::Bool(_)))
            {
                return Some(format!("its property \"{name}\" is not a schema"));
            }
        }
        Some(other) => return Some(format!("its properties are {other}, not an object")),
    }
    match schema.get("required") {
        None => None,
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => None,
        Some(other) => Some(format!("its required is {other}, not a list of names")),
    }
}

/// The tools with the first of each name kept (in the order given: servers
/// as configured, each server's in its order), and a warning naming both
/// tools for each one left out.
pub(crate) fn distinct(
    tools: impl IntoIterator<Item = Arc<McpTool>>,
) -> (Vec<Arc<McpTool>>, Vec<String>) {
    let mut first: BTreeMap<String, Arc<McpTool>> = BTreeMap::new();
    let mut kept = Vec::new();
    let mut warnings = Vec::new();
    for tool in tools {
        match first.get(&tool.name) {
            Some(winner) => warnings.push(format!(
                "MCP tool \"{}\" of server \"{}\" is left out: its name {} is taken by tool \"{}\" of server \"{}\"; rename one of the servers",
                tool.tool, tool.target.server, tool.name, winner.tool, winner.target.server
            )),
            None => {
                first.insert(tool.name.clone(), Arc::clone(&tool));
                kept.push(tool);
            }
        }
    }
    (kept, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn problem(schema: Value) -> Option<String> {
        match schema {
            Value::Object(map) => schema_problem(&map),
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn only_object_schemas_with_schema_properties_and_named_requirements_pass() {
        let got: Vec<Option<String>> = [
            json!({}),
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": true}, "required": ["a"]}),
            json!({"type": "string"}),
            json!({"type": "object", "properties": 5}),
            json!({"properties": {"a": "string"}}),
            json!({"required": "a"}),
        ]
        .into_iter()
        .map(problem)
        .collect();
        assert_eq!(
            got,
            [
                None,
                None,
                Some("its type is \"string\", not \"object\"".to_owned()),
                Some("its properties are 5, not an object".to_owned()),
                Some("its property \"a\" is not a schema".to_owned()),
                Some("its required is \"a\", not a list of names".to_owned()),
            ]
        );
    }
}
