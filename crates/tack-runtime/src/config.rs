//! Reading a session's settings: every settings file (and `--settings`), with
//! the workspace's trust applied, before anything else starts.

use tack_config::{Locations, Scope, Settings};

use crate::event::Notice;
use crate::place::Place;
use crate::trust::Trust;

/// The settings of a session and what the user should be told about them.
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    pub settings: Settings,
    /// Where they were read from (MCP configuration lives beside them).
    pub locations: Locations,
    pub trust: Trust,
    /// Entries an untrusted workspace's settings may not set, and why.
    pub notices: Vec<Notice>,
}

/// A settings file is broken (named with line and column): nothing starts.
/// Its message already says everything (the OS error included), so it is not
/// chained to the I/O error a second time.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SettingsError(pub tack_config::ConfigError);

impl From<tack_config::ConfigError> for SettingsError {
    fn from(e: tack_config::ConfigError) -> Self {
        SettingsError(e)
    }
}

/// Reads every settings file for `place` and `flag` (`--settings`): user
/// (`~/.claude`, then tack's config dir), project and local (`.claude/`, then
/// `.tack/`), then the flag. Project and local files of a workspace the user
/// has not trusted may restrict but not loosen or run anything
/// ([`tack_config::IgnoredUntrusted`]); each file's ignored entries are one
/// notice saying how to trust the folder.
pub fn load_settings(place: &Place, flag: Option<&str>) -> Result<LoadedSettings, SettingsError> {
    load_settings_from(place, flag, None)
}

/// [`load_settings`] reading only the files of `sources` (`--setting-sources`;
/// `--settings` is read whatever they are); `None`: every level.
pub fn load_settings_from(
    place: &Place,
    flag: Option<&str>,
    sources: Option<&[Scope]>,
) -> Result<LoadedSettings, SettingsError> {
    load_settings_trusting(place, flag, sources, false)
}

/// [`load_settings_from`], with the workspace trusted for this session
/// whatever the trust store says when `session_trust` is set (the trust
/// dialog accepted for a folder too broad to remember:
/// [`crate::trust::too_broad_to_trust`]).
pub fn load_settings_trusting(
    place: &Place,
    flag: Option<&str>,
    sources: Option<&[Scope]>,
    session_trust: bool,
) -> Result<LoadedSettings, SettingsError> {
    let mut locations = Locations::discover(&place.cwd, |k| place.env.get(k));
    locations.setting_sources = sources.map(<[Scope]>::to_vec);
    locations.tack_user_dir = Some(place.config_dir.clone());
    let mut notices = Vec::new();
    let trust = match place.trust_store().lookup(&locations.project_dir) {
        Ok(trust) => trust,
        Err(e) => {
            notices.push(Notice::warning(format!(
                "warning: {e}; treating this workspace as not trusted"
            )));
            Trust::default()
        }
    };
    let trust = Trust {
        trusted: trust.trusted || session_trust,
        ..trust
    };
    locations.workspace_trusted = trust.trusted;
    let settings = Settings::load(&locations, flag)?;
    notices.extend(
        settings
            .warnings()
            .iter()
            .map(|w| Notice::warning(format!("warning: {w}"))),
    );
    notices.extend(untrusted_notices(&settings, &locations));
    Ok(LoadedSettings {
        settings,
        locations,
        trust,
        notices,
    })
}

/// "Ignoring 2 permissions.allow entries from .claude/settings.json: this
/// workspace has not been trusted ...", one line per file.
fn untrusted_notices(settings: &Settings, locations: &Locations) -> Vec<Notice> {
    let mut out: Vec<Notice> = Vec::new();
    let mut files: Vec<&tack_config::Source> = Vec::new();
    for ignored in settings.ignored_untrusted() {
        if !files.contains(&ignored.source.as_ref()) {
            files.push(&ignored.source);
        }
    }
    for file in files {
        let parts: Vec<String> = settings
            .ignored_untrusted()
            .iter()
            .filter(|i| i.source.as_ref() == file)
            .map(|i| {
                let noun = if i.count == 1 { "entry" } else { "entries" };
                format!("{} {} {noun}", i.count, i.key)
            })
            .collect();
        let shown = file
            .file_path()
            .map(|p| {
                p.strip_prefix(&locations.project_dir)
                    .unwrap_or(p)
                    .display()
                    .to_string()
            })
            .unwrap_or_else(|| file.to_string());
        out.push(Notice::warning(format!(
            "Ignoring {} from {shown}: this workspace has not been trusted. Run `tack trust` in {} to trust it.",
            parts.join(", "),
            locations.project_dir.display()
        )));
    }
    out
}
