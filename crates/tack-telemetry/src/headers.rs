//! `otelHeadersHelper`: headers a command of the owner's gives the OTLP
//! exporters, over the configured ones (a name they share, in any case, is
//! the helper's). The helper is asked when the exporting task starts, then
//! again before an export once `every` has passed since it last answered
//! (Claude Code's debounce); a failure keeps the last headers and becomes a
//! warning, which never holds a header value.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The owner's helper: the headers, or why there are none (a message that
/// holds no header value).
pub type HeadersHelper = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<Vec<(String, String)>, String>> + Send>>
        + Send
        + Sync,
>;

/// The helper and what it last said.
pub(crate) struct DynamicHeaders {
    helper: HeadersHelper,
    every: Duration,
    current: Vec<(String, String)>,
    asked: Option<Instant>,
}

impl DynamicHeaders {
    pub(crate) fn new(helper: HeadersHelper, every: Duration) -> DynamicHeaders {
        DynamicHeaders {
            helper,
            every,
            current: Vec::new(),
            asked: None,
        }
    }

    /// Asks the helper if it is due: the warning of a failure.
    pub(crate) async fn refresh(&mut self) -> Option<String> {
        if self.asked.is_some_and(|at| at.elapsed() < self.every) {
            return None;
        }
        self.asked = Some(Instant::now());
        match (self.helper)().await {
            Ok(headers) => {
                self.current = headers;
                None
            }
            Err(why) => Some(why),
        }
    }

    /// `configured` with the helper's headers over it.
    pub(crate) fn over(&self, configured: &[(String, String)]) -> Vec<(String, String)> {
        let mut all: Vec<(String, String)> = configured
            .iter()
            .filter(|(k, _)| !self.current.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)))
            .cloned()
            .collect();
        all.extend(self.current.iter().cloned());
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn the_helpers_headers_win_and_it_is_asked_again_when_due() {
        let calls = Arc::new(AtomicU32::new(0));
        let counted = Arc::clone(&calls);
        let helper: HeadersHelper = Arc::new(move || {
            let n = counted.fetch_add(1, Ordering::Relaxed);
            Box::pin(async move {
                match n {
                    0 => Ok(vec![("authorization".to_owned(), "Bearer one".to_owned())]),
                    _ => Err("exited with status 1".to_owned()),
                }
            })
        });
        let configured = vec![
            ("Authorization".to_owned(), "Bearer static".to_owned()),
            ("X-Team".to_owned(), "a".to_owned()),
        ];
        let mut d = DynamicHeaders::new(helper, Duration::from_millis(50));
        assert_eq!(d.refresh().await, None);
        assert_eq!(d.refresh().await, None);
        assert_eq!(calls.load(Ordering::Relaxed), 1);
        let expected = vec![
            ("X-Team".to_owned(), "a".to_owned()),
            ("authorization".to_owned(), "Bearer one".to_owned()),
        ];
        assert_eq!(d.over(&configured), expected);
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(d.refresh().await, Some("exited with status 1".to_owned()));
        assert_eq!(d.over(&configured), expected);
    }
}
