//! OpenTelemetry export as Claude Code does it, so that dashboards made for
//! Claude Code read tack's sessions: its counters (`claude_code.*` sums) and
//! events (OTLP log records), over OTLP gRPC, http/protobuf or http/json, or
//! as JSON lines on stderr (`console`).
//!
//! The model: a session's owner builds a [`Config`] from the environment
//! (`None`: telemetry is off and nothing here runs), then
//! [`Telemetry::start`] spawns one task on the caller's tokio runtime. The
//! owner records into the handle ([`Telemetry::add`], [`Telemetry::event`]:
//! a mutex and a map, never I/O); the task exports what was recorded every
//! interval (metrics `OTEL_METRIC_EXPORT_INTERVAL`, events
//! `OTEL_LOGS_EXPORT_INTERVAL`) and once more on [`Telemetry::flush`] at the
//! session's end, which waits at most the time it is given. A collector that
//! is down costs one warning (through the owner's callback) and nothing
//! else: a failed export is dropped, never retried, never blocks a session.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - OpenTelemetry export (off unless `CLAUDE_CODE_ENABLE_TELEMETRY`): the variables →
//!   `Config`, Claude Code's counters and events recorded into a handle (no I/O), one task
//!   exporting each interval and on the session end's flush (2 s at most), OTLP requests from
//!   the official `opentelemetry-proto` messages, sent as http/protobuf, http/json or gRPC
//!   (HTTP/2 POST, 5-byte frame, `grpc-status` from the trailers) over reqwest, or as JSON
//!   lines on stderr: `tack-telemetry/src/{config,record,encode,export,lib}.rs`
//! - `otelHeadersHelper`'s headers over the configured ones, asked again after a debounce:
//!   `tack-telemetry/src/headers.rs`

mod config;
mod encode;
mod export;
mod headers;
mod record;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use opentelemetry_proto::tonic::resource::v1::Resource;
use tokio::sync::{mpsc, oneshot};

pub use config::{Config, Exporter, Protocol, Signal, Temporality};
pub use export::ExportError;
pub use headers::HeadersHelper;
pub use record::{Attrs, Event, Metric, iso_timestamp, now_ns};

use export::{Clients, Payload};
use headers::DynamicHeaders;
use record::Record;

const METRICS_PATH: &str = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export";
const LOGS_PATH: &str = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";

/// A running exporter; cheap to clone.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

type Warn = Box<dyn Fn(String) + Send + Sync>;

struct Inner {
    config: Config,
    version: String,
    resource: Resource,
    record: Mutex<Record>,
    flushes: mpsc::UnboundedSender<oneshot::Sender<()>>,
    warned: AtomicBool,
    warn: Warn,
}

impl Telemetry {
    /// Spawns the export task (call within a tokio runtime). `version` is
    /// `service.version`; `tls` the product's rustls configuration for
    /// `https` collectors; `helper` gives headers over the configured ones,
    /// asked again when the duration has passed (`otelHeadersHelper`);
    /// `warn` is called once at the first failed export, and at each failure
    /// of the helper.
    pub fn start(
        config: Config,
        version: &str,
        tls: Option<rustls::ClientConfig>,
        helper: Option<(HeadersHelper, Duration)>,
        warn: impl Fn(String) + Send + Sync + 'static,
    ) -> Result<Telemetry, reqwest::Error> {
        let clients = Clients::new(tls)?;
        let (flushes, requests) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            resource: encode::resource(version, &config.resource),
            config,
            version: version.to_owned(),
            record: Mutex::new(Record::default()),
            flushes,
            warned: AtomicBool::new(false),
            warn: Box::new(warn),
        });
        let dynamic = helper.map(|(helper, every)| DynamicHeaders::new(helper, every));
        tokio::spawn(run(Arc::downgrade(&inner), clients, dynamic, requests));
        Ok(Telemetry { inner })
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    fn record(&self) -> std::sync::MutexGuard<'_, Record> {
        self.inner
            .record
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The standard attributes (`session.id`, `terminal.type`, ...) put
    /// first on every later point and event.
    pub fn set_standard(&self, attrs: Attrs) {
        self.record().standard = attrs;
    }

    /// Adds `value` to `metric`'s sum for `attrs` (after the standard ones).
    pub fn add(&self, metric: Metric, value: f64, attrs: &[(&str, String)]) {
        if self.inner.config.metrics.exporters.is_empty() {
            return;
        }
        let mut record = self.record();
        let mut key = record.standard.clone();
        key.extend(attrs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        *record.sums.entry((metric, key)).or_insert(0.0) += value;
    }

    /// Records the event `claude_code.<name>` with `event.name`,
    /// `event.timestamp` and `attrs`.
    pub fn event(&self, name: &str, attrs: Vec<(&str, String)>) {
        if self.inner.config.logs.exporters.is_empty() {
            return;
        }
        let time_ns = now_ns();
        let mut record = self.record();
        let mut attributes = record.standard.clone();
        attributes.push(("event.name".into(), name.to_owned()));
        attributes.push(("event.timestamp".into(), iso_timestamp(time_ns)));
        attributes.extend(attrs.into_iter().map(|(k, v)| (k.to_owned(), v)));
        record.events.push(Event {
            time_ns,
            body: format!("claude_code.{name}"),
            attributes,
        });
    }

    /// Exports what is recorded now and waits for it, `limit` at most.
    pub async fn flush(&self, limit: Duration) {
        let (tx, rx) = oneshot::channel();
        if self.inner.flushes.send(tx).is_ok() {
            let _ = tokio::time::timeout(limit, rx).await;
        }
    }
}

/// The export task: every interval, and on each flush request. It ends
/// when the last handle is dropped.
async fn run(
    inner: Weak<Inner>,
    clients: Clients,
    mut dynamic: Option<DynamicHeaders>,
    mut requests: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
) {
    let Some(config) = inner.upgrade().map(|i| i.config.clone()) else {
        return;
    };
    let start_ns = now_ns();
    let mut last_ns = start_ns;
    let mut metrics_tick = tokio::time::interval(config.metrics.interval);
    let mut logs_tick = tokio::time::interval(config.logs.interval);
    // The first tick of an interval is immediate: nothing to send yet.
    metrics_tick.tick().await;
    logs_tick.tick().await;
    refresh(&inner, dynamic.as_mut()).await;
    loop {
        let (metrics, logs, reply) = tokio::select! {
            _ = metrics_tick.tick() => (true, false, None),
            _ = logs_tick.tick() => (false, true, None),
            request = requests.recv() => match request {
                Some(reply) => (true, true, Some(reply)),
                None => return,
            },
        };
        refresh(&inner, dynamic.as_mut()).await;
        let Some(inner) = inner.upgrade() else { return };
        let dynamic = dynamic.as_ref();
        if metrics {
            let headers = with_dynamic(&inner.config.metrics_headers, dynamic);
            export_metrics(&inner, &clients, &headers, start_ns, &mut last_ns).await;
        }
        if logs {
            let headers = with_dynamic(&inner.config.logs_headers, dynamic);
            export_logs(&inner, &clients, &headers).await;
        }
        if let Some(reply) = reply {
            let _ = reply.send(());
        }
    }
}

/// Asks the headers helper if it is due; a failure is a warning.
async fn refresh(inner: &Weak<Inner>, dynamic: Option<&mut DynamicHeaders>) {
    let Some(dynamic) = dynamic else { return };
    if let Some(why) = dynamic.refresh().await
        && let Some(inner) = inner.upgrade()
    {
        (inner.warn)(format!("otelHeadersHelper: {why}"));
    }
}

fn with_dynamic(
    configured: &[(String, String)],
    dynamic: Option<&DynamicHeaders>,
) -> Vec<(String, String)> {
    match dynamic {
        Some(d) => d.over(configured),
        None => configured.to_vec(),
    }
}

async fn export_metrics(
    inner: &Inner,
    clients: &Clients,
    headers: &[(String, String)],
    start_ns: u64,
    last_ns: &mut u64,
) {
    let now = now_ns();
    let request = {
        let mut record = inner.record.lock().unwrap_or_else(PoisonError::into_inner);
        if record.sums.is_empty() {
            return;
        }
        let (sums, from) = match inner.config.temporality {
            Temporality::Delta => (std::mem::take(&mut record.sums), *last_ns),
            Temporality::Cumulative => (record.sums.clone(), start_ns),
        };
        let c = &inner.config;
        encode::metrics(
            &inner.resource,
            &inner.version,
            &sums,
            c.temporality,
            (from, now),
        )
    };
    *last_ns = now;
    let payload = Payload {
        request: &request,
        grpc_path: METRICS_PATH,
        headers,
    };
    for exporter in &inner.config.metrics.exporters {
        if let Err(e) = export::send(clients, exporter, &payload).await {
            warn_once(inner, e);
        }
    }
}

async fn export_logs(inner: &Inner, clients: &Clients, headers: &[(String, String)]) {
    let events = std::mem::take(
        &mut inner
            .record
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .events,
    );
    if events.is_empty() {
        return;
    }
    let request = encode::logs(&inner.resource, &inner.version, &events);
    let payload = Payload {
        request: &request,
        grpc_path: LOGS_PATH,
        headers,
    };
    for exporter in &inner.config.logs.exporters {
        if let Err(e) = export::send(clients, exporter, &payload).await {
            warn_once(inner, e);
        }
    }
}

fn warn_once(inner: &Inner, error: ExportError) {
    if !inner.warned.swap(true, Ordering::Relaxed) {
        (inner.warn)(format!("telemetry export failed: {error}"));
    }
}
