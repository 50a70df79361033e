//! The permission dialog, as Claude Code's: Yes / Yes, and switch to accept
//! edits (an edit) or Yes, and don't ask again for `prefix` commands in the
//! project (a command; the rule saved is the one named) / No, and tell tack
//! what to do instead. A request that carries its own choices (a plan's
//! approval: the mode to work in) shows those instead. Shows the command, the
//! diff of an edit, or the plan.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::{boxed, row_marker};
use crate::cells::{render_diff, summary, tool_change};
use crate::event::{PermissionAnswer, PermissionRequest};
use crate::input::Editor;
use crate::theme::Theme;
use crate::wrap::wrap_spans;
use tack_protocol::PermissionMode;

/// The plan's approval: its own title, the plan, and its own options.
const EXIT_PLAN_MODE: &str = "ExitPlanMode";

/// Tools that change files: their dialog offers to switch to accept-edits mode.
const EDIT_TOOLS: [&str; 4] = ["Edit", "MultiEdit", "Write", "NotebookEdit"];

/// The dialog's state.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionDialog {
    pub request: PermissionRequest,
    selected: usize,
    /// Typing what to do instead (after choosing "No").
    feedback: Option<Editor>,
    /// Say why the user is asked under a command or an edit too (auto mode:
    /// its classifier failed or blocked too often, a safety check asks).
    why: bool,
    /// An edit may switch the session to accept-edits mode (not when it is
    /// in that mode already: the edit is asked for another reason).
    accept_edits: bool,
    /// The project's directory as shown, for "don't ask again … in <dir>".
    project: Option<String>,
}

/// What a key did to the dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Still open.
    Open,
    /// Answered.
    Answered(PermissionAnswer),
    /// Allowed, and the session is to switch to this mode first.
    AllowInMode(PermissionMode),
}

/// What an option of the dialog does.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Choice {
    Allow,
    /// Allow, switching to this mode first.
    InMode(PermissionMode),
    Always(String),
    Deny,
}

impl PermissionDialog {
    pub fn new(request: PermissionRequest) -> PermissionDialog {
        PermissionDialog {
            request,
            selected: 0,
            feedback: None,
            why: false,
            accept_edits: false,
            project: None,
        }
    }

    /// The dialog saying why it asks whatever the call (other tools' dialogs
    /// always do).
    pub fn saying_why(self) -> PermissionDialog {
        PermissionDialog { why: true, ..self }
    }

    /// An edit's dialog offers "Yes, and switch to accept edits" (instead
    /// of a rule) when `offer`.
    pub fn offering_accept_edits(self, offer: bool) -> PermissionDialog {
        PermissionDialog {
            accept_edits: offer && EDIT_TOOLS.contains(&self.request.tool_name.as_str()),
            ..self
        }
    }

    /// The project's directory as the dialog names it.
    pub fn in_project(self, dir: String) -> PermissionDialog {
        PermissionDialog {
            project: Some(dir),
            ..self
        }
    }

    /// The rule "don't ask again" would save. None holding a control
    /// character is offered: it would not read as what it matches.
    fn always_rule(&self) -> Option<&String> {
        self.request
            .suggestions
            .first()
            .filter(|r| !tack_sys::terminal_text::has_control(r, true))
    }

    fn choices(&self) -> Vec<(String, Choice)> {
        if !self.request.choices.is_empty() {
            // The request's own (a plan's approval: the mode to work in).
            return (self.request.choices.iter())
                .map(|c| match (c.allows(), c.mode) {
                    (true, Some(mode)) => (c.label.clone(), Choice::InMode(mode)),
                    (true, None) => (c.label.clone(), Choice::Allow),
                    (false, _) => (format!("{} (esc)", c.label), Choice::Deny),
                })
                .collect();
        }
        let mut out = vec![("Yes".to_string(), Choice::Allow)];
        if self.accept_edits {
            out.push((
                "Yes, and switch to accept edits (shift+tab)".to_string(),
                Choice::InMode(PermissionMode::AcceptEdits),
            ));
        } else if let Some(rule) = self.always_rule() {
            let mut label = format!("Yes, and don't ask again for {}", describe_rule(rule));
            if let Some(dir) = self
                .project
                .as_deref()
                .filter(|_| rule.starts_with("Bash("))
            {
                label.push_str(&format!(" in {}", tack_sys::terminal_text::visible(dir)));
            }
            out.push((label, Choice::Always(rule.clone())));
        }
        out.push((
            "No, and tell tack what to do differently (esc)".to_string(),
            Choice::Deny,
        ));
        out
    }

    fn answer(&mut self, index: usize) -> DialogOutcome {
        let mut choices = self.choices();
        let last = choices.len() - 1;
        match choices.swap_remove(index.min(last)).1 {
            Choice::Allow => DialogOutcome::Answered(PermissionAnswer::Allow),
            Choice::InMode(mode) => DialogOutcome::AllowInMode(mode),
            Choice::Always(rule) => DialogOutcome::Answered(PermissionAnswer::AllowAlways { rule }),
            Choice::Deny => {
                self.selected = last;
                self.feedback = Some(Editor::new());
                DialogOutcome::Open
            }
        }
    }

    /// Whether "what to do instead" is being typed (every key is the text's).
    pub fn typing(&self) -> bool {
        self.feedback.is_some()
    }

    /// Handles a key.
    pub fn key(&mut self, key: KeyEvent) -> DialogOutcome {
        if let Some(editor) = &mut self.feedback {
            match key.code {
                KeyCode::Enter => {
                    let text = editor.text().trim().to_string();
                    return DialogOutcome::Answered(PermissionAnswer::Deny {
                        feedback: (!text.is_empty()).then_some(text),
                    });
                }
                KeyCode::Esc => {
                    return DialogOutcome::Answered(PermissionAnswer::Deny { feedback: None });
                }
                KeyCode::Backspace => editor.backspace(),
                KeyCode::Left => editor.left(),
                KeyCode::Right => editor.right(),
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    editor.insert_char(c)
                }
                _ => {}
            }
            return DialogOutcome::Open;
        }
        let choices = self.choices();
        let count = choices.len();
        // Shift+tab takes the choice that switches to accept-edits mode.
        let accept_edits = choices
            .iter()
            .position(|(_, c)| *c == Choice::InMode(PermissionMode::AcceptEdits));
        match key.code {
            KeyCode::BackTab if accept_edits.is_some() => {
                return self.answer(accept_edits.unwrap_or_default());
            }
            KeyCode::Up | KeyCode::BackTab => self.selected = (self.selected + count - 1) % count,
            KeyCode::Down | KeyCode::Tab => self.selected = (self.selected + 1) % count,
            KeyCode::Enter => return self.answer(self.selected),
            KeyCode::Esc => {
                return DialogOutcome::Answered(PermissionAnswer::Deny { feedback: None });
            }
            KeyCode::Char(c @ '1'..='9') => {
                let i = usize::from(c as u8 - b'1');
                if i < count {
                    return self.answer(i);
                }
            }
            KeyCode::Char('y') => return self.answer(0),
            KeyCode::Char('n') => return self.answer(count - 1),
            _ => {}
        }
        DialogOutcome::Open
    }

    /// The dialog's rows, at most `max_rows` (the preview is cut to fit).
    pub fn render(&self, theme: &Theme, width: u16, max_rows: u16) -> Vec<Line<'static>> {
        let inner = width.saturating_sub(4).max(10);
        let req = &self.request;
        let (title, mut preview) = preview(req, theme, inner);
        if self.why
            && matches!(
                req.tool_name.as_str(),
                "Bash" | "Edit" | "MultiEdit" | "Write"
            )
        {
            preview.extend(reason(req, theme));
        }
        let mut tail: Vec<Line<'static>> = Vec::new();
        tail.push(Line::default());
        tail.push(Line::from("Do you want to proceed?"));
        for (i, (option, _)) in self.choices().into_iter().enumerate() {
            let (marker, style) = row_marker(theme, i == self.selected);
            tail.extend(wrap_spans(
                &[Span::styled(format!("{}. {option}", i + 1), style)],
                inner,
                &[Span::styled(marker, style)],
                &[Span::raw("     ")],
            ));
        }
        if let Some(editor) = &self.feedback {
            let mut rows = editor.render(inner.saturating_sub(2), theme.text(), true);
            if let Some(first) = rows.first_mut() {
                first.spans.insert(0, Span::styled("> ", theme.accent()));
            }
            tail.extend(rows);
        }
        let mut head = vec![Line::styled(title, theme.heading().patch(theme.accent()))];
        head.push(Line::default());
        // Box borders take 2 rows.
        let room = usize::from(max_rows).saturating_sub(head.len() + tail.len() + 2);
        let mut body = preview;
        if body.len() > room {
            let cut = body.len() - room.saturating_sub(1);
            body.truncate(room.saturating_sub(1));
            body.push(Line::styled(format!("… +{cut} lines"), theme.dim()));
        }
        head.extend(body);
        head.extend(tail);
        boxed(head, theme, width)
    }
}

/// `Bash(npm test *)` (or the legacy `Bash(npm test:*)`) → "`npm test`
/// commands"; `Edit(src/**)` and others are shown as written.
fn describe_rule(rule: &str) -> String {
    let prefix = rule.strip_prefix("Bash(").and_then(|r| {
        r.strip_suffix(" *)")
            .or_else(|| r.strip_suffix(":*)"))
            .filter(|p| !p.contains('*'))
    });
    match prefix {
        Some(prefix) => format!("`{prefix}` commands"),
        None => format!("`{rule}`"),
    }
}

/// Why the runtime asks, as one dim line (none when it does not say).
fn reason(req: &PermissionRequest, theme: &Theme) -> Option<Line<'static>> {
    (!req.reason.is_empty()).then(|| {
        Line::from(vec![
            Span::raw("  "),
            Span::styled(
                tack_sys::terminal_text::visible(&req.reason).into_owned(),
                theme.dim(),
            ),
        ])
    })
}

/// The dialog's title and what the call will do.
fn preview(req: &PermissionRequest, theme: &Theme, width: u16) -> (String, Vec<Line<'static>>) {
    // What the user approves is shown as it is: control characters (which
    // `sanitize` would drop, hiding part of a command) made visible.
    let field = |k: &str| {
        req.input
            .get(k)
            .and_then(Value::as_str)
            .map(|v| tack_sys::terminal_text::visible(v).replace('\t', "    "))
    };
    match req.tool_name.as_str() {
        EXIT_PLAN_MODE => {
            let plan = field("plan").unwrap_or_default();
            let mut lines: Vec<Line<'static>> = plan
                .lines()
                .flat_map(|l| {
                    wrap_spans(
                        &[Span::styled(l.to_string(), theme.text())],
                        width.saturating_sub(2),
                        &[Span::raw("  ")],
                        &[Span::raw("  ")],
                    )
                })
                .collect();
            if let Some(file) = field("planFilePath") {
                lines.push(Line::default());
                lines.push(Line::from(vec![
                    Span::raw("  "),
                    Span::styled(format!("The plan is in {file}"), theme.dim()),
                ]));
            }
            ("Ready to code? Here is the plan:".to_string(), lines)
        }
        "Bash" => {
            let mut lines: Vec<Line<'static>> = field("command")
                .unwrap_or_default()
                .lines()
                .map(|l| {
                    Line::from(vec![
                        Span::raw("  "),
                        Span::styled(l.to_string(), theme.text().add_modifier(Modifier::BOLD)),
                    ])
                })
                .collect();
            if let Some(d) = field("description") {
                lines.push(Line::from(vec![
                    Span::raw("  "),
                    Span::styled(d, theme.dim()),
                ]));
            }
            ("Bash command".to_string(), lines)
        }
        "Edit" | "MultiEdit" | "Write" => {
            let path = field("file_path").unwrap_or_default();
            let title = match (req.tool_name.as_str(), &req.original) {
                ("Write", None) => "Create file",
                ("Write", Some(_)) => "Overwrite file",
                _ => "Edit file",
            };
            let mut lines = vec![Line::from(vec![
                Span::raw("  "),
                Span::styled(path, theme.text().add_modifier(Modifier::BOLD)),
            ])];
            if let Some((before, after)) =
                tool_change(&req.tool_name, &req.input, req.original.as_deref())
            {
                lines.extend(render_diff(&before, &after, 1, theme, usize::MAX));
            }
            (title.to_string(), lines)
        }
        _ => {
            let mut lines = wrap_spans(
                &[Span::raw(summary(&req.tool_name, &req.input))],
                width,
                &[Span::raw("  ")],
                &[Span::raw("  ")],
            );
            lines.extend(reason(req, theme));
            ("Tool use".to_string(), lines)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request(suggestions: &[&str]) -> PermissionRequest {
        PermissionRequest {
            id: "p1".into(),
            tool_name: "Bash".into(),
            input: json!({"command": "npm test"}),
            reason: "needs approval".into(),
            suggestions: suggestions.iter().map(|s| s.to_string()).collect(),
            original: None,
            choices: Vec::new(),
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn labels(d: &PermissionDialog) -> Vec<String> {
        d.choices().into_iter().map(|(label, _)| label).collect()
    }

    fn edit() -> PermissionRequest {
        PermissionRequest {
            tool_name: "Edit".into(),
            input: json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
            suggestions: vec!["Edit(//p/src/**)".into()],
            ..request(&[])
        }
    }

    /// A plan's approval shows the plan and where it is, and answers with
    /// the mode to work in (the request's choices: 1, shift+tab: accept
    /// edits; 2: ask each edit) or more planning with what to change.
    #[test]
    fn a_plan_is_shown_and_approved_into_a_mode_or_sent_back() {
        let plan = PermissionRequest {
            tool_name: "ExitPlanMode".into(),
            input: json!({"plan": "# Plan\n1. add x", "planFilePath": "/h/.claude/plans/p.md"}),
            choices: tack_protocol::PermissionChoice::plan_approval(false),
            ..request(&[])
        };
        let d = PermissionDialog::new(plan.clone());
        assert_eq!(
            labels(&d),
            [
                "Yes, and auto-accept edits",
                "Yes, and manually approve edits",
                "No, keep planning (esc)"
            ]
        );
        let rows: Vec<String> = d
            .render(&Theme::new(crate::theme::ThemeKind::Dark, false), 60, 30)
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect();
        let text = rows.join("\n");
        for shown in [
            "Ready to code? Here is the plan:",
            "# Plan",
            "1. add x",
            "The plan is in /h/.claude/plans/p.md",
        ] {
            assert!(text.contains(shown), "{shown} not in\n{text}");
        }
        let answers: Vec<DialogOutcome> =
            [KeyCode::Char('1'), KeyCode::BackTab, KeyCode::Char('2')]
                .into_iter()
                .map(|k| d.clone().key(key(k)))
                .collect();
        assert_eq!(
            answers,
            [
                DialogOutcome::AllowInMode(PermissionMode::AcceptEdits),
                DialogOutcome::AllowInMode(PermissionMode::AcceptEdits),
                DialogOutcome::AllowInMode(PermissionMode::Default)
            ]
        );
        // A session that may bypass permissions is offered that first.
        let mut bypass = PermissionDialog::new(PermissionRequest {
            choices: tack_protocol::PermissionChoice::plan_approval(true),
            ..plan
        });
        assert_eq!(labels(&bypass)[0], "Yes, and bypass permissions");
        assert_eq!(
            [KeyCode::Char('1'), KeyCode::BackTab].map(|k| bypass.clone().key(key(k))),
            [
                DialogOutcome::AllowInMode(PermissionMode::BypassPermissions),
                DialogOutcome::AllowInMode(PermissionMode::AcceptEdits)
            ]
        );
        assert_eq!(bypass.key(key(KeyCode::Char('4'))), DialogOutcome::Open);
        assert!(bypass.typing());
        let mut back = d.clone();
        assert_eq!(back.key(key(KeyCode::Char('3'))), DialogOutcome::Open);
        for c in "add tests".chars() {
            back.key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            back.key(key(KeyCode::Enter)),
            DialogOutcome::Answered(PermissionAnswer::Deny {
                feedback: Some("add tests".into())
            })
        );
    }

    #[test]
    fn a_bash_rule_is_offered_for_the_project_in_either_form() {
        for rule in ["Bash(npm test *)", "Bash(npm test:*)"] {
            let d = PermissionDialog::new(request(&[rule])).in_project("~/shop".into());
            assert_eq!(
                labels(&d),
                [
                    "Yes",
                    "Yes, and don't ask again for `npm test` commands in ~/shop",
                    "No, and tell tack what to do differently (esc)"
                ]
            );
        }
        let d = PermissionDialog::new(request(&["Bash(git * main)"])).in_project("~/shop".into());
        assert_eq!(
            labels(&d)[1],
            "Yes, and don't ask again for `Bash(git * main)` in ~/shop"
        );
    }

    #[test]
    fn an_edit_offers_accept_edits_mode_by_number_enter_or_shift_tab() {
        let d = PermissionDialog::new(edit()).offering_accept_edits(true);
        assert_eq!(
            labels(&d),
            [
                "Yes",
                "Yes, and switch to accept edits (shift+tab)",
                "No, and tell tack what to do differently (esc)"
            ]
        );
        for keys in [
            &[KeyCode::Char('2')][..],
            &[KeyCode::Down, KeyCode::Enter],
            &[KeyCode::BackTab],
        ] {
            let mut d = d.clone();
            let outcomes: Vec<DialogOutcome> = keys.iter().map(|k| d.key(key(*k))).collect();
            assert_eq!(
                outcomes.last(),
                Some(&DialogOutcome::AllowInMode(PermissionMode::AcceptEdits)),
                "{keys:?}"
            );
        }
        // Already in accept-edits mode (an edit outside the project): the rule.
        let d = PermissionDialog::new(edit()).offering_accept_edits(false);
        assert_eq!(
            labels(&d)[1],
            "Yes, and don't ask again for `Edit(//p/src/**)`"
        );
        // Not an edit: no switch.
        let d = PermissionDialog::new(request(&[])).offering_accept_edits(true);
        assert_eq!(labels(&d).len(), 2);
    }

    #[test]
    fn a_rule_with_control_characters_is_never_offered_to_save() {
        let d = PermissionDialog::new(request(&["Bash(echo \x1b]0;x\x07:*)"]));
        assert_eq!(
            labels(&d),
            ["Yes", "No, and tell tack what to do differently (esc)"]
        );
        let mut d = d;
        assert_eq!(d.key(key(KeyCode::Char('2'))), DialogOutcome::Open);
    }

    #[test]
    fn answers_each_way() {
        let mut d = PermissionDialog::new(request(&["Bash(npm test:*)"]));
        assert_eq!(
            d.key(key(KeyCode::Enter)),
            DialogOutcome::Answered(PermissionAnswer::Allow)
        );

        let mut d = PermissionDialog::new(request(&["Bash(npm test:*)"]));
        d.key(key(KeyCode::Down));
        assert_eq!(
            d.key(key(KeyCode::Enter)),
            DialogOutcome::Answered(PermissionAnswer::AllowAlways {
                rule: "Bash(npm test:*)".into()
            })
        );

        let mut d = PermissionDialog::new(request(&["Bash(npm test:*)"]));
        assert_eq!(d.key(key(KeyCode::Char('3'))), DialogOutcome::Open);
        for c in "use cargo".chars() {
            d.key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            d.key(key(KeyCode::Enter)),
            DialogOutcome::Answered(PermissionAnswer::Deny {
                feedback: Some("use cargo".into())
            })
        );

        let mut d = PermissionDialog::new(request(&[]));
        assert_eq!(
            d.key(key(KeyCode::Esc)),
            DialogOutcome::Answered(PermissionAnswer::Deny { feedback: None })
        );
        // Without a suggestion there is no "don't ask again": 2 is "No".
        let mut d = PermissionDialog::new(request(&[]));
        assert_eq!(d.key(key(KeyCode::Char('2'))), DialogOutcome::Open);
        assert_eq!(
            d.key(key(KeyCode::Enter)),
            DialogOutcome::Answered(PermissionAnswer::Deny { feedback: None })
        );
    }
}
