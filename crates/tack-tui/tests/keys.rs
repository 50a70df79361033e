//! The key state machine, without a terminal.

use crate::common;

use std::time::Duration;

use common::{Clock, app, app_modes, app_with, ctrl, key, notices, type_text, with};
use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::PermissionMode;
use tack_protocol::SessionSummary;
use tack_tui::commands::MenuEntry;
use tack_tui::{
    AutoDecision, CodeChanges, Decider, ModeOptions, PermissionAnswer, PermissionRequest, Prompt,
    Restore, RewindChoice, Theme, ThemeKind, TurnSummary, UiAction, UiEvent, WallClock,
};

fn turn_done() -> UiEvent {
    UiEvent::TurnResult(TurnSummary {
        interrupted: false,
        error: None,
        cost_usd: 0.01,
        session_cost_usd: 0.13,
        input_tokens: 10,
        output_tokens: 20,
        duration: Duration::from_secs(2),
    })
}

#[test]
fn enter_submits_and_input_during_a_turn_is_queued() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "hello", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(Prompt::text("hello"))]
    );
    assert!(app.is_busy());
    assert_eq!(app.input(), "");
    type_text(&mut app, "next one", clock.at(10));
    assert_eq!(app.handle_key(key(KeyCode::Enter), clock.at(10)), vec![]);
    type_text(&mut app, "and another", clock.at(20));
    assert_eq!(app.handle_key(key(KeyCode::Enter), clock.at(20)), vec![]);
    assert_eq!(
        app.queued().cloned().collect::<Vec<_>>(),
        vec![Prompt::text("next one"), Prompt::text("and another")]
    );
    // Each turn's end sends the next queued prompt.
    assert_eq!(
        app.handle_event(turn_done(), clock.at(30)),
        vec![UiAction::Submit(Prompt::text("next one"))]
    );
    assert!(app.is_busy());
    assert_eq!(
        app.handle_event(turn_done(), clock.at(40)),
        vec![UiAction::Submit(Prompt::text("and another"))]
    );
    assert_eq!(app.handle_event(turn_done(), clock.at(50)), vec![]);
    assert!(!app.is_busy());
}

#[test]
fn esc_interrupts_a_turn_and_gives_queued_prompts_back() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "long task", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    type_text(&mut app, "follow up", clock.at(5));
    app.handle_key(key(KeyCode::Enter), clock.at(5));
    assert_eq!(
        app.handle_key(key(KeyCode::Esc), clock.at(10)),
        vec![UiAction::Interrupt]
    );
    assert_eq!(app.input(), "follow up");
    assert_eq!(app.queued().count(), 0);
}

#[test]
fn esc_esc_opens_the_rewind_picker_or_clears() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(0)), vec![]);
    assert_eq!(
        app.handle_key(key(KeyCode::Esc), clock.at(400)),
        vec![UiAction::ListRewindPoints]
    );
    assert_eq!(app.input(), "");
    // With text, a double Esc clears it.
    type_text(&mut app, "draft", clock.at(3000));
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(3000)), vec![]);
    assert_eq!(app.input(), "draft");
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(3500)), vec![]);
    assert_eq!(app.input(), "");
    // Presses too far apart are two single presses.
    app.handle_key(key(KeyCode::Esc), clock.at(6000));
    app.handle_key(key(KeyCode::Esc), clock.at(8000));
    assert_eq!(app.input(), "");
}

#[test]
fn ctrl_c_clears_then_exits_and_interrupts_a_turn() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "draft", clock.at(0));
    assert_eq!(app.handle_key(ctrl('c'), clock.at(100)), vec![]);
    assert_eq!(app.input(), "");
    assert_eq!(
        app.handle_key(ctrl('c'), clock.at(600)),
        vec![UiAction::Exit]
    );

    let mut app = common::app(60, 20);
    assert_eq!(app.handle_key(ctrl('c'), clock.at(0)), vec![]);
    // Too late for a double press.
    assert_eq!(app.handle_key(ctrl('c'), clock.at(5000)), vec![]);
    assert_eq!(
        app.handle_key(ctrl('c'), clock.at(5500)),
        vec![UiAction::Exit]
    );

    let mut app = common::app(60, 20);
    type_text(&mut app, "go", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    assert_eq!(
        app.handle_key(ctrl('c'), clock.at(100)),
        vec![UiAction::Interrupt]
    );
}

#[test]
fn ctrl_d_exits_only_on_empty_input() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "ab", clock.at(0));
    app.handle_key(key(KeyCode::Left), clock.at(0));
    assert_eq!(app.handle_key(ctrl('d'), clock.at(0)), vec![]);
    assert_eq!(app.input(), "a");
    app.handle_key(key(KeyCode::Backspace), clock.at(0));
    assert_eq!(app.handle_key(ctrl('d'), clock.at(0)), vec![UiAction::Exit]);
}

/// `n` presses of Shift+Tab: the modes asked for.
fn shift_tabs(app: &mut tack_tui::App, n: usize, clock: &Clock) -> Vec<UiAction> {
    (0..n)
        .flat_map(|_| app.handle_key(key(KeyCode::BackTab), clock.at(0)))
        .collect()
}

fn modes(modes: &[PermissionMode]) -> Vec<UiAction> {
    modes
        .iter()
        .map(|m| UiAction::SetPermissionMode(*m))
        .collect()
}

#[test]
fn shift_tab_cycles_permission_modes() {
    use PermissionMode::{AcceptEdits, Auto, BypassPermissions, Default, Plan};
    let clock = Clock::new();
    let mut app = app(60, 20);
    assert_eq!(
        shift_tabs(&mut app, 5, &clock),
        modes(&[AcceptEdits, Plan, Auto, Default, AcceptEdits])
    );
    assert_eq!(app.permission_mode(), AcceptEdits);
    // Bypass only when the session allows it, after auto.
    let mut app = app_modes(ModeOptions {
        bypass: true,
        skip_auto_intro: false,
    });
    assert_eq!(
        shift_tabs(&mut app, 5, &clock),
        modes(&[AcceptEdits, Plan, Auto, BypassPermissions, Default])
    );
    assert_eq!(notices(&app), Vec::<String>::new());
}

#[test]
fn a_refused_auto_mode_is_skipped_and_said_once() {
    use PermissionMode::{AcceptEdits, Auto, Default, Plan};
    let clock = Clock::new();
    let mut app = app(60, 20);
    assert_eq!(
        shift_tabs(&mut app, 3, &clock),
        modes(&[AcceptEdits, Plan, Auto])
    );
    let refused = || UiEvent::ModeUnavailable {
        mode: Auto,
        reason: "auto mode is not available in this session: permissions.disableAutoMode is set"
            .into(),
    };
    // The runtime stayed in plan mode: the cycle moves on past auto.
    assert_eq!(app.handle_event(refused(), clock.at(10)), modes(&[Default]));
    assert_eq!(app.permission_mode(), Default);
    assert_eq!(
        shift_tabs(&mut app, 3, &clock),
        modes(&[AcceptEdits, Plan, Default])
    );
    // A late second refusal says nothing and changes nothing.
    assert_eq!(app.handle_event(refused(), clock.at(20)), vec![]);
    assert_eq!(
        notices(&app),
        vec![
            "Auto mode is not available in this session: permissions.disableAutoMode is set. \
             Shift+Tab skips Auto mode."
                .to_owned()
        ]
    );
}

#[test]
fn the_first_switch_to_auto_is_introduced_once() {
    use PermissionMode::{Auto, Default};
    let clock = Clock::new();
    let mut app = app(60, 20);
    shift_tabs(&mut app, 3, &clock);
    app.handle_event(UiEvent::ModeSet(Auto), clock.at(0));
    let intro = notices(&app);
    assert_eq!(intro.len(), 1, "{intro:?}");
    assert!(intro[0].starts_with("Auto mode is on: a classifier model decides"));
    assert!(intro[0].contains("/cost") && intro[0].contains("/permissions"));
    // Back to auto: no second notice.
    shift_tabs(&mut app, 4, &clock);
    app.handle_event(UiEvent::ModeSet(Default), clock.at(0));
    app.handle_event(UiEvent::ModeSet(Auto), clock.at(0));
    assert_eq!(notices(&app), intro);

    // Passed through on the way elsewhere: not introduced.
    let mut app = app_modes(ModeOptions::default());
    shift_tabs(&mut app, 4, &clock);
    app.handle_event(UiEvent::ModeSet(Auto), clock.at(0));
    assert_eq!(notices(&app), Vec::<String>::new());
    // skipAutoPermissionPrompt.
    let mut app = app_modes(ModeOptions {
        bypass: false,
        skip_auto_intro: true,
    });
    shift_tabs(&mut app, 3, &clock);
    app.handle_event(UiEvent::ModeSet(Auto), clock.at(0));
    assert_eq!(notices(&app), Vec::<String>::new());
}

#[test]
fn the_runtimes_answer_to_the_last_request_decides_the_mode_shown() {
    use PermissionMode::{AcceptEdits, Auto, Default, Plan};
    let clock = Clock::new();
    let mut app = app(60, 20);
    let status = |mode| {
        UiEvent::Status(tack_tui::StatusPatch {
            permission_mode: Some(mode),
            ..tack_tui::StatusPatch::default()
        })
    };
    // Pressed while the session starts: the mode it started in does not
    // undo them; the requests are answered in order, the last one counts.
    shift_tabs(&mut app, 3, &clock);
    app.handle_event(status(Default), clock.at(5));
    assert_eq!(app.permission_mode(), Auto);
    app.handle_event(UiEvent::ModeSet(AcceptEdits), clock.at(10));
    app.handle_event(UiEvent::ModeSet(Plan), clock.at(10));
    assert_eq!((app.permission_mode(), notices(&app).len()), (Auto, 0));
    app.handle_event(UiEvent::ModeSet(Auto), clock.at(10));
    assert_eq!((app.permission_mode(), notices(&app).len()), (Auto, 1));
    // Answered: a new session's mode shows again.
    app.handle_event(status(Plan), clock.at(20));
    assert_eq!(app.permission_mode(), Plan);
}

#[test]
fn the_decisions_view_turns_a_block_into_a_rule() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    app.handle_event(auto_decisions(), clock.at(0));
    // The newest block is selected: no rule fits it, nothing to send.
    assert_eq!(app.handle_key(key(KeyCode::Char('a')), clock.at(0)), vec![]);
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Char('a')), clock.at(0)),
        vec![UiAction::AddAllowRule {
            rule: "Bash(npm install:*)".into()
        }]
    );
    app.handle_event(
        UiEvent::RuleAdded {
            rule: "Bash(npm install:*)".into(),
            saved: Ok("/p/.claude/settings.local.json".into()),
        },
        clock.at(0),
    );
    // An allowed call: nothing to add either.
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_eq!(app.handle_key(key(KeyCode::Char('a')), clock.at(0)), vec![]);
    app.handle_event(
        UiEvent::RuleAdded {
            rule: "Bash(curl:*)".into(),
            saved: Err("the settings file is not valid JSON".into()),
        },
        clock.at(0),
    );
    assert_eq!(
        notices(&app),
        vec![
            "Added Bash(npm install:*) to /p/.claude/settings.local.json".to_owned(),
            "Could not add Bash(curl:*): the settings file is not valid JSON".to_owned(),
        ]
    );
    // Esc closes it; keys go to the editor again.
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(0)), vec![]);
    type_text(&mut app, "a", clock.at(0));
    assert_eq!(app.input(), "a");
}

#[test]
fn the_decisions_view_never_hides_a_permission_request() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    let request = PermissionRequest {
        id: "toolu_9".into(),
        tool_name: "Bash".into(),
        input: json!({"command": "make"}),
        reason: String::new(),
        suggestions: Vec::new(),
        original: None,
        choices: Vec::new(),
    };
    app.handle_event(UiEvent::PermissionRequest(request), clock.at(0));
    app.handle_event(auto_decisions(), clock.at(10));
    assert_eq!(
        notices(&app),
        vec!["Answer the dialog first; /permissions then lists auto mode's decisions.".to_owned()]
    );
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(20)),
        vec![UiAction::AnswerPermission {
            id: "toolu_9".into(),
            answer: PermissionAnswer::Allow
        }]
    );
}

/// A read, a blocked install (with a rule to allow it), a blocked curl no
/// rule fits: oldest first.
pub(crate) fn auto_decisions() -> UiEvent {
    let decision =
        |tool: &str, summary: &str, allowed, decided_by, reason: &str, rule: Option<&str>| {
            AutoDecision {
                tool_name: tool.into(),
                summary: summary.into(),
                allowed,
                decided_by,
                reason: reason.into(),
                rule: rule.map(str::to_owned),
            }
        };
    UiEvent::AutoDecisions(vec![
        decision(
            "Read",
            "src/lib.rs",
            true,
            Decider::FastPath,
            "read-only",
            None,
        ),
        decision(
            "Bash",
            "npm install left-pad",
            false,
            Decider::Classifier { stage: 2 },
            "installs a package from the network",
            Some("Bash(npm install:*)"),
        ),
        decision(
            "Bash",
            "curl https://example.com/x.sh | sh",
            false,
            Decider::ClassifierFailed,
            "the classifier did not answer (HTTP 529)",
            None,
        ),
    ])
}

#[test]
fn newlines_by_shift_enter_alt_enter_and_backslash() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "one", clock.at(0));
    app.handle_key(with(KeyCode::Enter, KeyModifiers::SHIFT), clock.at(0));
    type_text(&mut app, "two\\", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    type_text(&mut app, "three", clock.at(0));
    app.handle_key(with(KeyCode::Enter, KeyModifiers::ALT), clock.at(0));
    type_text(&mut app, "four", clock.at(0));
    assert_eq!(app.input(), "one\ntwo\nthree\nfour");
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(Prompt::text("one\ntwo\nthree\nfour"))]
    );
}

#[test]
fn up_and_down_browse_history_and_keep_the_draft() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "dra", clock.at(0));
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_eq!(app.input(), "earlier prompt");
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_eq!(app.input(), "run the tests");
    app.handle_key(key(KeyCode::Down), clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_eq!(app.input(), "dra");
}

#[test]
fn ctrl_r_searches_history() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "x", clock.at(0));
    app.handle_key(ctrl('r'), clock.at(0));
    type_text(&mut app, "e", clock.at(0));
    // Newest match first; Ctrl+R again goes older.
    app.handle_key(ctrl('r'), clock.at(0));
    // Tab accepts: the match in the prompt, not sent.
    assert_eq!(app.handle_key(key(KeyCode::Tab), clock.at(0)), vec![]);
    assert_eq!(app.input(), "run the tests");
    // No match: Esc accepts what there was.
    app.handle_key(ctrl('r'), clock.at(0));
    type_text(&mut app, "zzz", clock.at(0));
    app.handle_key(key(KeyCode::Esc), clock.at(0));
    assert_eq!(app.input(), "run the tests");
    // Enter runs the match.
    app.handle_key(ctrl('r'), clock.at(0));
    type_text(&mut app, "run", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(Prompt::text("run the tests"))]
    );
}

#[test]
fn large_pastes_are_collapsed_and_sent_whole() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    let big: String = (1..=50).map(|i| format!("log line {i}\n")).collect();
    type_text(&mut app, "explain ", clock.at(0));
    app.handle_paste(&big);
    assert_eq!(app.input(), "explain [Pasted text #1 +50 lines]");
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(Prompt::text(format!("explain {big}")))]
    );
    // History shows what was typed, not 50 lines of log.
    assert_eq!(
        app.cells(),
        [tack_tui::cells::HistoryCell::User {
            mode: tack_tui::input::InputMode::Prompt,
            text: "explain [Pasted text #1 +50 lines]".into(),
        }]
    );
}

#[test]
fn shell_and_memory_prefixes() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "!ls -la", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::RunShell("ls -la".into())]
    );
    type_text(&mut app, "# always run clippy", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::AddMemory("always run clippy".into())]
    );
}

#[test]
fn slash_commands_map_to_actions() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    let mut run = |text: &str| {
        type_text(&mut app, text, clock.at(0));
        // Esc closes the menu, so Enter runs exactly what was typed.
        if !text.contains(' ') {
            app.handle_key(key(KeyCode::Esc), clock.at(0));
        }
        app.handle_key(key(KeyCode::Enter), clock.at(0))
    };
    assert_eq!(
        run("/compact keep the API notes"),
        vec![UiAction::Compact {
            instructions: Some("keep the API notes".into())
        }]
    );
    assert_eq!(
        run("/compact"),
        vec![UiAction::Compact { instructions: None }]
    );
    assert_eq!(
        run("/model claude-opus-4-1"),
        vec![UiAction::SetModel("claude-opus-4-1".into())]
    );
    assert_eq!(
        run("/model"),
        vec![UiAction::Command {
            name: "model".into(),
            args: String::new()
        }]
    );
    assert_eq!(
        run("/cost"),
        vec![UiAction::Command {
            name: "cost".into(),
            args: String::new()
        }]
    );
    assert_eq!(run("/resume"), vec![UiAction::ListSessions]);
    assert_eq!(run("/rewind"), vec![UiAction::ListRewindPoints]);
    // Not the UI's: the runtime says whether it is a command.
    assert_eq!(run("/nope"), vec![UiAction::Submit(Prompt::text("/nope"))]);
    assert_eq!(run("/exit"), vec![UiAction::Exit]);
    assert_eq!(app.status().model, "claude-opus-4-1");
    assert_eq!(notices(&app), Vec::<String>::new());
}

#[test]
fn the_menu_completes_and_runs_the_selected_command() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "/comp", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Compact { instructions: None }]
    );
    type_text(&mut app, "/co", clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    app.handle_key(key(KeyCode::Tab), clock.at(0));
    assert_eq!(app.input(), "/cost ");
}

#[test]
fn custom_commands_are_in_the_menu_and_go_to_the_runtime_as_typed() {
    let clock = Clock::new();
    let entry = |name: &str| MenuEntry {
        name: name.into(),
        description: "Review a PR (project)".into(),
        argument_hint: Some("<pr>".into()),
    };
    let mut app = app_with(
        60,
        20,
        Theme::new(ThemeKind::Dark, false),
        vec![entry("review")],
    );
    type_text(&mut app, "/review   42", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(Prompt::text("/review 42"))]
    );
    // A new session's commands replace the menu's.
    app.set_custom_commands(&[entry("standup")]);
    type_text(&mut app, "/stan", clock.at(0));
    app.handle_key(key(KeyCode::Tab), clock.at(0));
    assert_eq!(app.input(), "/standup ");
}

#[test]
fn at_mentions_complete_paths() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "look at @mainrs", clock.at(0));
    app.handle_key(key(KeyCode::Tab), clock.at(0));
    assert_eq!(app.input(), "look at @src/main.rs ");
}

#[test]
fn permission_requests_are_answered_in_order() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    let request = |id: &str| PermissionRequest {
        id: id.into(),
        tool_name: "Bash".into(),
        input: json!({"command": "npm test"}),
        reason: "Bash needs approval".into(),
        suggestions: vec!["Bash(npm test:*)".into()],
        original: None,
        choices: Vec::new(),
    };
    app.handle_event(UiEvent::PermissionRequest(request("p1")), clock.at(0));
    app.handle_event(UiEvent::PermissionRequest(request("p2")), clock.at(0));
    assert!(app.is_waiting_for_user());
    // Keys go to the dialog, not the editor.
    assert_eq!(
        app.handle_key(key(KeyCode::Char('2')), clock.at(0)),
        vec![UiAction::AnswerPermission {
            id: "p1".into(),
            answer: PermissionAnswer::AllowAlways {
                rule: "Bash(npm test:*)".into()
            }
        }]
    );
    app.handle_key(key(KeyCode::Char('3')), clock.at(0));
    type_text(&mut app, "use cargo test", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::AnswerPermission {
            id: "p2".into(),
            answer: PermissionAnswer::Deny {
                feedback: Some("use cargo test".into())
            }
        }]
    );
    assert!(!app.is_waiting_for_user());
    assert_eq!(app.input(), "");
}

#[test]
fn permission_dialogs_close_when_their_turn_ends() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    type_text(&mut app, "run it", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    for id in ["p1", "p2"] {
        let request = PermissionRequest {
            id: id.into(),
            tool_name: "Bash".into(),
            input: json!({"command": "make"}),
            reason: "Bash needs approval".into(),
            suggestions: Vec::new(),
            original: None,
            choices: Vec::new(),
        };
        app.handle_event(UiEvent::PermissionRequest(request), clock.at(0));
    }
    assert!(app.is_waiting_for_user());
    // Esc interrupts the turn (the runtime denies what was asked).
    app.handle_event(
        UiEvent::TurnResult(TurnSummary {
            interrupted: true,
            ..match turn_done() {
                UiEvent::TurnResult(t) => t,
                _ => unreachable!(),
            }
        }),
        clock.at(10),
    );
    assert!(!app.is_waiting_for_user());
    // Keys go to the editor again.
    type_text(&mut app, "x", clock.at(20));
    assert_eq!(app.input(), "x");
}

#[test]
fn init_goes_to_the_runtime_and_waits_behind_a_turn() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "hello", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    type_text(&mut app, "/init", clock.at(0));
    app.handle_key(key(KeyCode::Esc), clock.at(0));
    assert_eq!(app.handle_key(key(KeyCode::Enter), clock.at(0)), vec![]);
    assert_eq!(
        app.handle_event(turn_done(), clock.at(10)),
        vec![UiAction::Submit(Prompt::text("/init"))]
    );
}

#[test]
fn resume_picker_and_trust_dialog() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    let session = |id: &str, prompt: &str| SessionSummary {
        session_id: id.into(),
        path: format!("/tmp/{id}.jsonl").into(),
        modified: std::time::UNIX_EPOCH,
        first_prompt: Some(prompt.into()),
    };
    app.handle_event(
        UiEvent::Sessions {
            sessions: vec![
                session("aaaa", "fix the parser"),
                session("bbbb", "write docs"),
            ],
            clock: WallClock {
                now: std::time::UNIX_EPOCH,
                utc_offset: Some(0),
            },
        },
        clock.at(0),
    );
    type_text(&mut app, "docs", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Resume {
            session_id: "bbbb".into()
        }]
    );
    app.handle_event(
        UiEvent::TrustRequest {
            dir: "/home/me/project".into(),
        },
        clock.at(0),
    );
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Trust(false)]
    );
}

/// Two prompts: the first with a checkpoint that changes a file, the second
/// without one.
pub(crate) fn rewind_points() -> UiEvent {
    UiEvent::RewindPoints(vec![
        RewindChoice {
            id: "p1".into(),
            text: "add a parser".into(),
            files: vec!["src/parser.rs".into()],
            code: Some(CodeChanges {
                files: vec!["src/parser.rs".into()],
                insertions: 0,
                deletions: 12,
            }),
        },
        RewindChoice {
            id: "p2".into(),
            text: "now the tests".into(),
            files: Vec::new(),
            code: None,
        },
    ])
}

#[test]
fn the_rewind_picker_offers_the_code_only_with_a_checkpoint() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    app.handle_event(rewind_points(), clock.at(0));
    // The newest prompt is selected; it has no checkpoint: conversation or never mind.
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    // "Never mind" goes back to the list.
    assert_eq!(app.handle_key(key(KeyCode::Enter), clock.at(0)), vec![]);
    app.handle_key(key(KeyCode::Up), clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    // Code and conversation, conversation, code, never mind: the third.
    app.handle_key(key(KeyCode::Down), clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Rewind {
            id: "p1".into(),
            restore: Restore::Code
        }]
    );
    // Closed: Esc Esc on the empty prompt asks again; Esc in the list cancels.
    app.handle_key(key(KeyCode::Esc), clock.at(5000));
    assert_eq!(
        app.handle_key(key(KeyCode::Esc), clock.at(5100)),
        vec![UiAction::ListRewindPoints]
    );
    app.handle_event(rewind_points(), clock.at(5200));
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(5300)), vec![]);
    type_text(&mut app, "x", clock.at(5400));
    assert_eq!(app.input(), "x");
}

#[test]
fn a_history_reset_drops_what_history_showed() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    app.handle_event(UiEvent::UserPrompt("old".into()), clock.at(0));
    assert_eq!(app.cells().len(), 1);
    app.handle_event(UiEvent::HistoryReset, clock.at(0));
    assert_eq!(app.cells().len(), 0);
    assert_eq!(app.take_history(), Vec::new());
}

#[test]
fn ctrl_g_hands_the_text_to_the_external_editor() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "draft", clock.at(0));
    assert_eq!(
        app.handle_key(ctrl('g'), clock.at(0)),
        vec![UiAction::OpenExternalEditor {
            text: "draft".into()
        }]
    );
    app.set_input("edited\ntext");
    assert_eq!(app.input(), "edited\ntext");
}

#[test]
fn no_timer_while_idle() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    app.tick(clock.at(0));
    assert_eq!(app.next_tick(), None);
    type_text(&mut app, "go", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    assert_eq!(app.next_tick(), Some(clock.at(200)));
    app.handle_event(turn_done(), clock.at(50));
    assert_eq!(app.next_tick(), None);
    // A hint expires: one timer, then idle again.
    app.handle_key(ctrl('c'), clock.at(100));
    assert_eq!(app.next_tick(), Some(clock.at(1100)));
    app.tick(clock.at(1100));
    assert_eq!(app.next_tick(), None);
}

#[test]
fn clear_and_its_aliases_go_to_the_runtime_as_typed() {
    // The runtime's own: sent as typed, so every front end clears alike
    // (the same SessionEnd / SessionStart hooks, one runtime).
    for alias in ["/clear", "/reset", "/new"] {
        let clock = Clock::new();
        let mut app = app(60, 20);
        type_text(&mut app, alias, clock.at(0));
        app.handle_key(key(KeyCode::Esc), clock.at(0));
        assert_eq!(
            app.handle_key(key(KeyCode::Enter), clock.at(0)),
            vec![UiAction::Submit(Prompt::text(alias))],
            "{alias}"
        );
    }
}

#[test]
fn left_on_an_empty_prompt_detaches_only_when_attached() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    // A session of its own: Left is only the cursor.
    assert_eq!(app.handle_key(key(KeyCode::Left), clock.at(0)), vec![]);
    app.set_detachable(true);
    type_text(&mut app, "ab", clock.at(0));
    // With text, Left moves the cursor (the next key lands before `b`).
    assert_eq!(app.handle_key(key(KeyCode::Left), clock.at(0)), vec![]);
    type_text(&mut app, "x", clock.at(0));
    assert_eq!(app.input(), "axb");
    app.set_input("");
    assert_eq!(
        app.handle_key(key(KeyCode::Left), clock.at(0)),
        vec![UiAction::Detach]
    );
    // During a turn too: detaching never interrupts it.
    type_text(&mut app, "go", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    assert!(app.is_busy());
    assert_eq!(
        app.handle_key(key(KeyCode::Left), clock.at(10)),
        vec![UiAction::Detach]
    );
}

#[test]
fn bg_is_a_command_the_driver_answers() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    type_text(&mut app, "/bg", clock.at(0));
    app.handle_key(key(KeyCode::Esc), clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Command {
            name: "bg".into(),
            args: String::new()
        }]
    );
}

#[test]
fn a_withdrawn_permission_request_closes_its_dialog_or_leaves_the_queue() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    let request = |id: &str| PermissionRequest {
        id: id.into(),
        tool_name: "Bash".into(),
        input: json!({"command": "npm test"}),
        reason: "Bash needs approval".into(),
        suggestions: Vec::new(),
        original: None,
        choices: Vec::new(),
    };
    for id in ["p1", "p2", "p3"] {
        app.handle_event(UiEvent::PermissionRequest(request(id)), clock.at(0));
    }
    // Answered elsewhere: the one waiting behind goes, the open one closes
    // and the next opens.
    app.handle_event(
        UiEvent::PermissionWithdrawn { id: "p2".into() },
        clock.at(0),
    );
    app.handle_event(
        UiEvent::PermissionWithdrawn { id: "p1".into() },
        clock.at(0),
    );
    assert!(app.is_waiting_for_user());
    assert_eq!(
        app.handle_key(key(KeyCode::Char('1')), clock.at(0)),
        vec![UiAction::AnswerPermission {
            id: "p3".into(),
            answer: PermissionAnswer::Allow
        }]
    );
    assert!(!app.is_waiting_for_user());
    // One no longer shown changes nothing.
    app.handle_event(
        UiEvent::PermissionWithdrawn { id: "p3".into() },
        clock.at(0),
    );
    assert_eq!(app.input(), "");
}

/// A keybindings file moves the external editor to a chord, unbinds its
/// default key, frees the `ctrl+x` prefix for a newline and makes
/// `ctrl+s` submit; keys it does not name keep their defaults.
#[test]
fn keybindings_rebind_unbind_and_chord() {
    use tack_tui::keybindings::Keymap;
    let clock = Clock::new();
    let mut app = app(60, 20);
    let file = json!({"bindings": [{"context": "Chat", "bindings": {
        "ctrl+g": null,
        "ctrl+k ctrl+e": "chat:externalEditor",
        "ctrl+x ctrl+e": null,
        "ctrl+x": "chat:newline",
        "ctrl+s": "chat:submit"
    }}]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keybindings.json");
    std::fs::write(&path, file.to_string()).unwrap();
    let (keymap, warnings) = Keymap::load(&path);
    assert_eq!(warnings, Vec::<String>::new());
    app.set_keymap(keymap);
    type_text(&mut app, "one", clock.at(0));
    assert_eq!(app.handle_key(ctrl('g'), clock.at(1)), vec![]);
    assert_eq!(app.handle_key(ctrl('x'), clock.at(2)), vec![]);
    type_text(&mut app, "two", clock.at(3));
    assert_eq!(app.input(), "one\ntwo");
    // The chord: nothing on its first key, the action on its second.
    assert_eq!(app.handle_key(ctrl('k'), clock.at(4)), vec![]);
    assert_eq!(
        app.handle_key(ctrl('e'), clock.at(5)),
        vec![UiAction::OpenExternalEditor {
            text: "one\ntwo".into()
        }]
    );
    // A chord's first key then a key it does not go on with: both dropped,
    // and the editor's Ctrl+K (kill to end of line) did not run.
    assert_eq!(app.handle_key(ctrl('k'), clock.at(6)), vec![]);
    assert_eq!(app.handle_key(key(KeyCode::Char('z')), clock.at(7)), vec![]);
    assert_eq!(app.input(), "one\ntwo");
    assert_eq!(
        app.handle_key(ctrl('s'), clock.at(8)),
        vec![UiAction::Submit(Prompt::text("one\ntwo"))]
    );
}
