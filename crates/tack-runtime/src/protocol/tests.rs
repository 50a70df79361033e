//! Every op, reply and event survives a trip through JSON: what a front end
//! in another process reads is what the runtime emitted.

use std::path::PathBuf;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tack_core::LoopEvent;
use tack_core::query::{AssistantMessageEvent, ToolResultInfo, ToolResultsEvent};
use tack_protocol::control::PermissionUpdate;
use tack_protocol::extensions::PluginSummary;
use tack_protocol::stream_json::{McpServerStatus, ResultRecord};
use tack_protocol::{Message, PermissionMode, SseEvent, StopReason, Usage};

use super::ask::{AskAnswer, AskId, HookAnswer, PermissionAnswer};
use super::op::{McpControl, Op, OpId, ReceiptWanted, Submission, TurnOptions, UserInput};
use super::reply::{
    AnswerError, ConversationRewound, InterruptOutcome, InterruptReceipt, McpControlError,
    ModeError, Reply, RewindPoint, SessionState,
};
use crate::checkpoints::RewindError;
use crate::event::{
    AgentSummary, ConversationReset, ExtensionsInfo, HookActivity, HookCallback, HookResponse,
    Notice, PermissionRequest, RuntimeEvent, SessionInfo, SubagentEvent, TaskEvent, TaskStatus,
    TranscriptMirrorFrame, TurnEnd,
};
use crate::snapshot::{ContextUsage, HookView, RuleView, SessionPlace, SessionSnapshot};
use crate::user_shell::{NoteError, ShellRun};

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let line = serde_json::to_string(value).unwrap();
    assert!(!line.contains('\n'), "one line: {line}");
    let back: T = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(&back, value, "{line}");
}

fn input() -> UserInput {
    UserInput {
        message: Message::user_text("fix the test"),
        uuid: Some("u-1".into()),
        origin: Some(json!({"kind": "human"})),
        verbatim: true,
    }
}

/// One op of every kind: `Op`'s variants by index, so a new one must be
/// added here (the match has no catch-all).
fn op_kind(op: &Op) -> usize {
    match op {
        Op::Submit(_) => 0,
        Op::SubmitWith { .. } => 1,
        Op::Append(_) => 2,
        Op::Compact { .. } => 3,
        Op::Interrupt { .. } => 4,
        Op::SetPermissionMode(_) => 5,
        Op::SetModel(_) => 6,
        Op::McpStatus => 7,
        Op::McpControl(_) => 8,
        Op::StopTask { .. } => 9,
        Op::Snapshot => 10,
        Op::Conversation => 11,
        Op::RunShell { .. } => 12,
        Op::AddNote { .. } => 13,
        Op::RewindFiles { .. } => 14,
        Op::RewindPoints => 15,
        Op::RewindConversation { .. } => 16,
        Op::EndInput { .. } => 17,
        Op::Answer { .. } => 18,
        Op::AddAllowRule { .. } => 19,
    }
}
const OP_KINDS: usize = 20;

fn ops() -> Vec<Op> {
    vec![
        Op::Submit(input()),
        Op::SubmitWith {
            input: input(),
            options: TurnOptions {
                allowed_tools: vec!["Bash(git add:*)".into()],
                model: Some("haiku".into()),
                ..TurnOptions::default()
            },
        },
        Op::Append(UserInput::text("context")),
        Op::Compact {
            instructions: Some("keep the plan".into()),
        },
        Op::Interrupt { receipt: None },
        Op::Interrupt {
            receipt: Some(ReceiptWanted {
                cancel_queued: true,
            }),
        },
        Op::SetPermissionMode(PermissionMode::AcceptEdits),
        Op::SetModel(None),
        Op::SetModel(Some("opus".into())),
        Op::McpStatus,
        Op::McpControl(McpControl::Reconnect("docs".into())),
        Op::McpControl(McpControl::Toggle {
            server: "docs".into(),
            enabled: false,
        }),
        Op::McpControl(McpControl::SetServers(
            json!({"docs": {"command": "docs-server"}}),
        )),
        Op::StopTask {
            task_id: "b1".into(),
        },
        Op::Snapshot,
        Op::Conversation,
        Op::RunShell {
            command: "ls".into(),
        },
        Op::AddNote {
            note: "use tabs".into(),
        },
        Op::RewindFiles {
            user_message_id: "u-1".into(),
            dry_run: true,
        },
        Op::RewindPoints,
        Op::AddAllowRule {
            rule: "Bash(npm install:*)".into(),
        },
        Op::RewindConversation {
            user_message_id: "u-1".into(),
        },
        Op::EndInput {
            wait_ceiling: Some(Duration::from_millis(1500)),
        },
        Op::Answer {
            ask: AskId(3),
            answer: AskAnswer::Permission(PermissionAnswer::allow_always("Bash(npm test)")),
        },
        Op::Answer {
            ask: AskId(4),
            answer: AskAnswer::Permission(PermissionAnswer::reject(Some("not now"))),
        },
        Op::Answer {
            ask: AskId(5),
            answer: AskAnswer::Hook(HookAnswer::Output(json!({"continue": true}))),
        },
        Op::Answer {
            ask: AskId(6),
            answer: AskAnswer::Hook(HookAnswer::Failed("callback threw".into())),
        },
    ]
}

#[test]
fn every_op_round_trips_through_json() {
    let ops = ops();
    let mut seen = vec![false; OP_KINDS];
    for (i, op) in ops.into_iter().enumerate() {
        seen[op_kind(&op)] = true;
        round_trip(&Submission {
            id: OpId(format!("op-{i}")),
            op,
        });
    }
    assert_eq!(seen, vec![true; OP_KINDS], "an op kind without an example");
}

#[test]
fn an_op_reads_as_a_front_end_writes_it() {
    let line = r#"{"id":"7","op":{"interrupt":{"receipt":{"cancel_queued":false}}}}"#;
    let submission: Submission = serde_json::from_str(line).unwrap();
    assert_eq!(
        submission,
        Submission {
            id: OpId("7".into()),
            op: Op::Interrupt {
                receipt: Some(ReceiptWanted {
                    cancel_queued: false
                })
            },
        }
    );
    let line = r#"{"id":"8","op":{"submit":{"message":{"role":"user","content":"hi"}}}}"#;
    let submission: Submission = serde_json::from_str(line).unwrap();
    assert_eq!(submission.op, Op::Submit(UserInput::text("hi")));
    let line = r#"{"id":"9","op":{"answer":{"ask":2,"answer":{"permission":{"deny":{"message":"no","interrupt":false}}}}}}"#;
    let submission: Submission = serde_json::from_str(line).unwrap();
    assert_eq!(
        submission.op,
        Op::Answer {
            ask: AskId(2),
            answer: AskAnswer::Permission(PermissionAnswer::Deny {
                message: "no".into(),
                interrupt: false
            }),
        }
    );
}

#[test]
fn a_turn_option_the_runtime_keeps_to_itself_cannot_be_sent() {
    let line = r#"{"allowed_tools":[],"model":null,"inline_shell":"Run"}"#;
    let options: TurnOptions = serde_json::from_str(line).unwrap();
    assert_eq!(options, TurnOptions::default());
}

fn snapshot() -> SessionSnapshot {
    SessionSnapshot {
        session_id: "s-1".into(),
        model: "claude-sonnet-4-5".into(),
        permission_mode: PermissionMode::Plan,
        totals: Default::default(),
        turns_duration: Duration::from_millis(1234),
        context: ContextUsage {
            window: 200_000,
            used: Some(1000),
            ..ContextUsage::default()
        },
        messages: 4,
        rules: vec![RuleView {
            behavior: "allow".into(),
            rule: "Bash(git diff:*)".into(),
            source: "projectSettings".into(),
            file: Some(PathBuf::from("/p/.claude/settings.json")),
        }],
        turn_running: false,
        hooks: vec![HookView {
            event: "PreToolUse".into(),
            matcher: Some("Bash".into()),
            command: "check.sh".into(),
            is_async: false,
        }],
        sandbox: "Sandbox: off".into(),
        auto_decisions: Vec::new(),
        set_aside: Vec::new(),
        classifier: None,
        place: SessionPlace {
            cwd: PathBuf::from("/p/.claude/worktrees/feature"),
            worktree: Some(tack_tool::EnteredWorktree {
                name: "feature".into(),
                path: PathBuf::from("/p/.claude/worktrees/feature"),
                branch: Some("worktree-feature".into()),
                original_cwd: PathBuf::from("/p"),
                original_branch: None,
            }),
        },
    }
}

fn replies() -> Vec<Reply> {
    vec![
        Reply::Interrupted(InterruptOutcome::Interrupted),
        Reply::Interrupted(InterruptOutcome::Idle),
        Reply::InterruptReceipt(InterruptReceipt {
            outcome: InterruptOutcome::Interrupted,
            still_queued: vec!["u-2".into()],
            cancelled: vec!["u-3".into()],
        }),
        Reply::PermissionMode(Ok(())),
        Reply::PermissionMode(Err(ModeError::BypassUnavailable)),
        Reply::McpStatus(vec![McpServerStatus {
            name: "docs".into(),
            status: "connected".into(),
        }]),
        Reply::McpControl(Ok(json!({"added": ["docs"], "removed": [], "errors": {}}))),
        Reply::McpControl(Err(McpControlError::NoServers)),
        Reply::McpControl(Err(McpControlError::Failed("bad config".into()))),
        Reply::TaskStopped(Ok(())),
        Reply::TaskStopped(Err(tack_tools::StopError::NotRunning {
            id: "b1".into(),
            status: "completed".into(),
        })),
        Reply::Snapshot(Box::new(snapshot())),
        Reply::Conversation(vec![Message::user_text("hi")]),
        Reply::Shell(ShellRun {
            command: "ls".into(),
            stdout: "a\n".into(),
            stderr: String::new(),
            code: Some(0),
            stopped: None,
        }),
        Reply::Note(Ok(PathBuf::from("/p/CLAUDE.md"))),
        Reply::Note(Err(NoteError::Write {
            path: PathBuf::from("/p/CLAUDE.md"),
            message: "read-only file system".into(),
        })),
        Reply::FilesRewound(Ok(tack_store::Rewound {
            files_changed: vec![PathBuf::from("/p/a.rs")],
            insertions: 2,
            deletions: 1,
            skipped: 0,
        })),
        Reply::FilesRewound(Err(RewindError::Io {
            path: PathBuf::from("/p/a.rs"),
            message: "denied".into(),
        })),
        Reply::RewindPoints(vec![RewindPoint {
            id: "u-1".into(),
            text: "fix it".into(),
            checkpoint: None,
            files: vec!["/p/a.rs".into()],
        }]),
        Reply::ConversationRewound(Ok(ConversationRewound {
            prompt: "fix it".into(),
            messages: vec![],
        })),
        Reply::ConversationRewound(Err(RewindError::TurnRunning)),
        Reply::Answered(Ok(())),
        Reply::Answered(Err(AnswerError::NotWaiting(AskId(9)))),
        Reply::RuleAdded(Ok("/p/.claude/settings.local.json".into())),
        Reply::RuleAdded(Err("`Bash(` is not a rule".into())),
        Reply::PermissionMode(Err(ModeError::AutoModeUnavailable(
            "permissions.disableAutoMode is set".into(),
        ))),
    ]
}

#[test]
fn every_reply_round_trips_through_json() {
    for reply in replies() {
        round_trip(&reply);
    }
}

/// `RuntimeEvent`'s variants by index (no catch-all: a new one must be
/// added to [`events`]).
fn event_kind(event: &RuntimeEvent) -> usize {
    match event {
        RuntimeEvent::Notice(_) => 0,
        RuntimeEvent::Started(_) => 1,
        RuntimeEvent::Loop(_) => 2,
        RuntimeEvent::TurnEnded(_) => 3,
        RuntimeEvent::CompactEnded { .. } => 4,
        RuntimeEvent::PermissionRequest(_) => 5,
        RuntimeEvent::HookCallback(_) => 6,
        RuntimeEvent::AskWithdrawn { .. } => 7,
        RuntimeEvent::Reply { .. } => 8,
        RuntimeEvent::Ended => 9,
        RuntimeEvent::Subagent(_) => 10,
        RuntimeEvent::Hook(_) => 11,
        RuntimeEvent::ConversationReset(_) => 12,
        RuntimeEvent::TranscriptMirror(_) => 13,
        RuntimeEvent::Task(_) => 14,
        RuntimeEvent::SessionState(_) => 15,
        RuntimeEvent::PermissionDenied(_) => 16,
        RuntimeEvent::Input(_) => 17,
        RuntimeEvent::Teammate(_) => 18,
    }
}
const EVENT_KINDS: usize = 19;

/// A `result` record as Claude Code wrote it (the spec's samples).
fn result_record() -> ResultRecord {
    let sample = include_str!("../../../tack-cli/tests/fixtures/claude-code-4-turn.stream.jsonl");
    let line = sample
        .lines()
        .find(|l| l.contains(r#""type":"result""#))
        .unwrap();
    serde_json::from_str(line).unwrap()
}

fn assistant() -> LoopEvent {
    LoopEvent::AssistantMessage(AssistantMessageEvent {
        uuid: "a-1".into(),
        message: Message::assistant(vec![tack_protocol::ContentBlock::text("done")]),
        id: "msg_1".into(),
        model: "claude-sonnet-4-5".into(),
        usage: Usage::default(),
        stop_reason: Some(StopReason::EndTurn),
        api_duration: Duration::from_millis(321),
        request_id: Some("req_1".into()),
    })
}

fn loop_events() -> Vec<LoopEvent> {
    vec![
        LoopEvent::RequestStart {
            model: "claude-sonnet-4-5".into(),
            turn_count: 2,
            transition: Some(tack_core::query::Transition::NextTurn),
        },
        LoopEvent::Stream(SseEvent::MessageStop),
        LoopEvent::Retry {
            attempt: 1,
            max_retries: 10,
            delay: Duration::from_millis(500),
            error: tack_api::ApiError::Overloaded {
                retry_after: Some(Duration::from_secs(2)),
                message: "Overloaded".into(),
            },
        },
        assistant(),
        LoopEvent::ToolResults(ToolResultsEvent {
            uuid: "u-2".into(),
            message: Message::user_text("result"),
            results: vec![ToolResultInfo {
                tool_use_id: "toolu_1".into(),
                tool_name: "Bash".into(),
                is_error: false,
                structured: Some(json!({"stdout": "ok"})),
            }],
        }),
        LoopEvent::ToolProgress(tack_tool::ToolProgress {
            tool_use_id: "toolu_1".into(),
            data: json!({"type": "bash_progress"}),
        }),
        LoopEvent::Tombstone {
            uuid: "a-2".into(),
            message_id: "msg_2".into(),
        },
        LoopEvent::ModelFallback {
            from: "opus".into(),
            to: "sonnet".into(),
        },
        LoopEvent::CompactFailed {
            trigger: tack_core::compact::CompactTrigger::Auto,
            consecutive_failures: 1,
            error: "timeout".into(),
        },
        LoopEvent::MetaMessage {
            uuid: "m-1".into(),
            message: Message::user_text("Resume directly"),
        },
        LoopEvent::Terminal(tack_core::Terminal::ModelError(
            tack_api::ApiError::Connection {
                message: "reset".into(),
            },
        )),
        LoopEvent::Terminal(tack_core::Terminal::Completed),
    ]
}

fn events() -> Vec<RuntimeEvent> {
    let info = SessionInfo {
        extensions: ExtensionsInfo {
            agents: vec![AgentSummary {
                name: "general-purpose".into(),
                description: "any task".into(),
                model: None,
            }],
            main_agent: Some("reviewer".into()),
            slash_commands: vec![],
            output_style: "default".into(),
            output_styles: vec!["default".into()],
            skills: vec![],
            plugins: vec![PluginSummary {
                name: "fmt".into(),
                path: PathBuf::from("/h/plugins/fmt"),
                source: "fmt@market".into(),
                version: Some("1.0.0".into()),
            }],
            plugin_errors: vec![],
        },
        session_id: "s-1".into(),
        cwd: PathBuf::from("/p"),
        model: "claude-sonnet-4-5".into(),
        tools: vec!["Bash".into(), "Read".into()],
        permission_mode: PermissionMode::Default,
        api_key_source: "ANTHROPIC_API_KEY".into(),
        api_provider: "firstParty".into(),
        transcript_path: Some(PathBuf::from("/h/.claude/projects/-p/s-1.jsonl")),
        resumed: false,
        mcp_servers: vec![],
        version: "0.1.0".into(),
    };
    let mut events = vec![
        RuntimeEvent::Notice(Notice::warning("settings: unknown key")),
        RuntimeEvent::Started(Box::new(info)),
        RuntimeEvent::TurnEnded(Box::new(TurnEnd {
            record: result_record(),
            ok: true,
            error_line: None,
        })),
        RuntimeEvent::CompactEnded {
            error: Some("no room".into()),
        },
        RuntimeEvent::PermissionRequest(Box::new(PermissionRequest {
            id: AskId(1),
            tool_name: "Bash".into(),
            input: json!({"command": "rm -rf build"}),
            tool_use_id: "toolu_1".into(),
            reason: "no rule allows it".into(),
            suggestions: vec!["Bash(rm:*)".into()],
            blocked_path: Some(PathBuf::from("/elsewhere")),
            agent: Some(tack_tool::AgentIdentity {
                id: "a12345678".into(),
                agent_type: "general-purpose".into(),
            }),
            original: Some("old\n".into()),
            choices: tack_protocol::PermissionChoice::plan_approval(false),
        })),
        RuntimeEvent::HookCallback(Box::new(HookCallback {
            id: AskId(2),
            callback_id: "hook_0".into(),
            input: json!({"hook_event_name": "PreToolUse"}),
            tool_use_id: Some("toolu_1".into()),
        })),
        RuntimeEvent::AskWithdrawn { id: AskId(2) },
        RuntimeEvent::Reply {
            id: OpId("op-1".into()),
            reply: Box::new(Reply::Interrupted(InterruptOutcome::Idle)),
        },
        RuntimeEvent::Ended,
        RuntimeEvent::Subagent(Box::new(SubagentEvent {
            parent_tool_use_id: "toolu_9".into(),
            agent_id: "a12345678".into(),
            agent_type: "Explore".into(),
            event: assistant(),
        })),
        RuntimeEvent::Hook(Box::new(HookActivity {
            hook_id: "h-1".into(),
            hook_name: "SessionStart:startup".into(),
            hook_event: "SessionStart".into(),
            response: Some(HookResponse {
                stdout: "ok".into(),
                stderr: String::new(),
                exit_code: Some(0),
                outcome: "success".into(),
            }),
        })),
        RuntimeEvent::ConversationReset(Box::new(ConversationReset {
            old_session_id: "s-1".into(),
            new_session_id: "s-2".into(),
            user_message_uuid: Some("u-9".into()),
        })),
        RuntimeEvent::TranscriptMirror(Box::new(TranscriptMirrorFrame {
            file_path: PathBuf::from("/h/.claude/projects/-p/s-1.jsonl"),
            entries: vec![json!({"type": "user"})],
        })),
        RuntimeEvent::Task(Box::new(TaskEvent::Started {
            task_id: "a1".into(),
            tool_use_id: "toolu_3".into(),
            description: "survey".into(),
            subagent_type: "Explore".into(),
            prompt: "look around".into(),
            background: true,
        })),
        RuntimeEvent::Task(Box::new(TaskEvent::Finished {
            task_id: "a1".into(),
            tool_use_id: "toolu_3".into(),
            status: TaskStatus::Completed,
            summary: "Agent \"survey\" completed".into(),
            output_file: PathBuf::from("/tmp/a1.output"),
            usage: crate::event::TaskUsage {
                total_tokens: 1200,
                tool_uses: 3,
                duration_ms: 4500,
            },
            background: true,
        })),
        RuntimeEvent::SessionState(SessionState::Running),
        RuntimeEvent::SessionState(SessionState::Idle),
        RuntimeEvent::PermissionDenied(Box::new(crate::event::PermissionDenied {
            tool_name: "Bash".into(),
            tool_use_id: "toolu_1".into(),
            message: "Auto mode blocked this call: it deletes files outside the project".into(),
            reason_type: "classifier".into(),
            nobody_to_ask: false,
            agent_id: None,
        })),
        RuntimeEvent::Input(Box::new(UserInput {
            uuid: Some("u-2".into()),
            ..UserInput::text("and the docs")
        })),
        RuntimeEvent::Teammate(Box::new(teammate_idle())),
    ];
    events.extend(loop_events().into_iter().map(RuntimeEvent::Loop));
    events.extend(
        replies()
            .into_iter()
            .enumerate()
            .map(|(i, reply)| RuntimeEvent::Reply {
                id: OpId(i.to_string()),
                reply: Box::new(reply),
            }),
    );
    events
}

#[test]
fn every_event_round_trips_through_json() {
    let mut seen = vec![false; EVENT_KINDS];
    for event in events() {
        seen[event_kind(&event)] = true;
        round_trip(&event);
    }
    assert_eq!(
        seen,
        vec![true; EVENT_KINDS],
        "an event kind without an example"
    );
}

#[test]
fn a_permission_update_in_an_answer_keeps_its_sdk_shape() {
    let answer = PermissionAnswer::allow_always("Bash(npm test)");
    let PermissionAnswer::Allow { updates, .. } = &answer else {
        panic!("not an allow")
    };
    let [PermissionUpdate::AddRules(_)] = updates.as_slice() else {
        panic!("not one addRules: {updates:?}")
    };
    assert_eq!(
        serde_json::to_value(&updates[0]).unwrap(),
        json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
               "behavior": "allow", "destination": "localSettings"})
    );
}

fn teammate_idle() -> crate::event::TeammateEvent {
    crate::event::TeammateEvent {
        team_name: "session-aaaaaaaa".into(),
        name: "alice".into(),
        state: crate::event::TeammateState::Idle,
        color: Some("blue".into()),
        agent_type: "general-purpose".into(),
        backend_type: "in-process".into(),
    }
}

#[test]
fn a_teammate_event_is_one_flat_object_in_the_protocol() {
    let event = RuntimeEvent::Teammate(Box::new(teammate_idle()));
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({"teammate": {"team_name": "session-aaaaaaaa", "name": "alice", "state": "idle",
                            "color": "blue", "agent_type": "general-purpose",
                            "backend_type": "in-process"}})
    );
    let states: Vec<String> = [
        crate::event::TeammateState::Joined,
        crate::event::TeammateState::Working,
        crate::event::TeammateState::Idle,
        crate::event::TeammateState::Stopped,
        crate::event::TeammateState::Left,
    ]
    .iter()
    .map(|s| {
        assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
        s.as_str().to_string()
    })
    .collect();
    assert_eq!(states, ["joined", "working", "idle", "stopped", "left"]);
}
