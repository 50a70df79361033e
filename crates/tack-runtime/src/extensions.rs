//! What the session's extension points contribute, read once at start:
//! its plugins (`--plugin-dir`s and the installed, enabled ones), the custom
//! slash commands and skills (the user's, a trusted project's and the
//! plugins'), the output styles, and the hooks of settings and plugins.
//! Directory walks and reads only; nothing here runs, except the marketplace
//! auto-update, on a thread of its own after the start of a terminal UI
//! session ([`spawn_auto_update`]).

use std::path::Path;
use std::sync::Arc;

use tack_config::Settings;
use tack_core::context::ContextOptions;

use crate::config::LoadedSettings;
use crate::custom_commands::{CommandDirs, CustomCommands, load_commands};
use crate::emit::Emitter;
use crate::event::Notice;
use crate::hooks::HookSource;
use crate::options::SessionOptions;
use crate::output_styles::{
    DEFAULT_STYLE, OutputStyle, OutputStyles, StyleDirs, load_output_styles,
};
use crate::place::Env;
use crate::plugins::{SessionPlugins, session_plugins};
use crate::skills::{SkillDirs, Skills, load_skills};

/// The session's plugins (`--plugin-dir`s; none: nothing read), each that
/// could not be used, whole or in part, a warning.
pub(crate) fn plugins(
    options: &SessionOptions,
    cwd: &Path,
    loaded: &LoadedSettings,
    emit: &Emitter,
) -> SessionPlugins {
    let claude_dir = loaded.locations.claude_user_dir.as_deref();
    let installed = installed_plugins(loaded, emit);
    let plugins = session_plugins(&options.extensions.plugin_dirs, installed, cwd, claude_dir);
    for failure in &plugins.failures {
        emit.notice(Notice::warning(failure.warning()));
    }
    plugins
}

/// The installed plugins the settings enable, as `tack plugin` (and Claude
/// Code) keep them; nothing is read unless a settings file names
/// `enabledPlugins` or `extraKnownMarketplaces`. A project's enabling counts
/// once it is trusted (else one warning a plugin); the marketplaces settings
/// name are reported, not added (invariant 24).
fn installed_plugins(loaded: &LoadedSettings, emit: &Emitter) -> Vec<tack_plugins::Plugin> {
    let Some(claude_dir) = loaded.locations.claude_user_dir.as_deref() else {
        return Vec::new();
    };
    let keys = loaded.settings.unknown_keys();
    let (enables, declares) = (
        keys.contains_key("enabledPlugins"),
        keys.contains_key("extraKnownMarketplaces"),
    );
    if !enables && !declares {
        return Vec::new();
    }
    let trusted = loaded.locations.workspace_trusted;
    let (layers, mut warnings) = plugin_layers(&loaded.locations);
    if declares {
        let dir = tack_plugins::PluginsDir::new(claude_dir);
        let known = tack_plugins::KnownMarketplaces::read(&dir).unwrap_or_default();
        let added = |name: &str| known.get(name).is_some();
        warnings.extend(tack_plugins::marketplace_notes(&layers, trusted, added));
    }
    let mut plugins = Vec::new();
    if enables {
        let (enabled, more) = tack_plugins::enabled_plugins(&tack_plugins::EnabledInputs {
            layers: &layers,
            project_trusted: trusted,
            claude_dir,
            project_dir: &loaded.locations.project_dir,
        });
        plugins = enabled;
        warnings.extend(more);
    }
    for warning in warnings {
        emit.notice(Notice::warning(format!("warning: {warning}")));
    }
    plugins
}

/// Claude Code's marketplace `autoUpdate`: on a thread of its own, so the
/// start never waits for it (nothing read on the start-up path), the
/// `autoUpdate` marketplaces are refreshed and their installed plugins
/// updated under the plugins folder's lock; each update is a notice (it
/// loads in the next session). `DISABLE_AUTOUPDATER` turns it off. Only
/// the terminal UI's sessions call it (`start`): a `-p`, SDK or `tack batch`
/// session runs no `git` for it, and `tack plugin marketplace update` does
/// it by command. A marketplace fetched from a URL is not refreshed here
/// (the session has no fetcher for it; that command does it).
pub(crate) fn spawn_auto_update(
    loaded: &LoadedSettings,
    env: &Env,
    emit: &Emitter,
) -> Option<std::thread::JoinHandle<()>> {
    if env.get("DISABLE_AUTOUPDATER").is_some() {
        return None;
    }
    let claude_dir = loaded.locations.claude_user_dir.clone()?;
    let locations = loaded.locations.clone();
    let sink = emit.clone();
    let spawned = std::thread::Builder::new()
        .name("plugin-auto-update".into())
        .spawn(move || {
            let (layers, _) = plugin_layers(&locations);
            let no_fetch = |_: &str| Err("a session does not fetch marketplace URLs".to_owned());
            let ctx = tack_plugins::Context {
                claude_dir,
                project_dir: locations.project_dir.clone(),
                cwd: locations.project_dir.clone(),
                layers,
                project_trusted: locations.workspace_trusted,
                fetch: &no_fetch,
                git_timeout: tack_plugins::git::GIT_TIMEOUT,
            };
            let done = match tack_plugins::auto_update(&ctx) {
                Ok(done) => done,
                Err(e) => {
                    let text = format!("warning: plugin auto-update: {e}");
                    sink.notice(Notice::warning(text));
                    return;
                }
            };
            for warning in done.warnings {
                sink.notice(Notice::warning(format!("warning: {warning}")));
            }
            for p in done.updated {
                let was = p.previous.as_deref().unwrap_or("?");
                sink.notice(Notice::info(format!(
                    "plugin {} auto-updated to {} (was {was}); it loads in the next session",
                    p.id, p.version
                )));
            }
        });
    match spawned {
        Ok(thread) => Some(thread),
        Err(e) => {
            emit.notice(Notice::warning(format!("warning: plugin auto-update: {e}")));
            None
        }
    }
}

/// How long a session's end waits for an auto-update still running.
const AUTO_UPDATE_END_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// At the session's end: the auto-update's last notices are reported before
/// the session says it ended (an update written just before the end is
/// still said), waiting at most [`AUTO_UPDATE_END_WAIT`]; an update still
/// fetching then is left to finish or die with the process.
pub(crate) async fn await_auto_update(thread: Option<std::thread::JoinHandle<()>>) {
    let Some(thread) = thread else { return };
    // Polled, not joined on a blocking task: a join still blocked would hold
    // the tokio runtime's shutdown (and the process's exit) past the bound.
    let deadline = tokio::time::Instant::now() + AUTO_UPDATE_END_WAIT;
    while !thread.is_finished() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// Every settings file, read for its plugin keys (`enabledPlugins`,
/// `extraKnownMarketplaces`, ...), lowest precedence first; a file that
/// cannot be read is a warning.
pub fn plugin_layers(
    locations: &tack_config::Locations,
) -> (Vec<tack_plugins::SettingsLayer>, Vec<String>) {
    use tack_plugins::LayerLevel;
    let files: Vec<(LayerLevel, std::path::PathBuf)> = locations
        .files()
        .into_iter()
        .filter_map(|source| {
            let level = match source.scope() {
                tack_config::Scope::User => LayerLevel::User,
                tack_config::Scope::Project => LayerLevel::Project,
                tack_config::Scope::Local => LayerLevel::Local,
                tack_config::Scope::Flag => LayerLevel::Flag,
            };
            Some((level, source.file_path()?.to_path_buf()))
        })
        .collect();
    tack_plugins::read_layers(&files)
}

/// The custom slash commands and the skills (directory walks; templates and
/// instructions, no code run), each file that could not be used a warning.
pub(crate) fn commands_and_skills(
    project_dir: &Path,
    ctx_opts: &ContextOptions,
    config_dir: &Path,
    (loaded, plugins): (&LoadedSettings, &SessionPlugins),
    emit: &Emitter,
) -> (CustomCommands, Arc<Skills>) {
    let locations = &loaded.locations;
    let project_source = locations.reads(tack_config::Scope::Project);
    let user_source = locations.reads(tack_config::Scope::User);
    let (commands, mut warnings) = load_commands(&CommandDirs {
        project: project_source.then(|| project_dir.to_path_buf()),
        home: ctx_opts.home_dir.clone().filter(|_| user_source),
        config_dir: config_dir.to_path_buf(),
        trusted: loaded.trust.trusted,
        plugins: plugins.commands.clone(),
    });
    let user = match user_source {
        true => locations
            .claude_user_dir
            .iter()
            .map(|d| d.join("skills"))
            .chain([config_dir.join("skills")])
            .collect(),
        false => Vec::new(),
    };
    let (skills, skill_warnings) = load_skills(&SkillDirs {
        project: project_dir.to_path_buf(),
        cwd: ctx_opts.cwd.clone(),
        user,
        project_source,
        trusted: loaded.trust.trusted,
        plugins: plugins.skills.clone(),
    });
    warnings.extend(skill_warnings);
    for warning in warnings {
        emit.notice(Notice::warning(warning));
    }
    (commands, Arc::new(skills))
}

/// The output styles a session can pick and the one it has.
pub(crate) struct Styles {
    pub(crate) all: OutputStyles,
    pub(crate) active: OutputStyle,
    /// The name `outputStyle` gives, as Claude Code reports it in
    /// `system/init` even when no such style exists (the default applies).
    pub(crate) named: String,
}

/// The output styles (a few folders' `*.md`; read, nothing run) and the one
/// `outputStyle` names: an unknown name is a warning and the default style
/// (still reported by its name).
pub(crate) fn output_styles(
    project_dir: &Path,
    config_dir: &Path,
    (loaded, plugins): (&LoadedSettings, &SessionPlugins),
    emit: &Emitter,
) -> Styles {
    let user = loaded
        .locations
        .claude_user_dir
        .iter()
        .map(|d| d.join("output-styles"))
        .chain([config_dir.join("output-styles")])
        .collect();
    let (all, warnings) = load_output_styles(&StyleDirs {
        user,
        project: project_dir.join(".claude/output-styles"),
        trusted: loaded.trust.trusted,
        plugins: plugins
            .output_style_paths()
            .into_iter()
            .flat_map(|p| {
                p.paths
                    .into_iter()
                    .map(move |path| (p.plugin.clone(), path))
            })
            .collect(),
    });
    for warning in warnings {
        emit.notice(Notice::warning(warning));
    }
    let wanted = loaded.settings.output_style().unwrap_or(DEFAULT_STYLE);
    let (active, named) = match all.get(wanted) {
        Some(style) => (style.clone(), style.name.clone()),
        None => {
            emit.notice(Notice::warning(format!(
                "warning: outputStyle `{wanted}`: no such output style; using the default"
            )));
            (OutputStyle::default_style(), wanted.to_owned())
        }
    };
    Styles { all, active, named }
}

/// Every settings file's `hooks`, lowest first, then the plugins'; none
/// with `disableAllHooks`.
pub(crate) fn hook_sources(settings: &Settings, plugins: &SessionPlugins) -> Vec<HookSource> {
    let settings_hooks = settings.hooks_by_source();
    if settings.disable_all_hooks() {
        return Vec::new();
    }
    let plugin_hooks = plugins.hooks.iter().map(|h| HookSource {
        name: h.source.clone(),
        hooks: h.hooks.clone(),
        env: h.env.clone(),
    });
    settings_hooks
        .into_iter()
        .map(|(source, hooks)| HookSource {
            name: source.to_string(),
            hooks,
            env: Vec::new(),
        })
        .chain(plugin_hooks)
        .collect()
}
