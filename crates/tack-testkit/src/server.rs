//! The HTTP server: routing, recording, auth, and turning replies into responses.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use axum::serve::ListenerExt;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::cache_sim::{CacheSim, PromptUsage};
use crate::cloud;
use crate::openai::{self, Api};
use crate::playback::{self, Step, Streams};
use crate::reply::{ErrorReply, MessageReply, Reply, StreamEnd};
use crate::request::RecordedRequest;
use crate::script::{ReplyQueue, Script};
use crate::sse::{error_event, message_events};
use crate::wire::{self, MessageMeta, Usage};

/// The API's request size limit; larger bodies get 413 like the real CDN gives.
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// Model reported when neither the reply nor the request names one.
const FALLBACK_MODEL: &str = "claude-mock";

/// Server behaviour that is not part of the script.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// When set, every request must carry `x-api-key: KEY` or
    /// `Authorization: Bearer KEY`; otherwise it gets 401 `authentication_error`
    /// and consumes no reply.
    pub require_api_key: Option<String>,
}

/// A running mock of the Anthropic API on `127.0.0.1`.
///
/// It serves from a background task on the current tokio runtime until it is
/// dropped; dropping stops accepting connections and lets in-flight responses finish.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
}

struct Shared {
    options: Options,
    state: Mutex<ServerState>,
    /// Streamed replies the client hung up on, and when the others ended.
    streams: Arc<Streams>,
}

struct ServerState {
    queue: ReplyQueue,
    requests: Vec<RecordedRequest>,
    cache: CacheSim,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, ServerState> {
        // A panicking test thread must not take the server down with it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MockServer {
    /// Binds `127.0.0.1:0` and serves `script` with no auth check.
    pub async fn start(script: Script) -> std::io::Result<MockServer> {
        MockServer::start_with(script, Options::default()).await
    }

    /// Binds `127.0.0.1:0` and serves `script` with `options`.
    pub async fn start_with(script: Script, options: Options) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        MockServer::start_on(listener, script, options).await
    }

    /// Serves on an already bound listener (e.g. a fixed port for the binary).
    pub async fn start_on(
        listener: TcpListener,
        script: Script,
        options: Options,
    ) -> std::io::Result<MockServer> {
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            streams: Arc::default(),
            options,
            state: Mutex::new(ServerState {
                queue: ReplyQueue::new(script),
                requests: Vec::new(),
                cache: CacheSim::default(),
            }),
        });
        let router = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let (shutdown, stop) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let stop = async {
                // A dropped sender means the same as an explicit stop.
                let _ = stop.await;
            };
            // Serving only ends on shutdown; an accept error has nobody to report to.
            // TCP_NODELAY, as the clients set it: no Nagle delay between events.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(stop)
                .await;
        });
        Ok(MockServer {
            addr,
            shared,
            shutdown: Some(shutdown),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in arrival order (including rejected ones).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Gives the route with `marker` (see [`Script::routed`]) these replies
    /// from now on, replacing what was left of its queue.
    pub fn set_route(&self, marker: &str, replies: Vec<Reply>) {
        self.shared
            .lock()
            .queue
            .set_route(marker.to_owned(), replies);
    }

    /// Appends a reply to the end of the script.
    pub fn push(&self, response: Reply) {
        self.shared.lock().queue.push(response);
    }

    /// Streamed replies the client hung up on before their last event (an
    /// interrupted turn, a cancelled request). Scripted cuts do not count. The
    /// server notices a hang-up when it next writes, so within one pacing
    /// interval: wait with [`MockServer::wait_abandoned_streams`].
    pub fn abandoned_streams(&self) -> usize {
        *self.shared.streams.abandoned.borrow()
    }

    /// When each streamed reply that played to its end handed over its last
    /// event (wall clock, in the order they ended). With one request at a
    /// time, `requests()[i + 1].received_at` minus the `i`-th end is the
    /// client's time from `message_stop` to its next request.
    pub fn stream_ends(&self) -> Vec<std::time::SystemTime> {
        self.shared
            .streams
            .ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Returns once at least `n` streams have been abandoned.
    pub async fn wait_abandoned_streams(&self, n: usize) {
        let mut count = self.shared.streams.abandoned.subscribe();
        // The sender lives in `shared`, which `self` holds: it cannot close.
        let _ = count.wait_for(|count| *count >= n).await;
    }

    /// Scripted replies not yet consumed (for a looping script: left in this pass).
    pub fn remaining(&self) -> usize {
        self.shared.lock().queue.remaining()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            // The server task may already be gone with its runtime; nothing to stop then.
            let _ = shutdown.send(());
        }
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let received_at = std::time::SystemTime::now();
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await;
    let (bytes, read_failed) = match bytes {
        Ok(bytes) => (bytes, false),
        Err(_) => (Bytes::new(), true),
    };
    let form = parts.headers.get(header::CONTENT_TYPE).is_some_and(|v| {
        v.as_bytes()
            .starts_with(b"application/x-www-form-urlencoded")
    });
    let body_json: Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(_) if form => cloud::form_json(&bytes),
        Err(_) => Value::Null,
    };
    let recorded = RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_owned(), value)
            })
            .collect(),
        body: body_json.clone(),
        received_at,
    };
    let request_id = {
        let mut state = shared.lock();
        state.requests.push(recorded);
        format!("req_mock_{}", state.requests.len())
    };
    let error = |status: u16, error_type: &str, message: &str| {
        error_response(&ErrorReply::new(status, error_type, message), &request_id)
    };

    if read_failed {
        return error(
            400,
            "invalid_request_error",
            "tack-testkit: could not read the request body",
        );
    }
    if bytes.len() > MAX_BODY_BYTES {
        return error(
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
        );
    }
    if let Some(key) = &shared.options.require_api_key
        && !has_api_key(&parts.headers, key)
    {
        return error(401, "authentication_error", "invalid x-api-key");
    }
    if parts.method == Method::POST
        && let Some(route) = cloud::route(parts.uri.path())
    {
        return cloud_request(&shared, route, &parts.headers, body_json, &request_id).await;
    }
    match (&parts.method, parts.uri.path()) {
        (&Method::POST, "/v1/messages") => {
            if !body_json.is_object() {
                return error(
                    400,
                    "invalid_request_error",
                    "tack-testkit: request body is not a JSON object",
                );
            }
            create_message(&shared, &body_json, &request_id, Wire::Anthropic).await
        }
        (&Method::POST, path @ ("/v1/chat/completions" | "/v1/responses")) => {
            let api = if path == "/v1/responses" {
                Api::Responses
            } else {
                Api::Chat
            };
            create_openai(&shared, api, &body_json, &request_id).await
        }
        (&Method::POST, "/v1/messages/count_tokens") => {
            let body = json!({"input_tokens": bytes.len() / 4}).to_string();
            with_headers(
                Response::new(Body::from(body)),
                StatusCode::OK,
                "application/json",
                &request_id,
                &[],
            )
        }
        (method, path) => error(
            404,
            "not_found_error",
            &format!("tack-testkit: no route for {method} {path}"),
        ),
    }
}

/// How a message reply goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    /// The Messages API (and Vertex): SSE when the body asks for a stream.
    Anthropic,
    /// Bedrock's `invoke-with-response-stream`: event-stream, AWS errors.
    Bedrock,
}

/// A request on a cloud platform's route (`cloud.rs`).
async fn cloud_request(
    shared: &Shared,
    route: cloud::Route,
    headers: &axum::http::HeaderMap,
    mut body: Value,
    request_id: &str,
) -> Response {
    let (model, wire) = match route {
        cloud::Route::Token => {
            let n = shared.lock().requests.len();
            return cloud::token_response(n);
        }
        cloud::Route::Bedrock { model } => {
            if let Some(problem) = cloud::sigv4_problem(headers) {
                return cloud::aws_error(403, "InvalidSignatureException", &problem);
            }
            (model, Wire::Bedrock)
        }
        cloud::Route::Vertex { model } => (model, Wire::Anthropic),
    };
    let Some(map) = body.as_object_mut() else {
        return error_response(
            &ErrorReply::new(
                400,
                "invalid_request_error",
                "tack-testkit: body is not a JSON object",
            ),
            request_id,
        );
    };
    map.insert("model".into(), model.into());
    create_message(shared, &body, request_id, wire).await
}

/// Consumes the next reply: a message with its meta, or the error to answer
/// with (a scripted one, or 500 `exhausted_type` once the script ran out).
fn next_message(
    shared: &Shared,
    request: &Value,
    exhausted_type: &str,
) -> Result<(MessageReply, MessageMeta), ErrorReply> {
    let mut state = shared.lock();
    match state.queue.next_for(request) {
        Ok((Reply::Message(message), seq)) => {
            let prompt = state.cache.observe(request);
            let meta = message_meta(&message, seq, prompt, request);
            Ok((message, meta))
        }
        Ok((Reply::Error(reply), _)) => Err(reply),
        Err(consumed) => {
            let message = format!("tack-testkit: script exhausted after {consumed} replies");
            let mut reply = ErrorReply::new(500, exhausted_type, &message);
            // Stops SDK-style clients from retrying a test into a timeout.
            reply
                .headers
                .push(("x-should-retry".into(), "false".into()));
            Err(reply)
        }
    }
}

/// Consumes the next reply for a `POST /v1/messages` whose body is a JSON object.
async fn create_message(
    shared: &Shared,
    request: &Value,
    request_id: &str,
    wire: Wire,
) -> Response {
    let error_response = |reply: &ErrorReply, request_id: &str| match wire {
        Wire::Anthropic => error_response(reply, request_id),
        Wire::Bedrock => cloud::aws_error(reply.status, &reply.error_type, &reply.message),
    };
    let (message, meta) = match next_message(shared, request, "api_error") {
        Ok(next) => next,
        Err(reply) => return error_response(&reply, request_id),
    };
    if wire == Wire::Bedrock {
        let events = message_events(&message, &meta);
        let steps = playback::steps(&message, &events, error_event, cloud::encode_event);
        return streamed(
            steps,
            &shared.streams,
            "application/vnd.amazon.eventstream",
            request_id,
            &message.headers,
        );
    }
    let stream = request.get("stream").and_then(Value::as_bool) == Some(true);
    message_response(&message, &meta, stream, request_id, &shared.streams).await
}

/// The next reply, as a streamed OpenAI answer (`api`) or an OpenAI error body.
async fn create_openai(shared: &Shared, api: Api, request: &Value, request_id: &str) -> Response {
    let (message, meta) = match next_message(shared, request, "server_error") {
        Ok(next) => next,
        Err(reply) => return openai_error(&reply, request_id),
    };
    let events = openai::events(api, &message, &meta, request);
    let steps = playback::sse_steps(&message, &events, |kind, text| {
        openai::error_event(api, kind, text)
    });
    streamed(
        steps,
        &shared.streams,
        "text/event-stream",
        request_id,
        &message.headers,
    )
}

fn openai_error(reply: &ErrorReply, request_id: &str) -> Response {
    let body = openai::error_body(&reply.error_type, &reply.message);
    json_error(reply, &body, request_id)
}

fn has_api_key(headers: &axum::http::HeaderMap, key: &str) -> bool {
    let api_key = headers.get("x-api-key").map(HeaderValue::as_bytes);
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "));
    api_key == Some(key.as_bytes()) || bearer == Some(key.as_bytes())
}

fn message_meta(
    message: &MessageReply,
    seq: usize,
    prompt: PromptUsage,
    request: &Value,
) -> MessageMeta {
    let (input_tokens, output_tokens) = message
        .usage
        .unwrap_or((prompt.input_tokens, message.estimated_output_tokens()));
    let simulated_cache = match message.usage {
        Some(_) => (0, 0),
        None => (
            prompt.cache_creation_input_tokens,
            prompt.cache_read_input_tokens,
        ),
    };
    let (cache_creation_input_tokens, cache_read_input_tokens) =
        message.cache.unwrap_or(simulated_cache);
    let model = message
        .model
        .as_deref()
        .or_else(|| request.get("model").and_then(Value::as_str))
        .unwrap_or(FALLBACK_MODEL);
    MessageMeta {
        id: format!("msg_mock_{seq}"),
        model: model.to_owned(),
        usage: Usage {
            input_tokens,
            cache_creation_input_tokens,
            cache_read_input_tokens,
            output_tokens,
        },
        usage_fields: message.usage_fields.clone(),
    }
}

async fn message_response(
    message: &MessageReply,
    meta: &MessageMeta,
    stream: bool,
    request_id: &str,
    streams: &Arc<Streams>,
) -> Response {
    if stream {
        let steps = playback::sse_steps(message, &message_events(message, meta), error_event);
        return streamed(
            steps,
            streams,
            "text/event-stream",
            request_id,
            &message.headers,
        );
    }
    if let Some((_, duration)) = message.stall {
        tokio::time::sleep(duration).await;
    }
    let json = wire::complete_message_json(message, meta).to_string();
    let body = match &message.end {
        None => Body::from(json),
        Some(StreamEnd::Cut { .. }) => {
            let json = Bytes::from(json);
            playback::body(
                vec![Step::Send(json.slice(..json.len() / 2)), Step::Abort],
                None,
            )
        }
        Some(StreamEnd::Error {
            error_type,
            message: text,
            ..
        }) => {
            let status = wire::status_for_error_type(error_type);
            let mut reply = ErrorReply::new(status, error_type, text);
            reply.headers = message.headers.clone();
            return error_response(&reply, request_id);
        }
    };
    with_headers(
        Response::new(body),
        StatusCode::OK,
        "application/json",
        request_id,
        &message.headers,
    )
}

fn error_response(reply: &ErrorReply, request_id: &str) -> Response {
    let body = wire::error_body(&reply.error_type, &reply.message, request_id);
    json_error(reply, &body, request_id)
}

/// A scripted error: its status and headers, `body` as JSON.
fn json_error(reply: &ErrorReply, body: &Value, request_id: &str) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    with_headers(
        Response::new(Body::from(body.to_string())),
        status,
        "application/json",
        request_id,
        &reply.headers,
    )
}

/// A streamed reply played by `steps` (abandoned streams counted).
fn streamed(
    steps: Vec<Step>,
    streams: &Arc<Streams>,
    content_type: &'static str,
    request_id: &str,
    headers: &[(String, String)],
) -> Response {
    with_headers(
        Response::new(playback::body(steps, Some(Arc::clone(streams)))),
        StatusCode::OK,
        content_type,
        request_id,
        headers,
    )
}

/// Sets status and headers; scripted headers that are not valid HTTP are skipped.
fn with_headers(
    mut response: Response,
    status: StatusCode,
    content_type: &'static str,
    request_id: &str,
    extra: &[(String, String)],
) -> Response {
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if content_type == "text/event-stream" {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    if let Ok(value) = HeaderValue::from_str(request_id) {
        headers.insert("request-id", value);
    }
    for (name, value) in extra {
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            headers.append(name, value);
        }
    }
    response
}
