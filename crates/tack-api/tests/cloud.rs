//! Bedrock and Vertex through the real client, over real HTTP against the
//! testkit's cloud routes: the same events as the Anthropic path, the requests
//! each platform expects, SigV4 and Google credentials.

use std::time::Duration;

use base64::Engine as _;
use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_api::{
    AnthropicClient, ApiError, Auth, AwsAuth, AwsCredentials, BedrockConfig, ClientConfig,
    GoogleAuth, ModelClient, Platform, RetryPolicy, StreamEvent, VertexConfig,
};
use tack_protocol::{Message, MessagesRequest};
use tack_testkit::{MockServer, Reply, Script};
use tokio_util::sync::CancellationToken;

const KEY_PEM: &str = include_str!("fixtures/test-service-account-key.pem");

fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(2),
        max_delay: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(60),
    }
}

fn client(platform: Platform, base_url: String) -> AnthropicClient {
    let config = ClientConfig {
        base_url,
        auth: Auth::ApiKey("sk-ant-test".into()),
        betas: vec!["beta-1".into()],
        retry: fast_retries(),
        platform,
        ..ClientConfig::default()
    };
    AnthropicClient::new(config).unwrap_or_else(|e| panic!("client: {e}"))
}

fn bedrock(server: &MockServer, auth: AwsAuth) -> AnthropicClient {
    let config = BedrockConfig {
        region: "eu-west-1".into(),
        base_url: Some(server.base_url()),
        auth,
    };
    client(Platform::Bedrock(config), String::new())
}

fn static_keys() -> AwsAuth {
    AwsAuth::SigV4(AwsCredentials {
        access_key_id: "AKIDTEST".into(),
        secret_access_key: "secret".into(),
        session_token: None,
    })
}

fn script() -> Script {
    Script::new([
        Reply::message()
            .text("Let me look.")
            .tool_use("toolu_1", "Read", json!({"file_path": "/a"}))
            .usage(10, 5)
            .model("claude-sonnet-4-5")
            .into(),
        Reply::message()
            .text("Done.")
            .usage(20, 2)
            .model("claude-sonnet-4-5")
            .into(),
    ])
}

fn request() -> MessagesRequest {
    MessagesRequest::new("claude-sonnet-4-5", 1024, vec![Message::user_text("hi")])
}

/// The stream's events, the request id aside: it names the server's request
/// (a token exchange before it takes a number), not what was streamed.
async fn events(client: &AnthropicClient) -> Vec<Result<StreamEvent, ApiError>> {
    let all: Vec<_> = client
        .stream(request(), CancellationToken::new())
        .collect()
        .await;
    all.into_iter()
        .filter(|e| !matches!(e, Ok(StreamEvent::RequestId(_))))
        .collect()
}

/// The events the Anthropic API path gives for the same script.
async fn anthropic_events() -> Vec<Vec<Result<StreamEvent, ApiError>>> {
    let server = MockServer::start(script()).await.unwrap();
    let client = client(Platform::Anthropic, server.base_url());
    vec![events(&client).await, events(&client).await]
}

#[tokio::test]
async fn bedrock_streams_the_same_events_as_the_anthropic_api() {
    let server = MockServer::start(script()).await.unwrap();
    let client = bedrock(&server, static_keys());
    let got = vec![events(&client).await, events(&client).await];
    assert_eq!(got, anthropic_events().await);

    let requests = server.requests();
    let first = &requests[0];
    assert_eq!(
        first.path,
        "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
    );
    assert_eq!(
        first.body,
        json!({"max_tokens": 1024, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
               "anthropic_version": "bedrock-2023-05-31", "anthropic_beta": ["beta-1"]})
    );
    let auth = first.header("authorization").unwrap_or_default();
    assert!(
        auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
            && auth.contains("/eu-west-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature="),
        "{auth}"
    );
    for absent in ["x-api-key", "anthropic-version", "anthropic-beta"] {
        assert_eq!(first.header(absent), None, "{absent}");
    }
}

#[tokio::test]
async fn bedrock_api_keys_and_gateways_are_not_signed() {
    let server = MockServer::start(script()).await.unwrap();
    let client = bedrock(&server, AwsAuth::Bearer("ABSK-key".into()));
    assert!(matches!(
        events(&client).await.last(),
        Some(Ok(StreamEvent::MessageDone(_)))
    ));
    let client = bedrock(&server, AwsAuth::None);
    assert!(matches!(
        events(&client).await.last(),
        Some(Ok(StreamEvent::MessageDone(_)))
    ));
    let requests = server.requests();
    assert_eq!(requests[0].header("authorization"), Some("Bearer ABSK-key"));
    assert_eq!(requests[1].header("authorization"), None);
    assert_eq!(requests[1].header("x-amz-date"), None);
}

#[tokio::test]
async fn bedrock_throttling_is_retried_and_errors_are_classified() {
    let server = MockServer::start(Script::new([
        Reply::rate_limited(0),
        // An exception frame before any content: retried like a 429.
        Reply::message()
            .text("x")
            .error_event_after(0, "rate_limit_error", "slow down")
            .into(),
        Reply::text("ok"),
        Reply::message()
            .text("partial")
            .error_event_after(3, "overloaded_error", "gone")
            .into(),
        Reply::prompt_too_long(210_000, 200_000),
    ]))
    .await
    .unwrap();
    let client = bedrock(&server, static_keys());
    let got = events(&client).await;
    let retries: Vec<_> = got
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::Retry { error, .. }) => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        retries,
        vec![
            ApiError::RateLimited {
                retry_after: Some(Duration::ZERO),
                message: "This request would exceed the rate limit for your organization".into()
            },
            ApiError::RateLimited {
                retry_after: Some(Duration::ZERO),
                message: "throttlingException: slow down".into()
            },
        ]
    );
    assert!(matches!(got.last(), Some(Ok(StreamEvent::MessageDone(_)))));

    let got = events(&client).await;
    assert_eq!(
        got.last(),
        Some(&Err(ApiError::Server {
            status: 503,
            retry_after: None,
            message: "serviceUnavailableException: gone".into()
        }))
    );
    let got = events(&client).await;
    assert_eq!(
        got,
        vec![Err(ApiError::PromptTooLong {
            actual: Some(210_000),
            limit: Some(200_000),
            message: "prompt is too long: 210000 tokens > 200000 maximum".into()
        })]
    );
}

#[tokio::test]
async fn a_malformed_signature_is_refused_by_the_mock() {
    // The mock's shape check is what the e2e tests rely on: make sure it bites.
    let server = MockServer::start(script()).await.unwrap();
    // Plain HTTP, but reqwest is built without a default crypto provider.
    let tls = tack_api::tls::client_config(false).unwrap();
    let http = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .unwrap();
    let url = format!("{}/model/m/invoke-with-response-stream", server.base_url());
    let response = http
        .post(&url)
        .header("authorization", "AWS4-HMAC-SHA256 Credential=AKID/2015/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=abc")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 403);
    assert_eq!(server.remaining(), 2);
}

fn vertex(server: &MockServer, auth: GoogleAuth) -> AnthropicClient {
    let config = VertexConfig {
        project_id: "proj-1".into(),
        region: "us-east5".into(),
        base_url: Some(format!("{}/v1", server.base_url())),
        model_regions: vec![("claude-haiku-4-5".into(), "europe-west1".into())],
        auth,
    };
    client(Platform::Vertex(config), String::new())
}

fn service_account(server: &MockServer) -> GoogleAuth {
    let file = json!({
        "type": "service_account", "project_id": "proj-1", "private_key_id": "kid-1",
        "private_key": KEY_PEM, "client_email": "tack@proj-1.iam.gserviceaccount.com",
        "token_uri": format!("{}/token", server.base_url()),
    });
    GoogleAuth::from_json(&file.to_string()).unwrap()
}

/// The JWT's header and claims, after checking its RS256 signature against the key.
fn verified_jwt(jwt: &str) -> (Value, Value) {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let der: String = KEY_PEM
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(der)
        .unwrap();
    let key = ring::signature::RsaKeyPair::from_pkcs8(&der).unwrap();
    let public = ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        key.public().as_ref().to_vec(),
    );
    let (signed, signature) = jwt.rsplit_once('.').unwrap();
    public
        .verify(signed.as_bytes(), &b64.decode(signature).unwrap())
        .unwrap_or_else(|_| panic!("bad JWT signature"));
    let (header, claims) = signed.split_once('.').unwrap();
    let parse = |part: &str| serde_json::from_slice::<Value>(&b64.decode(part).unwrap()).unwrap();
    (parse(header), parse(claims))
}

#[tokio::test]
async fn vertex_streams_the_same_events_with_a_service_account_token() {
    let server = MockServer::start(script()).await.unwrap();
    let client = vertex(&server, service_account(&server));
    let got = vec![events(&client).await, events(&client).await];
    assert_eq!(got, anthropic_events().await);

    let requests = server.requests();
    // One token exchange, cached for both requests.
    let paths: Vec<_> = requests.iter().map(|r| r.path.as_str()).collect();
    let model_path = "/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict";
    assert_eq!(paths, ["/token", model_path, model_path]);
    let form = &requests[0].body;
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    let (header, mut claims) = verified_jwt(form["assertion"].as_str().unwrap_or_default());
    assert_eq!(
        header,
        json!({"alg": "RS256", "typ": "JWT", "kid": "kid-1"})
    );
    let iat = claims["iat"].as_u64().unwrap_or_default();
    assert_eq!(claims["exp"].as_u64(), Some(iat + 3600));
    claims
        .as_object_mut()
        .map(|c| (c.remove("iat"), c.remove("exp")));
    assert_eq!(
        claims,
        json!({"iss": "tack@proj-1.iam.gserviceaccount.com",
               "scope": "https://www.googleapis.com/auth/cloud-platform",
               "aud": format!("{}/token", server.base_url())})
    );
    let call = &requests[1];
    assert_eq!(call.header("authorization"), Some("Bearer ya29.mock-1"));
    assert_eq!(call.header("anthropic-beta"), Some("beta-1"));
    assert_eq!(call.header("anthropic-version"), None);
    assert_eq!(call.header("x-api-key"), None);
    assert_eq!(
        call.body,
        json!({"max_tokens": 1024, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
               "stream": true, "anthropic_version": "vertex-2023-10-16"})
    );
}

#[tokio::test]
async fn vertex_authorized_user_refreshes_and_per_model_regions_apply() {
    let server = MockServer::start(script()).await.unwrap();
    let file = json!({"type": "authorized_user", "client_id": "cid", "client_secret": "cs",
                      "refresh_token": "1//rt", "token_uri": format!("{}/token", server.base_url())});
    let client = vertex(&server, GoogleAuth::from_json(&file.to_string()).unwrap());
    let haiku = MessagesRequest::new("claude-haiku-4-5", 10, vec![Message::user_text("hi")]);
    let got: Vec<_> = client
        .stream(haiku, CancellationToken::new())
        .collect()
        .await;
    assert!(matches!(got.last(), Some(Ok(StreamEvent::MessageDone(_)))));
    let requests = server.requests();
    assert_eq!(
        requests[0].body,
        json!({"grant_type": "refresh_token", "client_id": "cid", "client_secret": "cs",
               "refresh_token": "1//rt"})
    );
    assert_eq!(
        requests[1].path,
        "/v1/projects/proj-1/locations/europe-west1/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"
    );
}

#[tokio::test]
async fn a_failing_token_endpoint_is_an_authentication_error() {
    let server = MockServer::start(script()).await.unwrap();
    let file = json!({"type": "authorized_user", "client_id": "c", "client_secret": "s",
                      "refresh_token": "r", "token_uri": format!("{}/nope", server.base_url())});
    let client = vertex(&server, GoogleAuth::from_json(&file.to_string()).unwrap());
    let got = events(&client).await;
    let [Err(ApiError::Authentication { message })] = got.as_slice() else {
        panic!("{got:?}");
    };
    assert!(
        message.starts_with(&format!(
            "Google token exchange at {}/nope failed: HTTP 404",
            server.base_url()
        )),
        "{message}"
    );
    assert_eq!(server.remaining(), 2);
}
