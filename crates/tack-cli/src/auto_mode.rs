//! `tack auto-mode defaults|config|critique|reset` (Claude Code's `claude
//! auto-mode`): auto mode's classifier rules as JSON, the model's review of
//! the user's own, and their removal.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::Value;
use tack_runtime::Place;

/// `tack auto-mode …`.
#[derive(Debug, clap::Subcommand)]
pub enum AutoModeCommand {
    /// Print the built-in classifier rules as JSON.
    Defaults,
    /// Print the rules in effect here (user settings and --settings over the
    /// defaults; a repository's `autoMode` is ignored, with a warning).
    Config {
        /// A settings file or JSON, as `tack --settings` takes it.
        #[arg(long)]
        settings: Option<String>,
    },
    /// Ask the classifier's model to review your own rules.
    Critique,
    /// Remove `autoMode` from your user settings (printed first, so nothing
    /// is lost), so the defaults apply again.
    Reset,
}

pub fn run(place: &Place, command: AutoModeCommand) -> anyhow::Result<ExitCode> {
    match command {
        AutoModeCommand::Defaults => println!("{}", tack_runtime::auto_mode_defaults_json()),
        AutoModeCommand::Config { settings } => {
            let loaded = tack_runtime::load_settings(place, settings.as_deref())?;
            let (config, warnings) = tack_runtime::auto_mode_config(&loaded.settings);
            for w in warnings {
                eprintln!("warning: {}", tack_sys::terminal_text::visible(&w));
            }
            println!("{}", tack_runtime::auto_mode_config_json(&config));
        }
        AutoModeCommand::Critique => {
            let loaded = tack_runtime::load_settings(place, None)?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            match runtime.block_on(tack_runtime::auto_mode_critique(place, &loaded)) {
                Ok(text) => println!("{}", tack_sys::terminal_text::visible(&text)),
                Err(e) => bail!("auto-mode critique: {e}"),
            }
        }
        AutoModeCommand::Reset => {
            let file = place.claude_dir.join("settings.json");
            match remove_auto_mode(&file)? {
                Some(removed) => {
                    println!("{removed}");
                    eprintln!(
                        "Removed autoMode from {} (printed above); the default rules apply.",
                        file.display()
                    );
                }
                None => eprintln!(
                    "{} has no autoMode; the default rules apply.",
                    file.display()
                ),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Takes `autoMode` out of the settings file at `path` (written atomically,
/// the rest kept as it was): the removed value, pretty, if there was one.
fn remove_auto_mode(path: &Path) -> anyhow::Result<Option<String>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut root: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON; nothing was changed", path.display()))?;
    let Some(object) = root.as_object_mut() else {
        bail!(
            "{} is not a JSON object; nothing was changed",
            path.display()
        );
    };
    let Some(removed) = object.remove("autoMode") else {
        return Ok(None);
    };
    let mut out = serde_json::to_string_pretty(&root)?;
    out.push('\n');
    tack_sys::write_atomic(path, out.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Some(serde_json::to_string_pretty(&removed)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_removes_only_auto_mode_and_returns_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(
            &file,
            r#"{"model": "opus", "autoMode": {"allow": ["$defaults", "deploys to staging"]}}"#,
        )
        .unwrap();
        let removed = remove_auto_mode(&file).unwrap();
        assert_eq!(
            removed.as_deref(),
            Some("{\n  \"allow\": [\n    \"$defaults\",\n    \"deploys to staging\"\n  ]\n}")
        );
        let left: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(left, serde_json::json!({"model": "opus"}));
        assert_eq!(remove_auto_mode(&file).unwrap(), None);
        assert_eq!(
            remove_auto_mode(&dir.path().join("missing.json")).unwrap(),
            None
        );
    }

    #[test]
    fn reset_leaves_a_broken_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{not json").unwrap();
        let err = remove_auto_mode(&file).unwrap_err().to_string();
        assert!(err.contains("is not JSON; nothing was changed"), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{not json");
    }
}
