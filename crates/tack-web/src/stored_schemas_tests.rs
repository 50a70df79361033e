//! The web tools' stored input schemas are their input types' (see
//! `tack_tool::input::stored_schema`); `UPDATE_SCHEMAS=1` rewrites them.

use tack_tool::input::{check_stored_schema, check_stored_schemas};

#[test]
fn stored_schemas_are_the_input_types_schemas() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let failures = check_stored_schemas(
        &dir,
        &[
            (
                "web_search",
                check_stored_schema::<crate::web_search::WebSearchInput>,
            ),
            (
                "web_fetch",
                check_stored_schema::<crate::web_fetch::WebFetchInput>,
            ),
        ],
    );
    assert_eq!(failures, Vec::<String>::new());
}
