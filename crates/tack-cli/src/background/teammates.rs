//! What the runtime starts a background teammate with
//! (`tack_runtime::teams::backend`): this binary, with the lead's
//! `--settings` and `--setting-sources`, so the teammate reads the same
//! settings (a relative `--settings` path made absolute: the teammate may
//! start in another folder). The mode is `--teammate-mode` (over the
//! settings' `teammateMode`, which the runtime reads).

use tack_runtime::teams::backend::{TeammateCommand, TeammateOptions};

use crate::cli::Cli;

/// The teammates' part of the session options.
pub fn options(cli: &Cli) -> TeammateOptions {
    let command = std::env::current_exe().ok().map(|program| TeammateCommand {
        program,
        args: shared_args(cli),
    });
    TeammateOptions {
        mode: cli.teammate_mode,
        command,
        setting: None,
    }
}

fn shared_args(cli: &Cli) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(settings) = &cli.settings {
        let inline = settings.trim_start().starts_with('{');
        let path = std::path::Path::new(settings);
        let value = match std::env::current_dir() {
            Ok(cwd) if !inline && path.is_relative() => cwd.join(path).display().to_string(),
            _ => settings.clone(),
        };
        args.extend(["--settings".to_string(), value]);
    }
    if let Some(sources) = &cli.setting_sources {
        args.extend(["--setting-sources".to_string(), sources.clone()]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use tack_runtime::teams::backend::TeammateMode;

    #[test]
    fn the_lead_passes_its_settings_and_mode_on() {
        let cli = Cli::try_parse_from([
            "tack",
            "--teammate-mode",
            "tmux",
            "--settings",
            "{\"model\": \"x\"}",
            "--setting-sources",
            "user",
        ])
        .unwrap();
        let options = options(&cli);
        assert_eq!(options.mode, Some(TeammateMode::Tmux));
        assert_eq!(
            options.command.map(|c| c.args),
            Some(
                [
                    "--settings",
                    "{\"model\": \"x\"}",
                    "--setting-sources",
                    "user"
                ]
                .map(String::from)
                .to_vec()
            )
        );
        let relative = Cli::try_parse_from(["tack", "--settings", "s.json"]).unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            shared_args(&relative),
            [
                "--settings".to_string(),
                cwd.join("s.json").display().to_string()
            ]
        );
        let wrong = Cli::try_parse_from(["tack", "--teammate-mode", "panes"]).unwrap_err();
        assert!(
            wrong
                .to_string()
                .contains("teammate mode `panes`: expected auto, in-process or tmux"),
            "{wrong}"
        );
    }
}
