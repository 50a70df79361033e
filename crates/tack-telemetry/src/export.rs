//! Sending one export request: OTLP over HTTP (protobuf or JSON) or gRPC
//! (a unary call: HTTP/2 POST, `application/grpc`, a 5-byte length prefix,
//! `grpc-status` read from the trailers), or a JSON line on stderr.

use std::io::Write;
use std::time::Duration;

use http_body_util::BodyExt;
use prost::Message;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;

use crate::config::{Exporter, Protocol};

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{endpoint}: {source}")]
    Http {
        endpoint: String,
        source: reqwest::Error,
    },
    #[error("{endpoint}: HTTP {status}")]
    Status { endpoint: String, status: u16 },
    #[error("{endpoint}: grpc-status {code}")]
    Grpc { endpoint: String, code: String },
    /// A gRPC answer longer than [`ANSWER_LIMIT`] (an Export answer is a few
    /// bytes): not read further.
    #[error("{endpoint}: the answer is larger than {} KiB", ANSWER_LIMIT >> 10)]
    TooLarge { endpoint: String },
    #[error("could not encode the request: {0}")]
    Encode(#[from] serde_json::Error),
}

/// One request's time limit.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a gRPC answer read (for its trailers' `grpc-status`).
const ANSWER_LIMIT: usize = 64 * 1024;

/// The HTTP clients (built when telemetry starts, never otherwise).
pub(crate) struct Clients {
    /// HTTP/1.1 (or HTTP/2 by ALPN).
    http: reqwest::Client,
    /// HTTP/2 from the first byte (gRPC to an `http://` collector: h2c).
    grpc: reqwest::Client,
}

impl Clients {
    pub(crate) fn new(tls: Option<rustls::ClientConfig>) -> Result<Clients, reqwest::Error> {
        let builder = || {
            let b = reqwest::Client::builder().timeout(REQUEST_TIMEOUT);
            match tls.clone() {
                Some(tls) => b.tls_backend_preconfigured(tls),
                None => b,
            }
        };
        Ok(Clients {
            http: builder().build()?,
            grpc: builder().http2_prior_knowledge().build()?,
        })
    }
}

/// One signal's request, in the forms the exporters need.
pub(crate) struct Payload<'a, T> {
    pub(crate) request: &'a T,
    /// gRPC method path (`/opentelemetry.proto.collector.metrics.v1.MetricsService/Export`).
    pub(crate) grpc_path: &'static str,
    pub(crate) headers: &'a [(String, String)],
}

pub(crate) async fn send<T: Message + Serialize>(
    clients: &Clients,
    exporter: &Exporter,
    payload: &Payload<'_, T>,
) -> Result<(), ExportError> {
    let (protocol, endpoint) = match exporter {
        Exporter::Console => {
            let line = serde_json::to_string(payload.request)?;
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{line}");
            return Ok(());
        }
        Exporter::Otlp { protocol, endpoint } => (*protocol, endpoint),
    };
    let mut headers = HeaderMap::new();
    for (k, v) in payload.headers {
        if let (Ok(k), Ok(v)) = (HeaderName::try_from(k.as_str()), HeaderValue::try_from(v)) {
            headers.insert(k, v);
        }
    }
    // A warning names the endpoint: never with its password (nor the
    // request's URL, which reqwest's error would print whole).
    let shown = without_userinfo(endpoint);
    let http_err = |source: reqwest::Error| ExportError::Http {
        endpoint: shown.clone(),
        source: source.without_url(),
    };
    let (url, body, content_type, client) = match protocol {
        Protocol::HttpProtobuf => (
            endpoint.clone(),
            payload.request.encode_to_vec(),
            "application/x-protobuf",
            &clients.http,
        ),
        Protocol::HttpJson => (
            endpoint.clone(),
            serde_json::to_vec(payload.request)?,
            "application/json",
            &clients.http,
        ),
        Protocol::Grpc => {
            let message = payload.request.encode_to_vec();
            let mut framed = Vec::with_capacity(message.len() + 5);
            framed.push(0);
            framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
            framed.extend_from_slice(&message);
            headers.insert("te", HeaderValue::from_static("trailers"));
            let base = endpoint.trim_end_matches('/');
            (
                format!("{base}{}", payload.grpc_path),
                framed,
                "application/grpc",
                &clients.grpc,
            )
        }
    };
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    let response = client
        .post(&url)
        .headers(headers)
        .body(body)
        .send()
        .await
        .map_err(http_err)?;
    let status = response.status();
    if !status.is_success() {
        return Err(ExportError::Status {
            endpoint: shown,
            status: status.as_u16(),
        });
    }
    if protocol != Protocol::Grpc {
        return Ok(());
    }
    // A trailers-only answer carries grpc-status in the headers.
    let head_status = grpc_status(response.headers());
    let response: http::Response<reqwest::Body> = response.into();
    let limited = http_body_util::Limited::new(response.into_body(), ANSWER_LIMIT);
    let collected = match limited.collect().await {
        Ok(collected) => collected,
        Err(e) => match e.downcast::<reqwest::Error>() {
            Ok(e) => return Err(http_err(*e)),
            Err(_) => return Err(ExportError::TooLarge { endpoint: shown }),
        },
    };
    let code = head_status
        .or_else(|| collected.trailers().and_then(grpc_status))
        .unwrap_or_else(|| "missing".to_owned());
    match code.as_str() {
        "0" => Ok(()),
        _ => Err(ExportError::Grpc {
            endpoint: shown,
            code,
        }),
    }
}

/// `url` with its `user:password@` shown as `***@`.
fn without_userinfo(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let authority_end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    match url[start..authority_end].rfind('@') {
        Some(at) => format!("{}***{}", &url[..start], &url[start + at..]),
        None => url.to_owned(),
    }
}

fn grpc_status(headers: &HeaderMap) -> Option<String> {
    headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_endpoints_userinfo_is_never_shown() {
        let shown = [
            "https://user:s3cret@collector:4318/v1/metrics",
            "http://token@collector",
            "http://collector:4317/a@b",
            "collector:4317",
        ]
        .map(without_userinfo);
        assert_eq!(
            shown,
            [
                "https://***@collector:4318/v1/metrics",
                "http://***@collector",
                "http://collector:4317/a@b",
                "collector:4317",
            ]
        );
    }

    #[tokio::test]
    async fn a_failed_exports_message_has_no_password() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let exporter = Exporter::Otlp {
            protocol: Protocol::HttpJson,
            endpoint: format!("http://user:s3cret@127.0.0.1:{port}/v1/metrics"),
        };
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth();
        let clients = Clients::new(Some(tls)).unwrap();
        let request =
            opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest::default();
        let payload = Payload {
            request: &request,
            grpc_path: "/x",
            headers: &[],
        };
        let err = send(&clients, &exporter, &payload).await.unwrap_err();
        let text = err.to_string();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(
            text.starts_with(&format!("http://***@127.0.0.1:{port}/v1/metrics: ")),
            "{text}"
        );
    }
}
