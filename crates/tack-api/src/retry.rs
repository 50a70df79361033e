//! The retry policy, and backoff: how long to wait before retry number `n`
//! (errors spec §5).

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// How often and how long the clients retry (`ClientConfig::retry`,
/// `OpenAiConfig::retry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (Claude Code: 10).
    pub max_retries: u32,
    /// First backoff delay; doubles each attempt, jittered.
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// A `retry-after` longer than this is not honoured as such (capped backoff instead).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 10,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(32),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// The server's requested wait: `retry-after-ms` (float milliseconds) preferred,
/// then `retry-after` (seconds, or an HTTP date).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The wait before retry `attempt` (1-based): the server's `retry_after` when it
/// is in (0, `max_retry_after`], else `base_delay · 2^(attempt-1)` capped at
/// `max_delay`, times a jitter factor in [0.75, 1].
pub(crate) fn delay(policy: &RetryPolicy, attempt: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(after) = retry_after.filter(|d| !d.is_zero() && *d <= policy.max_retry_after) {
        return after;
    }
    let exp = attempt.saturating_sub(1).min(30);
    let backoff = policy
        .base_delay
        .saturating_mul(1 << exp)
        .min(policy.max_delay);
    backoff.mul_f64(rand::random_range(0.75..=1.0))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(list: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in list {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_forms() {
        let in_90s = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(90));
        let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(90));
        let got = [
            retry_after(&headers(&[("retry-after", "3")])),
            retry_after(&headers(&[("retry-after", "1.5")])),
            retry_after(&headers(&[
                ("retry-after-ms", "250.5"),
                ("retry-after", "3"),
            ])),
            retry_after(&headers(&[("retry-after", &past)])),
            retry_after(&headers(&[("retry-after", "soon")])),
            retry_after(&headers(&[("retry-after", "-1")])),
            retry_after(&headers(&[])),
        ];
        let expected = [
            Some(Duration::from_secs(3)),
            Some(Duration::from_millis(1500)),
            Some(Duration::from_micros(250_500)),
            Some(Duration::ZERO),
            None,
            None,
            None,
        ];
        assert_eq!(got, expected);
        let date = retry_after(&headers(&[("retry-after", &in_90s)])).unwrap();
        assert!(
            date > Duration::from_secs(85) && date <= Duration::from_secs(90),
            "{date:?}"
        );
    }

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        let policy = RetryPolicy {
            max_retries: 10,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        };
        for (attempt, nominal) in [
            (1, 500),
            (2, 1000),
            (3, 2000),
            (4, 4000),
            (5, 8000),
            (9, 8000),
            (99, 8000),
        ] {
            for _ in 0..50 {
                let d = delay(&policy, attempt, None).as_millis() as u64;
                assert!(
                    d >= nominal * 3 / 4 && d <= nominal,
                    "attempt {attempt}: {d} ms"
                );
            }
        }
    }

    #[test]
    fn honours_retry_after_within_limit_only() {
        let policy = RetryPolicy {
            max_delay: Duration::from_secs(8),
            ..RetryPolicy::default()
        };
        assert_eq!(
            delay(&policy, 1, Some(Duration::from_secs(20))),
            Duration::from_secs(20)
        );
        assert_eq!(
            delay(&policy, 3, Some(Duration::from_millis(7))),
            Duration::from_millis(7)
        );
        // Too long or zero: ordinary backoff instead.
        assert!(delay(&policy, 1, Some(Duration::from_secs(3600))) <= Duration::from_millis(500));
        assert!(delay(&policy, 1, Some(Duration::ZERO)) >= Duration::from_millis(375));
    }
}
