//! NotebookEdit against real notebooks in a temp directory: each mode, the
//! file written back whole (everything the edit does not touch kept), the
//! read-before-edit rule and the errors.

use crate::common;

use common::{Session, read_to_string};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A notebook as Jupyter writes it (nbformat 4.5: cells have ids; keys
/// sorted, one space of indentation, a final newline).
fn notebook() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Some text"]},
            {"cell_type": "code", "execution_count": 3, "id": "calc", "metadata": {"tags": ["keep"]},
             "outputs": [{"name": "stdout", "output_type": "stream", "text": ["2\n"]}],
             "source": "print(1 + 1)"},
            {"cell_type": "code", "execution_count": 4, "id": "plot", "metadata": {},
             "outputs": [{"data": {"text/plain": ["<Figure>"]}, "metadata": {}, "output_type": "display_data"}],
             "source": "plot()"}
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python", "version": "3.12.1"}},
        "nbformat": 4,
        "nbformat_minor": 5
    })
}

/// `value` as Jupyter writes it.
fn jupyter_text(value: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(value, &mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

/// A session with `n.ipynb` written and read.
async fn read_notebook(nb: &Value) -> Session {
    let s = Session::new();
    s.write("n.ipynb", jupyter_text(nb));
    s.ok("Read", json!({"file_path": s.p("n.ipynb")})).await;
    s
}

fn on_disk(s: &Session) -> Value {
    serde_json::from_str(&read_to_string(&s.path("n.ipynb"))).unwrap()
}

#[tokio::test]
async fn replace_changes_one_cell_and_clears_its_outputs() {
    let s = read_notebook(&notebook()).await;
    let out = s
        .call(
            "NotebookEdit",
            json!({"notebook_path": s.p("n.ipynb"), "cell_id": "calc", "new_source": "print(2 + 2)"}),
        )
        .await
        .unwrap();
    assert_eq!(out.content.to_text(), "Updated cell calc with print(2 + 2)");
    let mut want = notebook();
    want["cells"][1] = json!({"cell_type": "code", "execution_count": null, "id": "calc",
        "metadata": {"tags": ["keep"]}, "outputs": [], "source": "print(2 + 2)"});
    // The notebook before and after, as Claude Code's result carries them.
    assert_eq!(
        out.structured,
        Some(json!({
            "notebook_path": s.p("n.ipynb"), "cell_id": "calc", "cell_type": "code",
            "edit_mode": "replace", "new_source": "print(2 + 2)", "language": "python",
            "original_file": jupyter_text(&notebook()), "updated_file": jupyter_text(&want),
        }))
    );
    // Byte for byte what Jupyter would write for the edited notebook.
    assert_eq!(read_to_string(&s.path("n.ipynb")), jupyter_text(&want));
}

#[tokio::test]
async fn insert_puts_a_cell_after_the_one_named_or_first() {
    let s = read_notebook(&notebook()).await;
    let text = s
        .ok(
            "NotebookEdit",
            json!({"notebook_path": s.p("n.ipynb"), "cell_id": "intro", "new_source": "## Part 2",
                   "cell_type": "markdown", "edit_mode": "insert"}),
        )
        .await;
    let nb = on_disk(&s);
    let new_id = nb["cells"][1]["id"].as_str().unwrap().to_owned();
    assert_eq!(text, format!("Inserted cell {new_id} with ## Part 2"));
    assert!(
        new_id.len() == 13 && new_id.bytes().all(|b| b.is_ascii_alphanumeric()),
        "{new_id}"
    );
    let mut want = notebook();
    want["cells"].as_array_mut().unwrap().insert(
        1,
        json!({"cell_type": "markdown", "id": new_id, "metadata": {}, "source": "## Part 2"}),
    );
    assert_eq!(nb, want);

    // Without a cell id, the new cell comes first; an insert needs no new read.
    s.ok(
        "NotebookEdit",
        json!({"notebook_path": s.p("n.ipynb"), "new_source": "import os",
               "cell_type": "code", "edit_mode": "insert"}),
    )
    .await;
    let first = on_disk(&s)["cells"][0].clone();
    let id = first["id"].clone();
    assert_eq!(
        first,
        json!({"cell_type": "code", "execution_count": null, "id": id, "metadata": {},
               "outputs": [], "source": "import os"})
    );
}

#[tokio::test]
async fn delete_removes_the_cell() {
    let s = read_notebook(&notebook()).await;
    assert_eq!(
        s.ok(
            "NotebookEdit",
            json!({"notebook_path": s.p("n.ipynb"), "cell_id": "plot", "new_source": "",
                   "edit_mode": "delete"}),
        )
        .await,
        "Deleted cell plot"
    );
    let mut want = notebook();
    want["cells"].as_array_mut().unwrap().remove(2);
    assert_eq!(on_disk(&s), want);
}

#[tokio::test]
async fn cells_without_ids_are_named_by_index_and_get_none() {
    let old = json!({
        "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "a = 1"}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 2
    });
    let s = read_notebook(&old).await;
    assert_eq!(
        s.ok(
            "NotebookEdit",
            json!({"notebook_path": s.p("n.ipynb"), "cell_id": "cell-0", "new_source": "notes",
                   "cell_type": "markdown", "edit_mode": "insert"}),
        )
        .await,
        "Inserted cell cell-1 with notes"
    );
    let mut want = old.clone();
    want["cells"]
        .as_array_mut()
        .unwrap()
        .push(json!({"cell_type": "markdown", "metadata": {}, "source": "notes"}));
    assert_eq!(on_disk(&s), want);
}

#[tokio::test]
async fn refuses_unread_changed_and_missing_notebooks() {
    let s = Session::new();
    s.write("n.ipynb", jupyter_text(&notebook()));
    let replace = |s: &Session, file: &str| json!({"notebook_path": s.p(file), "cell_id": "calc", "new_source": "x"});
    assert_eq!(
        s.err("NotebookEdit", replace(&s, "n.ipynb")).await,
        "File has not been read yet. Read it first before writing to it."
    );
    s.ok("Read", json!({"file_path": s.p("n.ipynb")})).await;
    std::thread::sleep(std::time::Duration::from_millis(20));
    s.write(
        "n.ipynb",
        jupyter_text(&json!({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})),
    );
    assert_eq!(
        s.err("NotebookEdit", replace(&s, "n.ipynb")).await,
        "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
    );
    assert_eq!(
        s.err("NotebookEdit", replace(&s, "gone.ipynb")).await,
        "Notebook file does not exist."
    );
}

#[tokio::test]
async fn errors_as_claude_codes() {
    let s = read_notebook(&notebook()).await;
    let nb = s.p("n.ipynb");
    let cases = [
        json!({"notebook_path": s.p("a.py"), "cell_id": "calc", "new_source": "x"}),
        json!({"notebook_path": nb, "new_source": "x", "edit_mode": "insert"}),
        json!({"notebook_path": nb, "new_source": "x"}),
        json!({"notebook_path": nb, "cell_id": "nope", "new_source": "x"}),
        json!({"notebook_path": nb, "cell_id": "cell-9", "new_source": "x"}),
        json!({"notebook_path": nb, "cell_id": "calc", "new_source": "x", "edit_mode": "move"}),
    ];
    let mut got = Vec::new();
    for input in cases {
        got.push(s.err("NotebookEdit", input).await);
    }
    assert_eq!(
        got,
        [
            "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.",
            "Cell type is required when using edit_mode=insert.",
            "Cell ID must be specified when not inserting a new cell.",
            "Cell with ID \"nope\" not found in notebook.",
            "Cell with index 9 does not exist in notebook.",
            "InputValidationError: NotebookEdit failed: unknown variant `move`, expected one of `replace`, `insert`, `delete` at `edit_mode`. Expected input: {notebook_path: string, cell_id?: string, new_source: string, cell_type?: \"code\" | \"markdown\", edit_mode?: \"replace\" | \"insert\" | \"delete\"}",
        ]
    );
    // The notebook is as it was.
    assert_eq!(on_disk(&s), notebook());
}

#[tokio::test]
async fn a_torn_or_odd_notebook_is_an_error_not_a_panic() {
    let s = Session::new();
    let mut got = Vec::new();
    for content in ["{\"cells\": [", "{\"cells\": 3}", "{\"cells\": [7]}"] {
        // Write records the file as read, as a Read of a sound notebook would.
        s.ok(
            "Write",
            json!({"file_path": s.p("t.ipynb"), "content": content}),
        )
        .await;
        got.push(
            s.err(
                "NotebookEdit",
                json!({"notebook_path": s.p("t.ipynb"), "cell_id": "cell-0", "new_source": "x"}),
            )
            .await,
        );
    }
    assert_eq!(
        got,
        [
            "Notebook is not valid JSON: EOF while parsing a list at line 1 column 11",
            "Notebook has no `cells` array.",
            "Cell 0 is not a JSON object.",
        ]
    );
}

#[tokio::test]
async fn edit_points_notebooks_at_notebook_edit() {
    let s = read_notebook(&notebook()).await;
    assert_eq!(
        s.err(
            "Edit",
            json!({"file_path": s.p("n.ipynb"), "old_string": "plot()", "new_string": "show()"})
        )
        .await,
        "File is a Jupyter Notebook. Use the NotebookEdit tool to edit this file."
    );
}
