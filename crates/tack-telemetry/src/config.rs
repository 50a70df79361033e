//! Claude Code's telemetry variables (`CLAUDE_CODE_ENABLE_TELEMETRY`, the
//! `OTEL_*` ones) → a [`Config`], or `None`: telemetry off.

use std::time::Duration;

use percent_encoding::percent_decode_str;

/// How an OTLP exporter sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Grpc,
    HttpProtobuf,
    HttpJson,
}

/// Where one signal goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exporter {
    /// To a collector; `endpoint` is the whole URL (gRPC: the base, the
    /// service path is added).
    Otlp {
        protocol: Protocol,
        endpoint: String,
    },
    /// One JSON line per export on stderr (the OTLP/JSON request).
    Console,
}

/// Delta (Claude Code's default) or cumulative sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Temporality {
    Delta,
    Cumulative,
}

/// One signal's exporters and how often it is exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    pub exporters: Vec<Exporter>,
    pub interval: Duration,
}

/// What the variables ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub metrics: Signal,
    pub logs: Signal,
    /// `OTEL_EXPORTER_OTLP_HEADERS` (and the per-signal ones, which win).
    pub metrics_headers: Vec<(String, String)>,
    pub logs_headers: Vec<(String, String)>,
    /// `OTEL_RESOURCE_ATTRIBUTES`.
    pub resource: Vec<(String, String)>,
    pub temporality: Temporality,
    /// `OTEL_METRICS_INCLUDE_SESSION_ID` (default on).
    pub include_session_id: bool,
    /// `OTEL_METRICS_INCLUDE_VERSION` (default off).
    pub include_version: bool,
    /// `OTEL_METRICS_INCLUDE_ACCOUNT_UUID` (default on).
    pub include_account_uuid: bool,
    /// `OTEL_LOG_USER_PROMPTS=1`: the prompt's text in `user_prompt` events.
    pub log_user_prompts: bool,
    /// `OTEL_LOG_TOOL_DETAILS=1`: MCP tools' names in `tool_result` events.
    pub log_tool_details: bool,
    /// Exporter names that were not understood (`prometheus`, typos).
    pub unknown_exporters: Vec<String>,
}

fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

impl Config {
    /// `None` unless `CLAUDE_CODE_ENABLE_TELEMETRY` is truthy and some
    /// signal has an exporter. `get` sees the process environment with the
    /// settings' `env` applied.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Option<Config> {
        if !get("CLAUDE_CODE_ENABLE_TELEMETRY").is_some_and(|v| truthy(&v)) {
            return None;
        }
        let flag = |key: &str, default: bool| get(key).map_or(default, |v| truthy(&v));
        let mut unknown = Vec::new();
        let metrics = signal(&get, "METRICS", "metrics", 60_000, &mut unknown);
        let logs = signal(&get, "LOGS", "logs", 5_000, &mut unknown);
        if metrics.exporters.is_empty() && logs.exporters.is_empty() {
            return None;
        }
        let headers = |signal: &str| {
            let mut all = get("OTEL_EXPORTER_OTLP_HEADERS")
                .map(|h| pairs(&h))
                .unwrap_or_default();
            if let Some(own) = get(&format!("OTEL_EXPORTER_OTLP_{signal}_HEADERS")) {
                for (k, v) in pairs(&own) {
                    all.retain(|(key, _)| !key.eq_ignore_ascii_case(&k));
                    all.push((k, v));
                }
            }
            all
        };
        let temporality = match get("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE")
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("cumulative") => Temporality::Cumulative,
            _ => Temporality::Delta,
        };
        Some(Config {
            metrics,
            logs,
            metrics_headers: headers("METRICS"),
            logs_headers: headers("LOGS"),
            resource: get("OTEL_RESOURCE_ATTRIBUTES")
                .map(|r| pairs(&r))
                .unwrap_or_default(),
            temporality,
            include_session_id: flag("OTEL_METRICS_INCLUDE_SESSION_ID", true),
            include_version: flag("OTEL_METRICS_INCLUDE_VERSION", false),
            include_account_uuid: flag("OTEL_METRICS_INCLUDE_ACCOUNT_UUID", true),
            log_user_prompts: flag("OTEL_LOG_USER_PROMPTS", false),
            log_tool_details: flag("OTEL_LOG_TOOL_DETAILS", false),
            unknown_exporters: unknown,
        })
    }
}

/// One signal's exporters (`OTEL_<SIGNAL>_EXPORTER`, comma-separated),
/// protocol and endpoint (the per-signal variable, else the general one).
fn signal(
    get: &impl Fn(&str) -> Option<String>,
    upper: &str,
    path: &str,
    default_ms: u64,
    unknown: &mut Vec<String>,
) -> Signal {
    let interval_var = match upper {
        "METRICS" => "OTEL_METRIC_EXPORT_INTERVAL",
        _ => "OTEL_LOGS_EXPORT_INTERVAL",
    };
    let interval = get(interval_var)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .unwrap_or(default_ms);
    let protocol = match get(&format!("OTEL_EXPORTER_OTLP_{upper}_PROTOCOL"))
        .or_else(|| get("OTEL_EXPORTER_OTLP_PROTOCOL"))
        .map(|p| p.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("grpc") => Protocol::Grpc,
        Some("http/json") => Protocol::HttpJson,
        _ => Protocol::HttpProtobuf,
    };
    let endpoint = match get(&format!("OTEL_EXPORTER_OTLP_{upper}_ENDPOINT")) {
        Some(own) => own.trim().to_owned(),
        None => {
            let base = get("OTEL_EXPORTER_OTLP_ENDPOINT").unwrap_or_else(|| match protocol {
                Protocol::Grpc => "http://localhost:4317".to_owned(),
                Protocol::HttpProtobuf | Protocol::HttpJson => "http://localhost:4318".to_owned(),
            });
            let base = base.trim().trim_end_matches('/');
            match protocol {
                Protocol::Grpc => base.to_owned(),
                Protocol::HttpProtobuf | Protocol::HttpJson => format!("{base}/v1/{path}"),
            }
        }
    };
    let mut exporters = Vec::new();
    let names = get(&format!("OTEL_{upper}_EXPORTER")).unwrap_or_default();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name.to_ascii_lowercase().as_str() {
            "otlp" => exporters.push(Exporter::Otlp {
                protocol,
                endpoint: endpoint.clone(),
            }),
            "console" => exporters.push(Exporter::Console),
            "none" => {}
            _ => unknown.push(name.to_owned()),
        }
    }
    Signal {
        exporters,
        interval: Duration::from_millis(interval),
    }
}

/// `k=v,k2=v2` (OTel's list format: values percent-decoded).
fn pairs(list: &str) -> Vec<(String, String)> {
    list.split(',')
        .filter_map(|item| {
            let (k, v) = item.split_once('=')?;
            let k = k.trim();
            let v = percent_decode_str(v.trim()).decode_utf8_lossy();
            (!k.is_empty()).then(|| (k.to_owned(), v.into_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Option<Config> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::from_env(|k| map.get(k).cloned())
    }

    #[test]
    fn off_unless_enabled_and_exported() {
        assert_eq!(config(&[("OTEL_METRICS_EXPORTER", "otlp")]), None);
        assert_eq!(config(&[("CLAUDE_CODE_ENABLE_TELEMETRY", "1")]), None);
        assert_eq!(
            config(&[
                ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
                ("OTEL_METRICS_EXPORTER", "none"),
            ]),
            None
        );
    }

    #[test]
    fn endpoints_protocols_headers_and_resource() {
        let c = config(&[
            ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
            ("OTEL_METRICS_EXPORTER", "otlp,console,prometheus"),
            ("OTEL_LOGS_EXPORTER", "otlp"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://collector:4317"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Bearer%20t,x-a=1",
            ),
            ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "X-A=2"),
            ("OTEL_RESOURCE_ATTRIBUTES", "team=infra, dept=eng"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "1000"),
        ])
        .expect("on");
        assert_eq!(
            c.metrics,
            Signal {
                exporters: vec![
                    Exporter::Otlp {
                        protocol: Protocol::HttpJson,
                        endpoint: "http://collector:4318/v1/metrics".into()
                    },
                    Exporter::Console
                ],
                interval: Duration::from_millis(1000),
            }
        );
        assert_eq!(
            c.logs,
            Signal {
                exporters: vec![Exporter::Otlp {
                    protocol: Protocol::Grpc,
                    endpoint: "http://collector:4317".into()
                }],
                interval: Duration::from_millis(5000),
            }
        );
        let kv = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            c.metrics_headers,
            vec![kv("Authorization", "Bearer t"), kv("x-a", "1")]
        );
        assert_eq!(
            c.logs_headers,
            vec![kv("Authorization", "Bearer t"), kv("X-A", "2")]
        );
        assert_eq!(c.resource, vec![kv("team", "infra"), kv("dept", "eng")]);
        assert_eq!(c.temporality, Temporality::Delta);
        assert_eq!(c.unknown_exporters, vec!["prometheus".to_owned()]);
    }
}
