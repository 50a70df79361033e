//! NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook
//! the model has read, and writes the notebook back atomically (or through
//! the session's client when it takes writes: `file_write.rs`, as Write and
//! Edit do). Its result carries the notebook before and after
//! (`original_file`, `updated_file`, as Claude Code's does): an editor
//! shows the change as a diff from them.
//!
//! The notebook is parsed as plain JSON, so what the edit does not touch
//! (metadata, other cells' outputs and ids, `nbformat`) is written back as it
//! was, in the shape Jupyter writes: keys sorted, one space of indentation,
//! non-ASCII text as is (a notebook Jupyter wrote differs only in the edited
//! cell). Claude Code keeps the keys' order instead; for Jupyter's files the
//! two are the same.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};

use crate::file_state::{self, Need};
use crate::notebook::MAX_NOTEBOOK_BYTES;
use crate::tool_input;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CellType {
    Code,
    Markdown,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NotebookEditInput {
    /// Absolute path of the notebook (`.ipynb`) to change.
    notebook_path: String,
    /// The cell to change, by its id as Read shows it. With `edit_mode=insert`
    /// the new cell goes after this one, or first when it is left out.
    cell_id: Option<String>,
    /// The cell's new source (ignored by `delete`).
    new_source: String,
    /// `code` or `markdown`. Required to insert; when replacing, the cell keeps
    /// its type unless this is given.
    cell_type: Option<CellType>,
    /// `replace` (the default), `insert` or `delete`.
    edit_mode: Option<EditMode>,
}

#[derive(Debug)]
pub(crate) struct NotebookEditTool;

const DESCRIPTION: &str = "Changes one cell of a Jupyter notebook (.ipynb): replaces its source, inserts a new cell, or deletes it.

- Read the notebook in this session first; the edit is refused if it changed on disk since.
- `notebook_path` must be absolute. Name the cell by `cell_id`, the id Read shows (`cell-N`, counting from 0, works for cells without ids).
- `edit_mode=insert` adds a cell after `cell_id` (or at the start when `cell_id` is left out) and needs `cell_type`.
- `edit_mode=delete` removes the cell; `new_source` is ignored.
- Replacing a code cell clears its outputs and execution count. Everything else in the notebook is kept as it was.";

const NOT_NOTEBOOK: &str = "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.";

impl Tool for NotebookEditTool {
    fn name(&self) -> &str {
        "NotebookEdit"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/notebook_edit.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: NotebookEditInput = tool_input::parse(self.name(), input)?;
        if !is_notebook(Path::new(&input.notebook_path)) {
            return Err(ToolError::new(NOT_NOTEBOOK));
        }
        if input.edit_mode == Some(EditMode::Insert) && input.cell_type.is_none() {
            return Err(ToolError::new(
                "Cell type is required when using edit_mode=insert.",
            ));
        }
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        tool_input::parse_quiet::<NotebookEditInput>(input)
            .map(|i| vec![file_state::resolve(&ctx.env, &i.notebook_path)])
            .unwrap_or_default()
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: NotebookEditInput = tool_input::parse(self.name(), &input)?;
            let env = Arc::clone(&ctx.env);
            tokio::task::spawn_blocking(move || edit(&env, input))
                .await
                .map_err(|e| ToolError::new(format!("NotebookEdit failed: {e}")))?
        }
        .boxed()
    }
}

fn is_notebook(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

fn edit(env: &Arc<ToolEnv>, input: NotebookEditInput) -> ToolResult {
    let path = file_state::resolve(env, &input.notebook_path);
    if !is_notebook(&path) {
        return Err(ToolError::new(NOT_NOTEBOOK));
    }
    let target = crate::write::existing_target(&path)?
        .ok_or_else(|| ToolError::new("Notebook file does not exist."))?;
    let (meta, bytes) = crate::regular_file::read_existing(&target, &path, "NotebookEdit")?;
    if meta.len() > MAX_NOTEBOOK_BYTES {
        return Err(ToolError::new(
            "Notebook is larger than 100 MB and cannot be edited.",
        ));
    }
    file_state::check_fresh(env, &path, &meta, &bytes, Need::AnyRead)?;
    let mut notebook: Value = serde_json::from_slice(&bytes)
        .map_err(|e| ToolError::new(format!("Notebook is not valid JSON: {e}")))?;
    let mode = input.edit_mode.unwrap_or_default();
    let done = apply(&mut notebook, &input, mode)?;
    let mut text = to_notebook_json(&notebook)?;
    if bytes.ends_with(b"\n") {
        text.push('\n');
    }
    crate::file_write::write_file(env, &target, &text)
        .map_err(|e| ToolError::new(format!("Could not write {}: {e}", path.display())))?;
    file_state::record_written(env, &path, text.as_bytes());
    let result = match mode {
        EditMode::Replace => format!("Updated cell {} with {}", done.cell_id, input.new_source),
        EditMode::Insert => format!("Inserted cell {} with {}", done.cell_id, input.new_source),
        EditMode::Delete => format!("Deleted cell {}", done.cell_id),
    };
    Ok(ToolOutput::text(result).with_structured(json!({
        "notebook_path": input.notebook_path,
        "cell_id": done.cell_id,
        "cell_type": done.cell_type,
        "edit_mode": mode,
        "new_source": input.new_source,
        "language": done.language,
        "original_file": String::from_utf8_lossy(&bytes),
        "updated_file": text,
    })))
}

/// What an edit did, for the result.
struct Done {
    cell_id: String,
    cell_type: CellType,
    language: String,
}

/// Applies the edit to the parsed notebook.
fn apply(
    notebook: &mut Value,
    input: &NotebookEditInput,
    mode: EditMode,
) -> Result<Done, ToolError> {
    let language = notebook
        .pointer("/metadata/language_info/name")
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_owned();
    let with_ids = cells_have_ids(notebook);
    let cells = notebook
        .get_mut("cells")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| ToolError::new("Notebook has no `cells` array."))?;
    let index = match (&input.cell_id, mode) {
        (None, EditMode::Insert) => None,
        (None, _) => {
            return Err(ToolError::new(
                "Cell ID must be specified when not inserting a new cell.",
            ));
        }
        (Some(id), _) => Some(find_cell(cells, id)?),
    };
    match mode {
        EditMode::Insert => {
            let at = index.map_or(0, |i| i + 1);
            let cell_type = input.cell_type.unwrap_or(CellType::Code);
            let id = with_ids.then(new_cell_id);
            cells.insert(at, new_cell(cell_type, id.as_deref(), &input.new_source));
            let cell_id = id.unwrap_or_else(|| format!("cell-{at}"));
            Ok(Done {
                cell_id,
                cell_type,
                language,
            })
        }
        EditMode::Delete => {
            let i = index.unwrap_or_default();
            let removed = cells.remove(i);
            Ok(Done {
                cell_id: shown_id(&removed, i),
                cell_type: type_of(&removed),
                language,
            })
        }
        EditMode::Replace => {
            let i = index.unwrap_or_default();
            let cell = cells
                .get_mut(i)
                .and_then(Value::as_object_mut)
                .ok_or_else(|| ToolError::new(format!("Cell {i} is not a JSON object.")))?;
            replace(cell, input.cell_type, &input.new_source);
            let cell = Value::Object(cell.clone());
            Ok(Done {
                cell_id: shown_id(&cell, i),
                cell_type: type_of(&cell),
                language,
            })
        }
    }
}

/// nbformat 4.5 and later give every cell an id.
fn cells_have_ids(notebook: &Value) -> bool {
    let major = notebook
        .get("nbformat")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let minor = (notebook.get("nbformat_minor"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
}

/// The index of the cell with id `id`, or of `cell-N` for a notebook whose
/// cells have no such id.
fn find_cell(cells: &[Value], id: &str) -> Result<usize, ToolError> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        return Ok(i);
    }
    let Some(n) = id
        .strip_prefix("cell-")
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return Err(ToolError::new(format!(
            "Cell with ID \"{id}\" not found in notebook."
        )));
    };
    if n < cells.len() {
        Ok(n)
    } else {
        Err(ToolError::new(format!(
            "Cell with index {n} does not exist in notebook."
        )))
    }
}

/// The id Read shows for the cell at `index`.
fn shown_id(cell: &Value, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("cell-{index}"), str::to_owned)
}

fn type_of(cell: &Value) -> CellType {
    match cell.get("cell_type").and_then(Value::as_str) {
        Some("markdown") => CellType::Markdown,
        _ => CellType::Code,
    }
}

/// Sets a cell's source (and type); a code cell's outputs no longer match it.
fn replace(cell: &mut Map<String, Value>, cell_type: Option<CellType>, source: &str) {
    cell.insert("source".into(), Value::String(source.to_owned()));
    let was = type_of(&Value::Object(cell.clone()));
    let now = cell_type.unwrap_or(was);
    if now != was {
        cell.insert("cell_type".into(), json!(now));
    }
    match now {
        CellType::Code => {
            cell.insert("execution_count".into(), Value::Null);
            cell.insert("outputs".into(), json!([]));
        }
        CellType::Markdown => {
            cell.remove("execution_count");
            cell.remove("outputs");
        }
    }
}

fn new_cell(cell_type: CellType, id: Option<&str>, source: &str) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), json!(cell_type));
    if let Some(id) = id {
        cell.insert("id".into(), json!(id));
    }
    cell.insert("metadata".into(), json!({}));
    cell.insert("source".into(), json!(source));
    if cell_type == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    }
    Value::Object(cell)
}

/// A new cell's id: 13 random lowercase letters and digits.
fn new_cell_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..13)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

/// The notebook as Jupyter writes it: one space of indentation.
fn to_notebook_json(notebook: &Value) -> Result<String, ToolError> {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    notebook
        .serialize(&mut ser)
        .map_err(|e| ToolError::new(format!("Could not write the notebook: {e}")))?;
    String::from_utf8(out).map_err(|e| ToolError::new(format!("Could not write the notebook: {e}")))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn cells_are_found_by_id_or_by_index() {
        let cells = vec![json!({"id": "a"}), json!({"id": "b"}), json!({})];
        let found: Vec<Result<usize, String>> = ["b", "cell-2", "cell-3", "zz"]
            .iter()
            .map(|id| find_cell(&cells, id).map_err(|e| e.to_string()))
            .collect();
        assert_eq!(
            found,
            vec![
                Ok(1),
                Ok(2),
                Err("Cell with index 3 does not exist in notebook.".to_owned()),
                Err("Cell with ID \"zz\" not found in notebook.".to_owned()),
            ]
        );
    }

    #[test]
    fn new_ids_only_from_nbformat_4_5() {
        let got: Vec<bool> = [(4, 4), (4, 5), (5, 0), (3, 9)]
            .iter()
            .map(|(a, b)| cells_have_ids(&json!({"nbformat": a, "nbformat_minor": b})))
            .collect();
        assert_eq!(got, vec![false, true, true, false]);
        let id = new_cell_id();
        assert!(
            id.len() == 13 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
            "{id}"
        );
    }

    #[test]
    fn a_markdown_cell_turned_to_code_gets_empty_outputs() {
        let mut cell = json!({"cell_type": "markdown", "metadata": {"k": 1}, "source": "# t"});
        replace(cell.as_object_mut().unwrap(), Some(CellType::Code), "x = 1");
        assert_eq!(
            cell,
            json!({"cell_type": "code", "metadata": {"k": 1}, "source": "x = 1",
                   "execution_count": null, "outputs": []})
        );
    }
}
