//! Properties of the stream-json control protocol's stdin lines: whatever an
//! SDK (or anything else on stdin) writes, parsing returns a line or an
//! error, never a panic, and a line tack reads writes back as it was read.

use proptest::prelude::*;
use serde_json::{Value, json};
use tack_protocol::control::StdinLine;

/// JSON values shaped like stdin lines: known and unknown `type`s and
/// subtypes, ids of any type, nested junk.
fn line_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,12}".prop_map(Value::String),
    ];
    let junk = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    let kind = prop_oneof![
        Just("user"),
        Just("control_request"),
        Just("control_response"),
        Just("control_cancel_request"),
        Just("keep_alive"),
        Just("other"),
    ];
    let subtype = prop_oneof![
        Just("initialize"),
        Just("interrupt"),
        Just("set_permission_mode"),
        Just("set_model"),
        Just("can_use_tool"),
        Just("success"),
        Just("error"),
        Just("bogus"),
    ];
    (kind, subtype, junk.clone(), junk.clone(), junk).prop_map(|(kind, subtype, id, a, b)| {
        json!({
            "type": kind,
            "request_id": id,
            "request": {"subtype": subtype, "mode": a, "model": b},
            "response": {"subtype": subtype, "request_id": id, "response": a, "error": b},
            "message": {"role": "user", "content": a},
        })
    })
}

proptest! {
    #[test]
    fn prop_any_text_parses_or_errs_without_panic(text in ".{0,300}") {
        let _ = serde_json::from_str::<StdinLine>(&text);
    }

    #[test]
    fn prop_stdin_lines_parse_or_err_and_what_parses_writes_back_the_same(value in line_value()) {
        let text = value.to_string();
        if let Ok(line) = serde_json::from_str::<StdinLine>(&text) {
            let again = serde_json::to_string(&line).unwrap();
            prop_assert_eq!(serde_json::from_str::<StdinLine>(&again).ok(), Some(line));
        }
    }
}
