//! Where a teammate runs: Claude Code's `teammateMode` setting and
//! `--teammate-mode` flag (`auto`, `in-process`, `tmux`).
//!
//! - `in-process`: a sub-agent of the lead's session (`super::teammate`).
//! - `tmux`: a background session of its own (`tack --bg`, one process per
//!   teammate, attachable), plus a tmux pane attached to it when the lead
//!   runs inside tmux (`$TMUX`).
//! - `auto` (the default): `tmux` inside tmux, else `in-process`, as Claude
//!   Code's docs describe it. **Unconfirmed**: what Claude Code's `tmux`
//!   does outside tmux (it may start a tmux session of its own); tack starts
//!   the background session without a pane.
//!
//! The runtime does not start tack itself: the front end says what starts a
//! background session ([`TeammateCommand`]: tack-cli gives its own
//! executable). Without one, every teammate runs in-process.

use std::path::PathBuf;

/// `teammateMode` / `--teammate-mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TeammateMode {
    #[default]
    Auto,
    InProcess,
    Tmux,
}

impl TeammateMode {
    /// Claude Code's spelling; anything else is an error naming the values.
    pub fn parse(value: &str) -> Result<TeammateMode, String> {
        match value {
            "auto" => Ok(TeammateMode::Auto),
            "in-process" => Ok(TeammateMode::InProcess),
            "tmux" => Ok(TeammateMode::Tmux),
            other => Err(format!(
                "teammate mode `{other}`: expected auto, in-process or tmux"
            )),
        }
    }
}

/// What starts a background session: `program args… --bg …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeammateCommand {
    pub program: PathBuf,
    /// Before the runtime's own (`--bg`, `--model`, the prompt): what every
    /// teammate shares with the lead (tack-cli: its `--settings`).
    pub args: Vec<String>,
}

/// The front end's part of where teammates run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeammateOptions {
    /// `--teammate-mode`: beats the settings' `teammateMode`.
    pub mode: Option<TeammateMode>,
    /// `None`: teammates run in-process whatever the mode.
    pub command: Option<TeammateCommand>,
    /// The settings' `teammateMode`, as written (the runtime fills it at
    /// start; the front end leaves it).
    pub setting: Option<serde_json::Value>,
}

/// Where this session's teammates run, settled at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    InProcess,
    /// A background session each; `pane`: and a tmux pane attached to it.
    Process {
        command: TeammateCommand,
        pane: bool,
    },
}

/// The flag over the setting over `auto`; `in_tmux`: `$TMUX` is set. A
/// setting that is not one of the values is a warning, and `auto` holds.
pub fn settle(options: &TeammateOptions, in_tmux: bool) -> (Backend, Option<String>) {
    let mut warning = None;
    let set = options.setting.as_ref().and_then(|v| {
        match v.as_str().map(TeammateMode::parse) {
            Some(Ok(mode)) => return Some(mode),
            Some(Err(e)) => warning = Some(format!("settings' teammateMode: {e}")),
            None => warning = Some("settings' teammateMode must be a string".into()),
        }
        None
    });
    let mode = options.mode.or(set).unwrap_or_default();
    let process = match mode {
        TeammateMode::InProcess => false,
        TeammateMode::Auto => in_tmux,
        TeammateMode::Tmux => true,
    };
    let backend = match (&options.command, process) {
        (Some(command), true) => Backend::Process {
            command: command.clone(),
            pane: in_tmux,
        },
        _ => Backend::InProcess,
    };
    (backend, warning)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_flag_beats_the_setting_and_auto_follows_tmux() {
        let command = TeammateCommand {
            program: "/bin/tack".into(),
            args: vec![],
        };
        let with = |mode: Option<TeammateMode>| TeammateOptions {
            mode,
            command: Some(command.clone()),
            setting: None,
        };
        let process = |pane| Backend::Process {
            command: command.clone(),
            pane,
        };
        let cases = [
            (with(None), None, false, Backend::InProcess),
            (with(None), None, true, process(true)),
            (with(None), Some(json!("tmux")), false, process(false)),
            (
                with(None),
                Some(json!("in-process")),
                true,
                Backend::InProcess,
            ),
            (
                with(Some(TeammateMode::InProcess)),
                Some(json!("tmux")),
                true,
                Backend::InProcess,
            ),
            (
                with(Some(TeammateMode::Tmux)),
                Some(json!("in-process")),
                true,
                process(true),
            ),
            (
                TeammateOptions {
                    mode: Some(TeammateMode::Tmux),
                    ..TeammateOptions::default()
                },
                None,
                true,
                Backend::InProcess,
            ),
        ];
        for (options, setting, in_tmux, want) in cases {
            let options = TeammateOptions { setting, ..options };
            assert_eq!(
                settle(&options, in_tmux),
                (want, None),
                "{options:?} {in_tmux}"
            );
        }
    }

    #[test]
    fn a_wrong_setting_warns_and_auto_holds() {
        let set = |v| TeammateOptions {
            setting: Some(v),
            ..TeammateOptions::default()
        };
        assert_eq!(
            settle(&set(json!("panes")), true),
            (
                Backend::InProcess,
                Some(
                    "settings' teammateMode: teammate mode `panes`: expected auto, in-process or tmux"
                        .into()
                )
            )
        );
        assert_eq!(
            settle(&set(json!(1)), false),
            (
                Backend::InProcess,
                Some("settings' teammateMode must be a string".into())
            )
        );
        assert_eq!(
            TeammateMode::parse("in-process"),
            Ok(TeammateMode::InProcess)
        );
    }
}
