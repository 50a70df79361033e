//! The HTTP client shared by streamable HTTP and legacy SSE servers, and the
//! streamable HTTP transport (rmcp's, over our reqwest client).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Once, OnceLock};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};

use crate::config::RemoteConfig;

static CRYPTO_PROVIDER: Once = Once::new();
static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();

/// One reqwest client for every remote server, built on first use: TLS via
/// rustls/ring as in `tack-api` (the workspace's reqwest has no default
/// provider), TCP_NODELAY, no overall timeout (event streams stay open).
/// The runtime's `http` hooks post through it too.
pub fn client() -> Result<reqwest::Client, String> {
    CLIENT
        .get_or_init(|| {
            CRYPTO_PROVIDER.call_once(|| {
                // Err means another provider is installed already: fine.
                let _ = rustls::crypto::ring::default_provider().install_default();
            });
            // Roots read on the first https handshake, shared with tack-api's.
            let tls = tack_api::tls::client_config(false).map_err(|e| e.to_string())?;
            reqwest::Client::builder()
                .tls_backend_preconfigured(tls)
                .user_agent(concat!("tack/", env!("CARGO_PKG_VERSION")))
                .connect_timeout(Duration::from_secs(10))
                .tcp_nodelay(true)
                .build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))
        })
        .clone()
}

/// The configured headers as HTTP headers; a bad name or value is named.
pub(crate) fn header_map(
    headers: &BTreeMap<String, String>,
) -> Result<HashMap<HeaderName, HeaderValue>, String> {
    headers
        .iter()
        .map(|(name, value)| {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("`{name}` is not a valid HTTP header name"))?;
            let v = HeaderValue::from_str(value)
                .map_err(|_| format!("the value of header `{name}` is not valid in HTTP"))?;
            Ok((n, v))
        })
        .collect()
}

pub(crate) type HttpTransport = StreamableHttpClientTransport<reqwest::Client>;

/// rmcp's streamable HTTP client transport for `config`.
pub(crate) fn streamable(config: &RemoteConfig) -> Result<HttpTransport, String> {
    let client = client()?;
    let headers = header_map(&config.headers)?;
    let transport_config =
        StreamableHttpClientTransportConfig::with_uri(config.url.as_str()).custom_headers(headers);
    Ok(StreamableHttpClientTransport::with_client(
        client,
        transport_config,
    ))
}

/// True when `error` (or an error it wraps) is an HTTP 401 from a streamable
/// HTTP server, challenged (`WWW-Authenticate`) or not.
pub(crate) fn is_unauthorized(error: &(dyn std::error::Error + 'static)) -> bool {
    super::error_chain(error).any(|e| {
        match e.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::AuthRequired(_)) => true,
            Some(StreamableHttpError::UnexpectedServerResponse(message)) => {
                message.starts_with("HTTP 401")
            }
            Some(StreamableHttpError::Client(e)) => {
                e.status() == Some(reqwest::StatusCode::UNAUTHORIZED)
            }
            _ => false,
        }
    })
}
