use std::collections::HashMap;

use pretty_assertions::assert_eq;
use tack_config::Source;
use tack_protocol::Message;
use tack_testkit::{MockServer, Reply, Script};

use super::*;

fn settings(text: &str) -> Settings {
    let source = Source::file(tack_config::Scope::User, "/u/settings.json", "/u");
    Settings::from_layers([(source, text.to_owned())], None).unwrap()
}

fn env(vars: &[(&str, &str)]) -> Env {
    Env(vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect::<HashMap<_, _>>())
}

#[test]
fn specs_from_settings_and_the_openai_environment() {
    let s = settings(
        r#"{"providers": {"local": {"api": "openai-chat", "baseUrl": "http://127.0.0.1:8080/v1",
                                    "apiKeyEnv": "LOCAL_KEY", "headers": {"X-Team": "a"},
                                    "extraBody": {"top_k": 20}}}}"#,
    );
    let specs =
        provider_specs(&s, &env(&[("LOCAL_KEY", "k1"), ("OPENAI_API_KEY", "sk-o")])).unwrap();
    let expected: BTreeMap<String, ProviderSpec> = [
        (
            "local".to_owned(),
            ProviderSpec {
                name: "local".into(),
                api: ProviderApi::OpenaiChat,
                base_url: Some("http://127.0.0.1:8080/v1".into()),
                api_key: Some("k1".into()),
                headers: vec![("X-Team".into(), "a".into())],
                extra_body: [("top_k".to_owned(), serde_json::json!(20))]
                    .into_iter()
                    .collect(),
                platform: None,
            },
        ),
        (
            "openai".to_owned(),
            ProviderSpec {
                name: "openai".into(),
                api: ProviderApi::OpenaiResponses,
                base_url: Some(OPENAI_BASE_URL.into()),
                api_key: Some("sk-o".into()),
                headers: vec![],
                extra_body: serde_json::Map::new(),
                platform: None,
            },
        ),
    ]
    .into();
    assert_eq!(specs, expected);
    // A base URL alone means a compatible server: Chat Completions, no key.
    let specs = provider_specs(
        &settings("{}"),
        &env(&[("OPENAI_BASE_URL", "http://h:1/v1")]),
    )
    .unwrap();
    assert_eq!(
        specs.get("openai").map(|s| (s.api, s.api_key.clone())),
        Some((ProviderApi::OpenaiChat, None))
    );
    assert!(
        provider_specs(&settings("{}"), &env(&[]))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn an_openai_base_url_tack_cannot_send_to_is_refused_unless_unused() {
    let with = |settings_text: &str, url: &str| {
        provider_specs(&settings(settings_text), &env(&[("OPENAI_BASE_URL", url)]))
            .map(|specs| specs.keys().cloned().collect::<Vec<_>>())
    };
    let got = [
        with("{}", "file:///etc/passwd"),
        with("{}", "127.0.0.1:8080/v1"),
        with("{}", "http//127.0.0.1:8080/v1"),
        // The settings' own `openai` provider: the variable is not used.
        with(
            r#"{"providers": {"openai": {"api": "openai-chat", "baseUrl": "http://h:1/v1"}}}"#,
            "http//127.0.0.1:8080/v1",
        ),
    ];
    assert_eq!(
        got,
        [
            Err(BadOpenAiBaseUrl(
                "`file:///etc/passwd` is not an http or https URL".into()
            )),
            Err(BadOpenAiBaseUrl(
                "`127.0.0.1:8080/v1` is not a URL (relative URL without a base)".into()
            )),
            Err(BadOpenAiBaseUrl(
                "`http//127.0.0.1:8080/v1` is not a URL (relative URL without a base)".into()
            )),
            Ok(vec!["openai".to_owned()]),
        ]
    );
}

#[test]
fn routing_locality_and_prices() {
    let s = settings(
        r#"{"providers": {"local": {"api": "openai-chat", "baseUrl": "http://localhost:8080/v1"},
                          "lan": {"api": "openai-chat", "baseUrl": "http://192.168.1.9/v1"},
                          "v6": {"api": "openai-chat", "baseUrl": "http://[::1]:9/v1"}},
            "modelPrices": {"lan/big": {"input": 1, "output": 4}}}"#,
    );
    let specs = provider_specs(&s, &env(&[])).unwrap();
    assert_eq!(
        route(&specs, "local/qwen3/8b"),
        Some(("local".into(), "qwen3/8b"))
    );
    assert_eq!(route(&specs, "claude-sonnet-4-5"), None);
    assert_eq!(route(&specs, "other/x"), None);
    let local: Vec<&str> = specs
        .values()
        .filter(|s| s.is_local())
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(local, vec!["local", "v6"]);
    let book = price_book(&s, &specs);
    assert_eq!(book.prices("local/anything").map(|p| p.output), Some(0.0));
    assert_eq!(
        book.prices("lan/big").map(|p| (p.input, p.cache_read)),
        Some((1.0, 1.0))
    );
    assert_eq!(book.prices("lan/small"), None);
}

async fn text_of(router: &ProviderRouter, model: &str) -> Result<(String, String), ApiError> {
    let request = MessagesRequest::new(model, 100, vec![Message::user_text("hi")]);
    let events: Vec<_> = router
        .stream(request, CancellationToken::new())
        .collect()
        .await;
    match events.last() {
        Some(Ok(StreamEvent::MessageDone(m))) => Ok((
            m.model.clone(),
            Message::assistant(m.content.clone()).text(),
        )),
        Some(Err(e)) => Err(e.clone()),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_router_sends_each_model_to_its_provider() {
    let anthropic = MockServer::start(Script::new([Reply::text("from claude")]))
        .await
        .unwrap();
    let local = MockServer::start(Script::new([Reply::text("from local")]))
        .await
        .unwrap();
    let bedrock = MockServer::start(Script::new([Reply::text("from bedrock")]))
        .await
        .unwrap();
    let config = ClientConfig {
        base_url: anthropic.base_url(),
        extra_headers: vec![("X-Gateway-Key".into(), "g".into())],
        ..ClientConfig::default()
    };
    let default: Arc<dyn ModelClient> = Arc::new(AnthropicClient::new(config.clone()).unwrap());
    let s = settings(&format!(
        r#"{{"providers": {{"local": {{"api": "openai-chat", "baseUrl": "{}/v1"}},
                            "cloud": {{"api": "bedrock", "baseUrl": "{}"}},
                            "nokeys": {{"api": "vertex"}}}}}}"#,
        local.base_url(),
        bedrock.base_url()
    ));
    let keys = env(&[
        ("AWS_ACCESS_KEY_ID", "AKID"),
        ("AWS_SECRET_ACCESS_KEY", "secret"),
    ]);
    let router = ProviderRouter::new(default, provider_specs(&s, &keys).unwrap(), config);
    assert_eq!(
        text_of(&router, "local/qwen3").await,
        Ok(("local/qwen3".into(), "from local".into()))
    );
    assert_eq!(
        text_of(&router, "claude-sonnet-4-5").await,
        Ok(("claude-sonnet-4-5".into(), "from claude".into()))
    );
    assert_eq!(local.requests()[0].body["model"], "qwen3");
    assert_eq!(local.requests()[0].path, "/v1/chat/completions");
    assert_eq!(anthropic.requests()[0].path, "/v1/messages");
    // Claude on Bedrock through an entry: signed with the environment's keys,
    // the id in the path.
    assert_eq!(
        text_of(&router, "cloud/anthropic.claude-x-v1:0").await,
        Ok((
            "cloud/anthropic.claude-x-v1:0".into(),
            "from bedrock".into()
        ))
    );
    assert_eq!(
        bedrock.requests()[0].path,
        "/model/anthropic.claude-x-v1:0/invoke-with-response-stream"
    );
    // The default client's custom headers went to its host only.
    let gateway_key = |server: &MockServer| {
        server
            .requests()
            .iter()
            .map(|r| r.header("x-gateway-key").map(str::to_owned))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        [
            gateway_key(&anthropic),
            gateway_key(&local),
            gateway_key(&bedrock)
        ],
        [vec![Some("g".to_owned())], vec![None], vec![None]]
    );
    let Err(ApiError::InvalidRequest { message, .. }) = text_of(&router, "nokeys/claude").await
    else {
        panic!("a Vertex entry without a project must fail");
    };
    assert!(message.starts_with("provider `nokeys`: "), "{message}");
}
