//! Properties of the transcript loader: no file makes it panic, what it
//! returns always keeps the API's rules (every tool_use answered by exactly
//! one tool_result in the next message, roles alternating), and a written
//! conversation loads back as it was, also after a crash cut the file short.
//! `PROPTEST_CASES` raises the case count (see BENCHMARKS.md).

use std::collections::HashSet;

use proptest::prelude::*;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, Message, Role};
use tack_store::{RecordMeta, Transcript, load, load_bytes};

const SID: &str = "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60";

fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

/// The rules a loaded conversation must keep, whatever the file held.
fn check_invariants(messages: &[Message]) -> Result<(), TestCaseError> {
    for (i, m) in messages.iter().enumerate() {
        prop_assert!(!m.content.is_empty(), "message {} is empty", i);
        if let Some(next) = messages.get(i + 1) {
            prop_assert_ne!(
                m.role,
                next.role,
                "messages {} and {} share a role",
                i,
                i + 1
            );
        }
        for b in &m.content {
            let misplaced = match m.role {
                Role::Assistant => matches!(b, ContentBlock::ToolResult { .. }),
                Role::User => matches!(
                    b,
                    ContentBlock::ToolUse { .. }
                        | ContentBlock::Thinking { .. }
                        | ContentBlock::RedactedThinking { .. }
                ),
            };
            prop_assert!(!misplaced, "message {} ({:?}) holds {:?}", i, m.role, b);
        }
        let asked: Vec<&str> = match m.role {
            Role::Assistant => m.tool_uses().map(|(id, _, _)| id).collect(),
            Role::User => Vec::new(),
        };
        let answered: Vec<&str> = messages
            .get(i + 1)
            .map(|next| {
                next.content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        if m.role == Role::Assistant {
            // Exactly one result per call, and nothing else.
            prop_assert_eq!(&asked, &answered, "message {}", i);
        }
    }
    if let Some(first) = messages.first() {
        let results = first
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolResult { .. }));
        prop_assert!(!results, "the first message carries tool results");
    }
    Ok(())
}

/// A record-shaped line: chain fields drawn from a small pool so parents,
/// tool ids and results refer to each other (or to nothing).
fn record_line() -> impl Strategy<Value = Vec<u8>> {
    let uuid = prop::sample::select(vec!["u1", "u2", "u3", "u4", "u5", "u6"]);
    let tool_id = prop::sample::select(vec!["t1", "t2", "t3"]);
    let block = prop_oneof![
        ".{0,12}".prop_map(|t| json!({"type": "text", "text": t})),
        tool_id
            .clone()
            .prop_map(|id| json!({"type": "tool_use", "id": id, "name": "Read", "input": {}})),
        (tool_id, any::<bool>()).prop_map(|(id, is_error)| {
            json!({"type": "tool_result", "tool_use_id": id, "content": "x", "is_error": is_error})
        }),
        Just(json!({"type": "mystery", "x": 1})),
    ];
    (
        prop::sample::select(vec!["user", "assistant", "system", "summary", "progress"]),
        prop::option::of(uuid.clone()),
        prop::option::of(uuid),
        prop::collection::vec(block, 0..4),
        any::<bool>(),
        prop::option::of(prop::sample::select(vec!["compact_boundary", "other"])),
        0u8..8,
    )
        .prop_map(|(kind, uuid, parent, blocks, sidechain, subtype, damage)| {
            let role = if kind == "assistant" {
                "assistant"
            } else {
                "user"
            };
            let line = json!({
                "type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SID,
                "isSidechain": sidechain && damage == 0, "subtype": subtype,
                "message": {"role": role, "content": blocks},
            })
            .to_string()
            .into_bytes();
            match damage {
                // A torn line (possibly inside a character).
                1 => line[..line.len() / 2].to_vec(),
                2 => b"not json".to_vec(),
                3 => Vec::new(),
                _ => line,
            }
        })
}

/// One exchange of a conversation as tack writes it.
#[derive(Debug, Clone)]
struct Turn {
    prompt: String,
    /// Assistant text, then (tool id, result text, is_error) for each tool call.
    answer: String,
    calls: Vec<(String, bool)>,
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        ".{1,40}",
        ".{1,40}",
        prop::collection::vec((".{0,20}", any::<bool>()), 0..3),
    )
        .prop_map(|(prompt, answer, calls)| Turn {
            prompt,
            answer,
            calls,
        })
}

/// Writes `turns` through [`Transcript`]; returns what must load back.
fn write(t: &mut Transcript, turns: &[Turn]) -> Vec<Message> {
    let mut expected = Vec::new();
    for (n, turn) in turns.iter().enumerate() {
        let prompt = Message::user_text(turn.prompt.clone());
        t.append_user(&prompt).unwrap();
        expected.push(prompt);
        let mut blocks = vec![ContentBlock::text(turn.answer.clone())];
        let mut results = Vec::new();
        for (k, (result, is_error)) in turn.calls.iter().enumerate() {
            let id = format!("toolu_{n}_{k}");
            blocks.push(ContentBlock::tool_use(
                id.clone(),
                "Read",
                json!({"file_path": "/a"}),
            ));
            results.push(ContentBlock::tool_result(id, result.clone(), *is_error));
        }
        let message = json!({"id": format!("msg_{n}"), "type": "message", "role": "assistant",
            "model": "m", "content": blocks, "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        t.append_assistant(message, None).unwrap();
        expected.push(Message::assistant(blocks));
        if !results.is_empty() {
            let results = Message::user(results);
            t.append_tool_results(&results, Some(Value::Null)).unwrap();
            expected.push(results);
        }
    }
    // Consecutive user messages (tool results, then the next prompt) load as one.
    let mut merged: Vec<Message> = Vec::new();
    for m in expected {
        match merged.last_mut() {
            Some(last) if last.role == m.role => last.content.extend(m.content),
            _ => merged.push(m),
        }
    }
    merged
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn prop_load_never_panics_on_any_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
    ) {
        let loaded = load_bytes(&bytes, SID.to_owned());
        check_invariants(&loaded.messages)?;
    }

    #[test]
    fn prop_loaded_conversations_keep_the_api_rules(
        lines in prop::collection::vec(record_line(), 0..24),
    ) {
        let text = lines.join(&b'\n');
        let loaded = load_bytes(&text, SID.to_owned());
        check_invariants(&loaded.messages)?;
        // Every warning names a line that exists, when it names one.
        let ids: HashSet<String> = ["u1", "u2", "u3", "u4", "u5", "u6"].map(String::from).into();
        if let Some(leaf) = &loaded.leaf_uuid {
            prop_assert!(ids.contains(leaf), "leaf {}", leaf);
        }
    }
}

proptest! {
    // Each case writes a real file, fsync'ed per record.
    #![proptest_config(config(200))]

    #[test]
    fn prop_a_written_conversation_loads_back_also_when_cut_short(
        turns in prop::collection::vec(turn(), 1..5),
        cut in any::<prop::sample::Index>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("{SID}.jsonl"));
        let mut t = Transcript::open(&path, SID, RecordMeta::default(), None).unwrap();
        let expected = write(&mut t, &turns);
        drop(t);
        let loaded = load(&path).unwrap();
        prop_assert_eq!(&loaded.messages, &expected);
        prop_assert_eq!(loaded.warnings, vec![]);

        // A crash at any byte: what loads is whole messages, by the rules.
        let bytes = std::fs::read(&path).unwrap();
        let at = cut.index(bytes.len() + 1);
        let cut_short = load_bytes(&bytes[..at], SID.to_owned());
        check_invariants(&cut_short.messages)?;
        prop_assert!(cut_short.messages.len() <= expected.len());
    }
}
