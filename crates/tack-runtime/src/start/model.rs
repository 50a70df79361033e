//! The session's model: the client that serves it (built on a blocking
//! thread), where its credentials came from, and its request settings.

use std::path::Path;
use std::sync::Arc;

use tack_api::{ClientConfig, ModelClient};
use tack_config::Settings;
use tack_core::QueryConfig;
use tack_core::deps::{ProductionDeps, QueryDeps};
use tack_core::session::UsageLedger;

use super::StartError;
use crate::auth::{AuthError, client_config};
use crate::client::DeferredClient;
use crate::emit::Emitter;
use crate::event::Notice;
use crate::model::RequestEnv;
use crate::options::SessionOptions;
use crate::place::Env;
use crate::providers::{self, ProviderRouter};

/// The session's model, the client that serves it and its request settings.
pub(super) struct SessionModel {
    pub(super) model: String,
    /// The name `model` was chosen by (an alias or the id itself).
    pub(super) name: String,
    pub(super) client: Arc<dyn ModelClient>,
    pub(super) account: Account,
    /// The session's model is another provider's ([`crate::providers`]).
    pub(super) on_provider: bool,
    pub(super) deps: Arc<dyn QueryDeps>,
    pub(super) ledger: UsageLedger,
    pub(super) request: RequestSettings,
    /// Auto mode's classifier requests: the same providers, a short retry
    /// policy, the HTTP client built on the first classified call.
    pub(super) classifier_client: Arc<dyn ModelClient>,
}

/// How auto mode's classifier retries: 5 tries over about 7 s (Claude Code's;
/// fewer when the session's own policy allows fewer), then the call goes to a
/// person or, with nobody to ask, is refused.
fn classifier_retry(session: &tack_api::RetryPolicy) -> tack_api::RetryPolicy {
    tack_api::RetryPolicy {
        max_retries: session.max_retries.min(4),
        base_delay: std::time::Duration::from_millis(500),
        max_delay: std::time::Duration::from_secs(4),
        max_retry_after: std::time::Duration::from_secs(4),
    }
}

/// The session's model: its client, built on a blocking thread from here on,
/// where its credentials came from, and its request settings.
///
/// Other providers ([`crate::providers`]) get their clients on first use; a
/// session whose model is a provider's needs no Anthropic credentials.
pub(super) async fn model_client(
    settings: &Settings,
    options: &SessionOptions,
    env: &Env,
    cwd: &Path,
    (name, model): (String, String),
    emit: &Emitter,
) -> Result<SessionModel, StartError> {
    let specs = providers::provider_specs(settings, env)?;
    tack_api::set_price_book(providers::price_book(settings, &specs));
    let helper = settings.api_key_helper().map(|h| h.value().clone());
    let on_provider = providers::route(&specs, &model).is_some();
    let (mut client_config, api_key_source) = match client_config(env, helper, cwd).await {
        Err(AuthError::Missing) if on_provider => (ClientConfig::from_env(|k| env.get(k)), "none"),
        other => other?,
    };
    client_config
        .betas
        .extend(options.request.betas.iter().cloned());
    let account = Account {
        key_source: api_key_source,
        provider: client_config.platform.name(),
    };
    let default = Arc::new(DeferredClient::spawn(client_config.clone()));
    let mut classifier_config = client_config.clone();
    classifier_config.retry = classifier_retry(&client_config.retry);
    let classifier_client: Arc<dyn ModelClient> = Arc::new(ProviderRouter::new(
        Arc::new(DeferredClient::on_first_use(classifier_config.clone())),
        specs.clone(),
        classifier_config,
    ));
    let client: Arc<dyn ModelClient> = Arc::new(ProviderRouter::new(default, specs, client_config));
    let request = request_config(options, env, settings, &model, emit);
    Ok(SessionModel {
        deps: Arc::new(ProductionDeps::new(client.clone())),
        client,
        account,
        on_provider,
        ledger: UsageLedger::default(),
        request,
        model,
        name,
        classifier_client,
    })
}

/// Where the session's key came from (`apiKeySource`) and which API serves
/// its default model (`apiProvider`: `firstParty`, `bedrock`, `vertex`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Account {
    pub(super) key_source: &'static str,
    pub(super) provider: &'static str,
}

/// The request settings: the first request's and the base later turns'
/// options apply to.
pub(super) struct RequestSettings {
    pub(super) base: QueryConfig,
    pub(super) env: RequestEnv,
    pub(super) config: QueryConfig,
}

/// Model and request settings; warns about a model without a price.
pub(super) fn request_config(
    options: &SessionOptions,
    env: &Env,
    settings: &Settings,
    model: &str,
    emit: &Emitter,
) -> RequestSettings {
    let request_env = RequestEnv::from_env(env).with_choices(
        options.request.thinking.clone(),
        options.request.effort.clone(),
    );
    let mut base = QueryConfig::new(model.to_owned());
    base.max_turns = options.request.max_turns;
    base.fallback_model = options
        .request
        .fallback_model
        .clone()
        .or_else(|| settings.fallback_model().and_then(|c| c.first().cloned()))
        .map(|m| request_env.resolve(&m, false));
    base.auto_compact = settings.auto_compact_enabled();
    let config = request_env.apply(&base, model);
    for m in std::iter::once(model).chain(config.fallback_model.as_deref()) {
        if let Some(warning) = tack_api::unpriced_model_warning(m) {
            emit.notice(Notice::warning(format!("warning: {warning}")));
        }
    }
    RequestSettings {
        base,
        env: request_env,
        config,
    }
}
