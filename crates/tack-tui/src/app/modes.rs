//! The permission modes Shift+Tab offers, in Claude Code 2.1.328's order:
//! Manual → accept edits → plan → auto → bypass permissions → Manual.
//! Bypass only when the session allows it; auto until the runtime refuses it
//! (auto mode turned off), after which the cycle skips it without a word.

use tack_protocol::PermissionMode;

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
