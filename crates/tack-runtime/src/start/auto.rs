//! Auto mode at start: whether the session may use it, the classifier's
//! rules (from trusted settings only), its model and its client.

use std::path::PathBuf;
use std::sync::Arc;

use tack_automode::{AutoModeConfig, Classifier};
use tack_config::{Scope, Settings};

use super::model::SessionModel;
use crate::emit::Emitter;
use crate::event::Notice;
use crate::gate::AutoMode;
use crate::metered::MeteredClient;
use crate::place::Env;

/// The session's auto mode and the classifier's rules.
pub(super) struct AutoSetup {
    pub(super) auto: Arc<AutoMode>,
    pub(super) config: AutoModeConfig,
}

/// Auto mode as the settings allow it. `autoMode` shapes the classifier only
/// from user settings and `--settings` (a repository's settings cannot widen
/// what it allows: they are ignored, with a warning).
pub(super) fn auto_setup(settings: &Settings, emit: &Emitter) -> AutoSetup {
    let unavailable = settings.permissions().auto_mode_disabled_by().map(|s| {
        let place = s
            .file_path()
            .map_or_else(|| "--settings".to_owned(), |p| p.display().to_string());
        format!("permissions.disableAutoMode is set in {place}")
    });
    let (config, warnings) = auto_mode_config(settings);
    for w in warnings {
        emit.notice(Notice::warning(format!("warning: {w}")));
    }
    let plan = settings.use_auto_mode_during_plan() && unavailable.is_none();
    AutoSetup {
        auto: Arc::new(AutoMode::new(unavailable, plan)),
        config,
    }
}

/// The classifier's rules from the trusted settings (user settings,
/// `--settings`), with warnings: a repository's `autoMode` (ignored), an
/// entry that is not a rule.
pub fn auto_mode_config(settings: &Settings) -> (AutoModeConfig, Vec<String>) {
    let mut trusted = Vec::new();
    let mut warnings = Vec::new();
    for (source, value) in settings.auto_mode_by_source() {
        match source.scope() {
            Scope::User | Scope::Flag => trusted.push((source.scope().name(), value)),
            Scope::Project | Scope::Local => {
                let file = source
                    .file_path()
                    .map_or_else(String::new, |p| p.display().to_string());
                warnings.push(format!(
                    "autoMode in {file} is ignored: only user settings and --settings shape auto mode's classifier (a repository cannot widen what it allows)"
                ));
            }
        }
    }
    let sources: Vec<(&str, &serde_json::Value)> = trusted.iter().map(|(n, v)| (*n, *v)).collect();
    let (config, bad) = AutoModeConfig::from_sources(&sources);
    warnings.extend(bad.into_iter().map(|w| format!("autoMode: {w}")));
    (config, warnings)
}

/// `tack auto-mode critique`: the classifier's model reviews the user's own
/// rules (what is ambiguous, too broad, missing). One request, on the
/// session's credentials and providers.
pub async fn auto_mode_critique(
    place: &crate::place::Place,
    loaded: &crate::config::LoadedSettings,
) -> Result<String, String> {
    let settings = &loaded.settings;
    let options = crate::options::SessionOptions::default();
    let (emit, _events) = super::emitter(&[], &place.env, None);
    let name = crate::model::session_model_name(&options, &place.env, settings);
    let model = crate::model::model_for(&name, &place.env, false);
    let names = (name, model);
    let model =
        super::model::model_client(settings, &options, &place.env, &place.cwd, names, &emit)
            .await
            .map_err(|e| e.to_string())?;
    let (config, _) = auto_mode_config(settings);
    let cancel = tokio_util::sync::CancellationToken::new();
    let judge = classifier_model(&place.env, &model);
    tack_automode::critique(model.classifier_client.as_ref(), &judge, &config, &cancel).await
}

/// The classifier's model: `CLAUDE_CODE_AUTO_MODE_MODEL` (an alias, an id or
/// `provider/id`), else a Sonnet-class model of the session's provider (the
/// session's own model when that is another provider's: a session on a local
/// model sends nothing elsewhere unless told to).
pub(super) fn classifier_model(env: &Env, model: &SessionModel) -> String {
    match env
        .get("CLAUDE_CODE_AUTO_MODE_MODEL")
        .filter(|m| !m.trim().is_empty())
    {
        Some(m) => model.request.env.resolve(m.trim(), false),
        None if model.on_provider => model.model.clone(),
        None => model.request.env.resolve("sonnet", false),
    }
}

/// Gives `setup`'s auto mode its classifier, metered into the session's usage
/// (so `/cost` and `modelUsage` show it under the classifier's model).
pub(super) fn arm(setup: AutoSetup, env: &Env, model: &SessionModel) -> Arc<AutoMode> {
    let client = Arc::new(MeteredClient::new(
        Arc::clone(&model.classifier_client),
        model.ledger.clone(),
    ));
    let classifier = Classifier::new(client, classifier_model(env, model), setup.config);
    setup.auto.set_classifier(Arc::new(classifier));
    setup.auto
}

/// What the classifier is told of where the session runs: its working
/// directories, the repository's remotes (trusted by the default rules) and
/// its git state (branch, status, recent commits) as the system prompt has it.
pub(super) fn environment(dirs: &[PathBuf], git: Option<&str>) -> String {
    let mut out = String::from("Working directories (the project; trusted):\n");
    for d in dirs {
        out.push_str(&format!("- {}\n", d.display()));
    }
    let remotes = dirs.first().map(|d| remotes(d)).unwrap_or_default();
    if !remotes.is_empty() {
        out.push_str("\nThis repository's remotes (trusted):\n");
        for (name, url) in remotes {
            out.push_str(&format!("- {name}: {url}\n"));
        }
    }
    if let Some(git) = git.filter(|g| !g.trim().is_empty()) {
        out.push('\n');
        out.push_str(git.trim());
        out.push('\n');
    }
    out
}

/// The remotes of the repository holding `dir`, read from its git config
/// file (no `git` process: a repository's config can name programs git
/// would run). A linked worktree's `.git` file leads to the common config.
fn remotes(dir: &std::path::Path) -> Vec<(String, String)> {
    let root = tack_config::find_project_dir(dir);
    let dot_git = root.join(".git");
    let git_dir = match std::fs::read_to_string(&dot_git) {
        Ok(text) => match text.trim().strip_prefix("gitdir:") {
            Some(path) => {
                let linked = root.join(path.trim());
                match std::fs::read_to_string(linked.join("commondir")) {
                    Ok(common) => linked.join(common.trim()),
                    Err(_) => linked,
                }
            }
            None => return Vec::new(),
        },
        Err(_) => dot_git,
    };
    let Ok(config) = std::fs::read_to_string(git_dir.join("config")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut remote: Option<String> = None;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            remote = line
                .strip_prefix("[remote \"")
                .and_then(|r| r.strip_suffix("\"]"))
                .map(str::to_owned);
        } else if let (Some(name), Some((key, value))) = (&remote, line.split_once('='))
            && key.trim() == "url"
            && out.len() < 16
        {
            let url = tack_sys::terminal_text::visible(value.trim()).into_owned();
            out.push((name.clone(), url));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remotes_come_from_the_git_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(
            git.join("config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n\tfetch = +refs/heads/*\n[branch \"main\"]\n\tremote = origin\n",
        )
        .unwrap();
        let project = dir.path().to_path_buf();
        assert_eq!(
            environment(std::slice::from_ref(&project), None),
            format!(
                "Working directories (the project; trusted):\n- {}\n\nThis repository's remotes (trusted):\n- origin: git@github.com:acme/app.git\n",
                project.display()
            )
        );
    }

    #[test]
    fn the_environment_names_the_directories_and_the_git_state() {
        let dirs = [PathBuf::from("/p"), PathBuf::from("/extra")];
        assert_eq!(
            environment(&dirs, Some("Current branch: main\n")),
            "Working directories (the project; trusted):\n- /p\n- /extra\n\nCurrent branch: main\n"
        );
        assert_eq!(
            environment(&dirs[..1], None),
            "Working directories (the project; trusted):\n- /p\n"
        );
    }
}
