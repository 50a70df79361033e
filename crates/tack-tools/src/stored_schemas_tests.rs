//! The built-in tools' stored input schemas are their input types' (see
//! `tack_tool::input::stored_schema`); `UPDATE_SCHEMAS=1` rewrites them.

use tack_tool::input::{check_stored_schema, check_stored_schemas};

#[test]
fn stored_schemas_are_the_input_types_schemas() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let failures = check_stored_schemas(
        &dir,
        &[
            ("grep", check_stored_schema::<crate::grep::GrepInput>),
            ("edit", check_stored_schema::<crate::edit::EditInput>),
            (
                "notebook_edit",
                check_stored_schema::<crate::notebook_edit::NotebookEditInput>,
            ),
            ("read", check_stored_schema::<crate::read::ReadInput>),
            (
                "task_output",
                check_stored_schema::<crate::task_output::TaskOutputInput>,
            ),
            (
                "task_stop",
                check_stored_schema::<crate::task_stop::TaskStopInput>,
            ),
            ("write", check_stored_schema::<crate::write::WriteInput>),
            ("glob", check_stored_schema::<crate::glob::GlobInput>),
            ("ls", check_stored_schema::<crate::ls::LsInput>),
            ("bash", check_stored_schema::<crate::bash::BashInput>),
            (
                "multi_edit",
                check_stored_schema::<crate::multi_edit::MultiEditInput>,
            ),
            (
                "todo_write",
                check_stored_schema::<crate::todo_write::TodoWriteInput>,
            ),
            (
                "task_create",
                check_stored_schema::<crate::tasks::TaskCreateInput>,
            ),
            (
                "task_get",
                check_stored_schema::<crate::tasks::TaskGetInput>,
            ),
            (
                "task_update",
                check_stored_schema::<crate::tasks::TaskUpdateInput>,
            ),
            (
                "task_list",
                check_stored_schema::<crate::tasks::TaskListInput>,
            ),
        ],
    );
    assert_eq!(failures, Vec::<String>::new());
}
