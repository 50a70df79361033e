//! Auto mode at start: whether the session may use it, the classifier's
//! rules (from trusted settings only), its model and its client.

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
