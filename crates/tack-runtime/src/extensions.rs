//! What the session's extension points contribute, read once at start by
//! tack-extensions' loaders from the session's folders and settings, their
//! warnings emitted as notices: its plugins (`--plugin-dir`s and the
//! installed, enabled ones), the custom slash commands and skills (the
//! user's, a trusted project's and the plugins'), the output styles, and the
//! hooks of settings and plugins. Directory walks and reads only; nothing
//! here runs, except the marketplace auto-update, on a thread of its own
//! after the start of a terminal UI session ([`spawn_auto_update`]).

use std::path::Path;
use std::sync::Arc;

use tack_config::Settings;
use tack_core::context::ContextOptions;
use tack_extensions::custom_commands::{CommandDirs, CustomCommands, load_commands};
use tack_extensions::output_styles::{StyleDirs, Styles, load_output_styles};
use tack_extensions::plugins::{SessionPlugins, installed_plugins, plugin_layers, session_plugins};
use tack_extensions::skills::{SkillDirs, Skills, load_skills};
use tack_protocol::extensions::PluginFailure;

use crate::config::LoadedSettings;
use crate::emit::Emitter;
use crate::event::Notice;
use crate::hooks::HookSource;
use crate::options::SessionOptions;
use crate::place::Env;

/// The session's plugins (`--plugin-dir`s, then the installed ones the
/// settings enable; none: nothing read), each that could not be used, whole
/// or in part, a warning.
pub(crate) fn plugins(
    options: &SessionOptions,
    cwd: &Path,
    loaded: &LoadedSettings,
    emit: &Emitter,
) -> SessionPlugins {
    let claude_dir = loaded.locations.claude_user_dir.as_deref();
    let (installed, warnings) = installed_plugins(&loaded.locations, &loaded.settings);
    warn(emit, warnings);
    let plugins = session_plugins(&options.extensions.plugin_dirs, installed, cwd, claude_dir);
    warn(emit, plugins.failures.iter().map(PluginFailure::warning));
    plugins
}

/// Each of a loader's warnings as a notice.
fn warn(emit: &Emitter, warnings: impl IntoIterator<Item = String>) {
    for warning in warnings {
        emit.notice(Notice::warning(warning));
    }
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
    warn(emit, warnings);
    (commands, Arc::new(skills))
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
    let (styles, unknown) = all.choose(loaded.settings.output_style());
    warn(emit, warnings.into_iter().chain(unknown));
    styles
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
