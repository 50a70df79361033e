//! Claude Code's real stream-json output (copied from shared/spec/samples)
//! parses into tack's record types and serialises back unchanged.

use pretty_assertions::assert_eq;

use serde_json::Value;
use tack_protocol::stream_json::*;

const SAMPLES: [&str; 2] = [
    include_str!("fixtures/claude-code-4-turn.stream.jsonl"),
    include_str!("fixtures/claude-code-max-tokens.stream.jsonl"),
];

#[test]
fn every_sample_line_round_trips_exactly() {
    let mut kinds = Vec::new();
    for sample in SAMPLES {
        for line in sample.lines() {
            let original: Value = serde_json::from_str(line).unwrap();
            let record: StreamJsonRecord =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            kinds.push(match &record {
                StreamJsonRecord::System(SystemRecord::Init(_)) => "init",
                StreamJsonRecord::System(_) => "system",
                StreamJsonRecord::Assistant(_) => "assistant",
                StreamJsonRecord::User(_) => "user",
                StreamJsonRecord::StreamEvent(_) => "stream_event",
                StreamJsonRecord::Result(_) => "result",
                StreamJsonRecord::ConversationReset(_) => "conversation_reset",
                StreamJsonRecord::TranscriptMirror(_) => "transcript_mirror",
            });
            assert_eq!(serde_json::to_value(&record).unwrap(), original);
        }
    }
    assert_eq!(kinds.iter().filter(|k| **k == "init").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "result").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "assistant").count(), 8);
}

/// The hook lifecycle and `conversation_reset` records as the SDKs type them
/// (sdk.d.ts `SDKHookStartedMessage`, `SDKHookResponseMessage`,
/// `SDKConversationResetMessage`) parse into their own variants and back.
#[test]
fn hook_and_reset_records_are_typed() {
    let lines = [
        r#"{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"SessionStart:startup","hook_event":"SessionStart","uuid":"u1","session_id":"s1"}"#,
        r#"{"type":"system","subtype":"hook_response","hook_id":"h1","hook_name":"SessionStart:startup","hook_event":"SessionStart","output":"hi\n","stdout":"hi\n","stderr":"","exit_code":0,"outcome":"success","uuid":"u2","session_id":"s1"}"#,
        r#"{"type":"conversation_reset","new_conversation_id":"s2","uuid":"u3","session_id":"s1","trigger":"clear","user_message_uuid":"m1","timestamp":"2026-01-01T00:00:00.000Z"}"#,
    ];
    let mut kinds = Vec::new();
    for line in lines {
        let original: Value = serde_json::from_str(line).unwrap();
        let record: StreamJsonRecord = serde_json::from_str(line).unwrap();
        kinds.push(match &record {
            StreamJsonRecord::System(SystemRecord::HookStarted(h)) => h.hook_name.clone(),
            StreamJsonRecord::System(SystemRecord::HookResponse(h)) => h.outcome.clone(),
            StreamJsonRecord::ConversationReset(r) => r.new_conversation_id.clone(),
            other => panic!("not typed: {other:?}"),
        });
        assert_eq!(serde_json::to_value(&record).unwrap(), original);
    }
    assert_eq!(kinds, ["SessionStart:startup", "success", "s2"]);
}

#[test]
fn modelled_fields_are_not_left_in_extra() {
    let line = SAMPLES[0].lines().last().unwrap();
    let StreamJsonRecord::Result(result) = serde_json::from_str(line).unwrap() else {
        panic!("last line is the result")
    };
    assert_eq!(result.subtype, "success");
    assert_eq!(result.num_turns, 5);
    assert_eq!(result.usage.usage.input_tokens, 50683);
    assert!(!result.extra.contains_key("session_id"));
    // Modelled since it enters the cost (1.1x in the US).
    assert!(!result.usage.extra.contains_key("inference_geo"));
    assert_eq!(result.usage.usage.inference_geo.as_deref(), Some(""));
    assert_eq!(
        result.model_usage["claude-opus-5-5"].context_window,
        1_000_000
    );
}

#[test]
fn other_system_subtypes_are_kept_verbatim() {
    let line =
        r#"{"type":"system","subtype":"status","status":"compacting","session_id":"s","uuid":"u"}"#;
    let record: StreamJsonRecord = serde_json::from_str(line).unwrap();
    assert!(matches!(
        record,
        StreamJsonRecord::System(SystemRecord::Other(_))
    ));
    assert_eq!(
        serde_json::to_value(&record).unwrap(),
        serde_json::from_str::<Value>(line).unwrap()
    );
}

#[test]
fn compact_boundary_and_informational_records_are_typed_and_round_trip() {
    let boundary = r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":5},"session_id":"s","uuid":"u"}"#;
    let info = r#"{"type":"system","subtype":"informational","content":"switched","level":"warning","session_id":"s","uuid":"u"}"#;
    for line in [boundary, info] {
        let record: StreamJsonRecord = serde_json::from_str(line).unwrap();
        assert!(matches!(
            record,
            StreamJsonRecord::System(
                SystemRecord::CompactBoundary(_) | SystemRecord::Informational(_)
            )
        ));
        assert_eq!(serde_json::to_string(&record).unwrap(), line);
    }
}
