//! Renders a Jupyter notebook (`.ipynb`) as text for Read: each cell's source and
//! its text outputs. Image outputs are named, not included.

use serde_json::Value;

/// Claude Code refuses notebooks over 100 MB.
pub(crate) const MAX_NOTEBOOK_BYTES: u64 = 100 * 1024 * 1024;

pub(crate) fn render(json: &str) -> Result<String, String> {
    let nb: Value =
        serde_json::from_str(json).map_err(|e| format!("not valid notebook JSON: {e}"))?;
    let cells = nb
        .get("cells")
        .and_then(Value::as_array)
        .ok_or("the notebook has no `cells` array")?;
    let language = nb
        .pointer("/metadata/language_info/name")
        .or_else(|| nb.pointer("/metadata/kernelspec/language"))
        .and_then(Value::as_str)
        .unwrap_or("python");
    let mut out = String::new();
    for (index, cell) in cells.iter().enumerate() {
        let kind = cell
            .get("cell_type")
            .and_then(Value::as_str)
            .unwrap_or("code");
        let id = cell
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("cell-{index}"));
        let source = multiline(cell.get("source"));
        let lang = if kind == "code" {
            format!(" language=\"{language}\"")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "<cell id=\"{id}\" type=\"{kind}\"{lang}>\n{source}\n</cell>\n"
        ));
        for output in cell
            .get("outputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(text) = output_text(output) {
                out.push_str(&format!(
                    "<output cell=\"{id}\">\n{}\n</output>\n",
                    text.trim_end()
                ));
            }
        }
    }
    Ok(out)
}

/// Notebook strings are either one string or an array of lines.
fn multiline(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn output_text(output: &Value) -> Option<String> {
    match output.get("output_type").and_then(Value::as_str)? {
        "stream" => Some(multiline(output.get("text"))),
        "execute_result" | "display_data" => {
            let data = output.get("data")?;
            if let Some(text) = data.get("text/plain") {
                return Some(multiline(Some(text)));
            }
            let image = data.as_object()?.keys().find(|k| k.starts_with("image/"))?;
            Some(format!("[{image} output not shown]"))
        }
        "error" => {
            let name = output
                .get("ename")
                .and_then(Value::as_str)
                .unwrap_or("Error");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            Some(format!("{name}: {value}"))
        }
        _ => None,
    }
}
