//! The permission modes Shift+Tab offers, in Claude Code 2.1.328's order:
//! Manual → accept edits → plan → auto → bypass permissions → Manual.
//! Bypass only when the session allows it; auto until the runtime refuses it
//! (auto mode turned off), after which the cycle skips it without a word.
//! Also the UI's side of a mode change: the mode shown at once, the
//! runtime's answers (only the last request's counts), the notice of the
//! first switch to auto, and the answer to the decisions view's rule.

use tack_protocol::PermissionMode;

use super::{App, Overlay};
use crate::dialogs::PermissionDialog;
use crate::event::{NoticeLevel, PermissionRequest, StatusPatch, UiAction};

/// What the session offers, from its start-up choices.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeOptions {
    /// `bypassPermissions` may be switched to (the session started in it or
    /// with `--allow-dangerously-skip-permissions`, and the settings do not
    /// disable it).
    pub bypass: bool,
    /// `skipAutoPermissionPrompt`: no notice on the first switch to auto.
    pub skip_auto_intro: bool,
}

/// The cycle and what the session has learnt about it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModeCycle {
    options: ModeOptions,
    /// The runtime refused auto mode.
    auto_refused: bool,
    /// The notice of the first switch to auto was shown.
    intro_shown: bool,
}

/// What auto mode does, said on the first switch to it.
pub(crate) const AUTO_INTRO: &str = "Auto mode is on: a classifier model decides the \
actions that no permission rule or local check decides (read-only calls and edits inside \
the project run without asking it). Its tokens are billed and shown in /cost. A blocked \
action can be turned into an allow rule in /permissions. Shift+Tab leaves auto mode; \
skipAutoPermissionPrompt in your settings skips this notice.";

impl ModeCycle {
    pub(crate) fn new(options: ModeOptions) -> ModeCycle {
        ModeCycle {
            options,
            ..ModeCycle::default()
        }
    }

    /// The mode after `mode` (Shift+Tab).
    pub(crate) fn next(&self, mode: PermissionMode) -> PermissionMode {
        let mut next = step(mode);
        // Ends: Manual is always offered.
        while !self.offers(next) {
            next = step(next);
        }
        next
    }

    fn offers(&self, mode: PermissionMode) -> bool {
        match mode {
            PermissionMode::Default | PermissionMode::AcceptEdits | PermissionMode::Plan => true,
            PermissionMode::Auto => !self.auto_refused,
            PermissionMode::BypassPermissions => self.options.bypass,
            PermissionMode::DontAsk => false,
        }
    }

    /// The runtime refused `mode`: it leaves the cycle. Whether this is news
    /// (the first refusal of it: say why).
    pub(crate) fn refused(&mut self, mode: PermissionMode) -> bool {
        match mode {
            PermissionMode::Auto => !std::mem::replace(&mut self.auto_refused, true),
            PermissionMode::BypassPermissions => std::mem::replace(&mut self.options.bypass, false),
            PermissionMode::Default
            | PermissionMode::AcceptEdits
            | PermissionMode::Plan
            | PermissionMode::DontAsk => true,
        }
    }

    /// The runtime switched to `mode`: whether to show [`AUTO_INTRO`] now
    /// (once a session, unless the settings skip it).
    pub(crate) fn switched(&mut self, mode: PermissionMode) -> bool {
        mode == PermissionMode::Auto
            && !self.options.skip_auto_intro
            && !std::mem::replace(&mut self.intro_shown, true)
    }
}

impl App {
    /// Shows `mode` now and asks the runtime for it.
    pub(super) fn request_mode(&mut self, mode: PermissionMode) -> Vec<UiAction> {
        self.status.permission_mode = mode;
        self.requested_mode = Some(mode);
        vec![UiAction::SetPermissionMode(mode)]
    }

    /// The runtime switched to `mode`. Shift+Tab may have moved on
    /// meanwhile: only the answer to the last request is shown (and auto
    /// introduced).
    pub(super) fn mode_set(&mut self, mode: PermissionMode) {
        if self.requested_mode.is_none_or(|asked| asked == mode) {
            self.requested_mode = None;
            self.status.permission_mode = mode;
            if self.modes.switched(mode) {
                self.notice(NoticeLevel::Info, AUTO_INTRO);
            }
        }
    }

    /// The runtime refused `mode`: Shift+Tab skips it from now on (said
    /// once), and if it was the last one asked for, the next one is.
    pub(super) fn mode_unavailable(&mut self, mode: PermissionMode, reason: &str) -> Vec<UiAction> {
        if self.modes.refused(mode) {
            let mut reason = reason.to_owned();
            if let Some(first) = reason.get(..1) {
                reason.replace_range(..1, &first.to_uppercase());
            }
            self.notice(
                NoticeLevel::Warning,
                &format!("{reason}. Shift+Tab skips {} mode.", mode.label()),
            );
        }
        if self.requested_mode != Some(mode) {
            return Vec::new();
        }
        let next = self.modes.next(mode);
        self.request_mode(next)
    }

    /// The dialog for `request`. Where auto mode may decide, a person is
    /// asked for a reason (the classifier failed or blocked too often, a
    /// safety check): every dialog says it.
    pub(super) fn permission_dialog(&self, request: PermissionRequest) -> PermissionDialog {
        let mode = self.status.permission_mode;
        let mut dialog = PermissionDialog::new(request)
            .offering_accept_edits(mode != PermissionMode::AcceptEdits);
        if let Some(dir) = self.paths.project_shown() {
            dialog = dialog.in_project(dir);
        }
        match self.status.permission_mode {
            PermissionMode::Auto | PermissionMode::Plan => dialog.saying_why(),
            PermissionMode::Default
            | PermissionMode::AcceptEdits
            | PermissionMode::BypassPermissions
            | PermissionMode::DontAsk => dialog,
        }
    }

    /// Facts for the status line. A mode asked for and not answered yet
    /// beats the mode a session started in.
    pub(super) fn status_patch(&mut self, mut patch: StatusPatch) {
        if self.requested_mode.is_some() {
            patch.permission_mode = None;
        }
        self.status.apply(patch);
    }

    /// The answer to the decisions view's `a`: said in history, and in the
    /// view if it is still open.
    pub(super) fn rule_added(&mut self, rule: &str, saved: Result<String, String>) {
        let (level, text) = match &saved {
            Ok(file) => (NoticeLevel::Info, format!("Added {rule} to {file}")),
            Err(e) => (NoticeLevel::Error, format!("Could not add {rule}: {e}")),
        };
        if let Some(Overlay::Decisions(view)) = &mut self.overlay {
            view.say(text.clone());
            if saved.is_ok() {
                view.rule_saved(rule);
            }
        }
        self.notice(level, &text);
    }
}

/// The next mode of the full cycle.
fn step(mode: PermissionMode) -> PermissionMode {
    match mode {
        PermissionMode::Default => PermissionMode::AcceptEdits,
        PermissionMode::AcceptEdits => PermissionMode::Plan,
        PermissionMode::Plan => PermissionMode::Auto,
        PermissionMode::Auto => PermissionMode::BypassPermissions,
        PermissionMode::BypassPermissions | PermissionMode::DontAsk => PermissionMode::Default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PermissionMode::{AcceptEdits, Auto, BypassPermissions, Default, DontAsk, Plan};
    use pretty_assertions::assert_eq;

    /// The modes Shift+Tab visits from `start`, `n` presses.
    fn presses(cycle: &ModeCycle, start: PermissionMode, n: usize) -> Vec<PermissionMode> {
        let mut seen = Vec::new();
        let mut mode = start;
        for _ in 0..n {
            mode = cycle.next(mode);
            seen.push(mode);
        }
        seen
    }

    #[test]
    fn the_cycle_with_and_without_bypass() {
        let without = ModeCycle::new(ModeOptions::default());
        assert_eq!(
            presses(&without, Default, 5),
            [AcceptEdits, Plan, Auto, Default, AcceptEdits]
        );
        let with = ModeCycle::new(ModeOptions {
            bypass: true,
            skip_auto_intro: false,
        });
        assert_eq!(
            presses(&with, Default, 6),
            [
                AcceptEdits,
                Plan,
                Auto,
                BypassPermissions,
                Default,
                AcceptEdits
            ]
        );
        // Don't-ask mode (a start-up choice) is not in the cycle: on to Manual.
        assert_eq!(presses(&with, DontAsk, 1), [Default]);
    }

    #[test]
    fn a_refused_mode_leaves_the_cycle_and_is_news_once() {
        let mut cycle = ModeCycle::new(ModeOptions {
            bypass: true,
            skip_auto_intro: false,
        });
        assert_eq!([cycle.refused(Auto), cycle.refused(Auto)], [true, false]);
        assert_eq!(
            presses(&cycle, Plan, 3),
            [BypassPermissions, Default, AcceptEdits]
        );
        assert_eq!(
            [
                cycle.refused(BypassPermissions),
                cycle.refused(BypassPermissions)
            ],
            [true, false]
        );
        assert_eq!(presses(&cycle, Plan, 2), [Default, AcceptEdits]);
    }

    #[test]
    fn the_auto_intro_once_unless_skipped() {
        let mut cycle = ModeCycle::new(ModeOptions::default());
        let seen = [Plan, Auto, Default, Auto].map(|m| cycle.switched(m));
        assert_eq!(seen, [false, true, false, false]);
        let mut skipping = ModeCycle::new(ModeOptions {
            bypass: false,
            skip_auto_intro: true,
        });
        assert_eq!(skipping.switched(Auto), false);
    }
}
