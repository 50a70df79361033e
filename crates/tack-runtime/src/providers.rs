//! Which API serves a model: the `providers` setting, `OPENAI_API_KEY` /
//! `OPENAI_BASE_URL`, and the [`ProviderRouter`] that sends each request there.
//!
//! A model named `<provider>/<id>` whose provider is configured goes to that
//! provider's client with the prefix stripped; anything else (a bare id, or a
//! slash in an id no provider claims) goes to the default Anthropic client.
//! Everything that names a model — `--model`, the `model` setting,
//! `--fallback-model`, agent and skill frontmatter, the SDK's `set_model` —
//! ends in the request's `model`, so all of them route the same way. Provider
//! clients are built on their first request: a session that never uses one
//! pays nothing for it. Answers from a provider report the full
//! `<provider>/<id>` as their model, so costs, `modelUsage` and transcripts
//! name it the way the user did.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use futures::StreamExt;
use futures::stream::{self, BoxStream};
use tack_api::{
    AnthropicClient, ApiError, Auth, ClientConfig, ModelClient, OpenAiApi, OpenAiClient,
    OpenAiConfig, PriceBook, Prices, StreamEvent,
};
use tack_config::{ProviderApi, Settings};
use tack_protocol::{MessagesRequest, SseEvent};
use tokio_util::sync::CancellationToken;

use crate::place::Env;

/// The provider `OPENAI_API_KEY` / `OPENAI_BASE_URL` configure.
pub const OPENAI_PROVIDER: &str = "openai";
const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// One configured provider, its key resolved from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSpec {
    pub name: String,
    pub api: ProviderApi,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub headers: Vec<(String, String)>,
    pub extra_body: serde_json::Map<String, serde_json::Value>,
    /// `bedrock` / `vertex`: the platform as Claude Code's variables would
    /// set it up (credentials, region, project from the environment; the
    /// entry's `baseUrl` as the endpoint), or why it cannot be.
    pub platform: Option<Result<tack_api::Platform, String>>,
}

impl ProviderSpec {
    /// A server on this machine (`localhost`, `127.x`, `[::1]`): its models cost nothing.
    pub fn is_local(&self) -> bool {
        let Some(url) = &self.base_url else {
            return false;
        };
        let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or_default();
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => authority.split(':').next().unwrap_or_default(),
        };
        host.eq_ignore_ascii_case("localhost") || host.starts_with("127.") || host == "::1"
    }
}

/// `OPENAI_BASE_URL` names nothing tack can send requests to (refused at
/// start, as a provider's `baseUrl` is when the settings are read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("OPENAI_BASE_URL: {0}")]
pub struct BadOpenAiBaseUrl(pub String);

/// Every provider of the session: the `providers` setting, plus an `openai`
/// one when the environment has `OPENAI_API_KEY` or `OPENAI_BASE_URL` and the
/// settings define none. That one speaks the Responses API to OpenAI itself
/// (what OpenAI's SDKs and Codex use there), and Chat Completions to an
/// `OPENAI_BASE_URL` (what nearly every compatible server speaks), which must
/// then be an http or https URL.
pub fn provider_specs(
    settings: &Settings,
    env: &Env,
) -> Result<BTreeMap<String, ProviderSpec>, BadOpenAiBaseUrl> {
    let mut specs: BTreeMap<String, ProviderSpec> = settings
        .providers()
        .iter()
        .map(|(name, p)| {
            let spec = ProviderSpec {
                name: name.clone(),
                api: p.api,
                base_url: p.base_url.clone(),
                api_key: p.api_key_env.as_deref().and_then(|var| env.get(var)),
                headers: p
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                extra_body: p.extra_body.clone(),
                platform: cloud_platform_of(p.api, p.base_url.as_deref(), env),
            };
            (name.clone(), spec)
        })
        .collect();
    let key = env.get("OPENAI_API_KEY");
    let base_url = env.get("OPENAI_BASE_URL");
    if !specs.contains_key(OPENAI_PROVIDER) && (key.is_some() || base_url.is_some()) {
        if let Some(url) = &base_url {
            tack_config::check_http_url(url).map_err(BadOpenAiBaseUrl)?;
        }
        let api = match base_url {
            Some(_) => ProviderApi::OpenaiChat,
            None => ProviderApi::OpenaiResponses,
        };
        let spec = ProviderSpec {
            name: OPENAI_PROVIDER.into(),
            api,
            base_url: Some(base_url.unwrap_or_else(|| OPENAI_BASE_URL.into())),
            api_key: key,
            headers: Vec::new(),
            extra_body: serde_json::Map::new(),
            platform: None,
        };
        specs.insert(OPENAI_PROVIDER.into(), spec);
    }
    Ok(specs)
}

/// A `bedrock` or `vertex` entry's platform: what `CLAUDE_CODE_USE_BEDROCK`
/// (or `_VERTEX`) would give in this environment, at `base_url` if set.
fn cloud_platform_of(
    api: ProviderApi,
    base_url: Option<&str>,
    env: &Env,
) -> Option<Result<tack_api::Platform, String>> {
    let (switch, url_var) = match api {
        ProviderApi::Bedrock => ("CLAUDE_CODE_USE_BEDROCK", "ANTHROPIC_BEDROCK_BASE_URL"),
        ProviderApi::Vertex => ("CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_VERTEX_BASE_URL"),
        ProviderApi::Anthropic | ProviderApi::OpenaiChat | ProviderApi::OpenaiResponses => {
            return None;
        }
    };
    let mut vars = env.0.clone();
    vars.remove("CLAUDE_CODE_USE_BEDROCK");
    vars.remove("CLAUDE_CODE_USE_VERTEX");
    vars.insert(switch.into(), "1".into());
    if let Some(url) = base_url {
        vars.insert(url_var.into(), url.into());
    }
    Some(match crate::cloud::cloud_platform(&Env(vars)) {
        Ok(Some(cloud)) => Ok(cloud.platform),
        Ok(None) => Err("the platform is not selected".into()),
        Err(e) => Err(e.0),
    })
}

/// The provider that serves `model` and the id it is known by there, or
/// `None` for the default (Anthropic) client.
pub fn route<'m>(
    specs: &BTreeMap<String, ProviderSpec>,
    model: &'m str,
) -> Option<(String, &'m str)> {
    let (name, id) = model.split_once('/')?;
    specs.contains_key(name).then(|| (name.to_owned(), id))
}

/// The prices the settings add: `modelPrices`, and 0 for local providers.
pub fn price_book(settings: &Settings, specs: &BTreeMap<String, ProviderSpec>) -> PriceBook {
    let mut book = PriceBook::default();
    for spec in specs.values().filter(|s| s.is_local()) {
        book = book.with_free_provider(&spec.name);
    }
    for (model, p) in settings.model_prices() {
        let prices = Prices {
            input: p.input,
            output: p.output,
            cache_write_5m: p.cache_write.unwrap_or(p.input),
            cache_write_1h: p.cache_write.unwrap_or(p.input),
            cache_read: p.cache_read.unwrap_or(p.input),
        };
        book = book.with_price(model, prices);
    }
    book
}

/// The session's model client: requests for a configured provider go to its
/// client (built on first use), the rest to `default`.
pub struct ProviderRouter {
    default: Arc<dyn ModelClient>,
    providers: BTreeMap<String, Provider>,
    /// The Anthropic client's settings, for providers with `api: anthropic`.
    anthropic: ClientConfig,
}

struct Provider {
    spec: ProviderSpec,
    client: OnceLock<Result<Arc<dyn ModelClient>, ApiError>>,
}

impl ProviderRouter {
    pub fn new(
        default: Arc<dyn ModelClient>,
        specs: BTreeMap<String, ProviderSpec>,
        anthropic: ClientConfig,
    ) -> ProviderRouter {
        let providers = specs
            .into_iter()
            .map(|(name, spec)| {
                let provider = Provider {
                    spec,
                    client: OnceLock::new(),
                };
                (name, provider)
            })
            .collect();
        ProviderRouter {
            default,
            providers,
            anthropic,
        }
    }

    fn client(&self, provider: &Provider) -> Result<Arc<dyn ModelClient>, ApiError> {
        provider
            .client
            .get_or_init(|| build(&provider.spec, &self.anthropic))
            .clone()
    }
}

/// The client of `spec`, from the default client's settings `anthropic`
/// (retries, timeouts). Their `extra_headers` (`ANTHROPIC_CUSTOM_HEADERS`, often a
/// gateway's credential) were set for the default client's host: an entry
/// elsewhere gets only its own `headers`.
fn build(spec: &ProviderSpec, anthropic: &ClientConfig) -> Result<Arc<dyn ModelClient>, ApiError> {
    let openai = |api| {
        let mut config = OpenAiConfig::new(
            spec.name.clone(),
            api,
            spec.base_url
                .clone()
                .unwrap_or_else(|| OPENAI_BASE_URL.into()),
        );
        config.api_key = spec.api_key.clone();
        config.headers = spec.headers.clone();
        config.extra_body = spec.extra_body.clone();
        config.retry = anthropic.retry.clone();
        config.request_timeout = anthropic.request_timeout;
        config
    };
    Ok(match spec.api {
        ProviderApi::OpenaiChat => Arc::new(OpenAiClient::new(openai(OpenAiApi::Chat))?),
        ProviderApi::OpenaiResponses => Arc::new(OpenAiClient::new(openai(OpenAiApi::Responses))?),
        ProviderApi::Anthropic => {
            // The Messages API itself, even when the default is Bedrock or Vertex.
            let mut config = anthropic.clone();
            config.platform = tack_api::Platform::Anthropic;
            if let Some(url) = &spec.base_url {
                config.base_url = url.clone();
            }
            config.auth = spec.api_key.clone().map_or(Auth::None, Auth::ApiKey);
            let same_host = anthropic.platform == tack_api::Platform::Anthropic
                && same_origin(&anthropic.base_url, &config.base_url);
            if !same_host {
                config.extra_headers.clear();
            }
            config.extra_headers.extend(spec.headers.iter().cloned());
            Arc::new(AnthropicClient::new(config)?)
        }
        ProviderApi::Bedrock | ProviderApi::Vertex => {
            let platform = match &spec.platform {
                Some(Ok(platform)) => platform.clone(),
                Some(Err(why)) => {
                    return Err(ApiError::InvalidRequest {
                        message: format!("provider `{}`: {why}", spec.name),
                        request_id: None,
                    });
                }
                None => {
                    return Err(ApiError::InvalidRequest {
                        message: format!("provider `{}` has no platform", spec.name),
                        request_id: None,
                    });
                }
            };
            let mut config = anthropic.clone();
            if anthropic.platform != platform {
                config.extra_headers.clear();
            }
            config.platform = platform;
            config.auth = Auth::None;
            config.extra_headers.extend(spec.headers.iter().cloned());
            Arc::new(AnthropicClient::new(config)?)
        }
    })
}

/// Whether `a` and `b` name the same scheme, host and port (an unparsable URL
/// matches nothing).
fn same_origin(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin().is_tuple() && a.origin() == b.origin(),
        _ => false,
    }
}

impl ModelClient for ProviderRouter {
    fn stream(
        &self,
        mut request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        let routed = request
            .model
            .split_once('/')
            .and_then(|(name, id)| Some((self.providers.get(name)?, id.to_owned())));
        let Some((provider, id)) = routed else {
            return self.default.stream(request, cancel);
        };
        let client = match self.client(provider) {
            Ok(client) => client,
            Err(error) => return stream::iter([Err(error)]).boxed(),
        };
        let full = std::mem::replace(&mut request.model, id);
        if provider.spec.api == ProviderApi::Anthropic {
            request.extra.extend(provider.spec.extra_body.clone());
        }
        client
            .stream(request, cancel)
            .map(move |event| event.map(|e| named(e, &full)))
            .boxed()
    }
}

/// `event` with the model it reports set to `full` (`provider/id`).
fn named(mut event: StreamEvent, full: &str) -> StreamEvent {
    match &mut event {
        StreamEvent::Sse(SseEvent::MessageStart { message })
        | StreamEvent::MessageDone(message) => {
            full.clone_into(&mut message.model);
        }
        _ => {}
    }
    event
}

#[cfg(test)]
mod tests;
