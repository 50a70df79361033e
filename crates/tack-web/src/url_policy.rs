//! Which URL WebFetch requests, and which redirects it follows.
//!
//! - `http://` is upgraded to `https://`, except for loopback hosts (`localhost`,
//!   127.0.0.0/8, `::1`): local dev servers and docs rarely speak TLS, and
//!   nothing on the way to them can read the traffic anyway.
//! - A redirect is followed only to the same host and port (and never from
//!   https down to http). A redirect elsewhere is reported to the model, which
//!   must fetch the target itself: that second call goes through the permission
//!   check for the new domain (`WebFetch(domain:...)`), which following it here
//!   would skip. Hosts compare as written: `localhost` and `127.0.0.1` differ.

use std::net::Ipv6Addr;

use url::{Host, Url};

/// Longer URLs are refused (Claude Code's limit).
pub const MAX_URL_LEN: usize = 2000;

/// Why a URL cannot be fetched; the message is for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("the URL is {0} characters long; at most {MAX_URL_LEN} are accepted")]
    TooLong(usize),
    #[error(
        "`{url}` is not a valid URL ({reason}); give a fully-formed URL such as https://example.com/page"
    )]
    Invalid { url: String, reason: String },
    #[error("`{0}` URLs cannot be fetched: only http and https are supported")]
    Scheme(String),
    #[error("URLs with a user name or password are not fetched")]
    Credentials,
    #[error("`{0}` has no host name")]
    NoHost(String),
}

/// The URL to request for `raw`: checked, without its fragment, and upgraded to
/// https unless the host is loopback.
pub fn fetch_url(raw: &str) -> Result<Url, UrlError> {
    if raw.len() > MAX_URL_LEN {
        return Err(UrlError::TooLong(raw.len()));
    }
    let mut url = Url::parse(raw.trim()).map_err(|e| UrlError::Invalid {
        url: raw.to_owned(),
        reason: e.to_string(),
    })?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(UrlError::Scheme(other.to_owned())),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlError::Credentials);
    }
    let Some(host) = url.host() else {
        return Err(UrlError::NoHost(raw.to_owned()));
    };
    if url.scheme() == "http" && !is_loopback(&host) {
        // Cannot fail: both schemes are "special" and the URL has a host.
        let _ = url.set_scheme("https");
    }
    url.set_fragment(None);
    Ok(url)
}

/// `localhost` (or `localhost.`), 127.0.0.0/8, `::1` and `::ffff:127.x.x.x`.
pub(crate) fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => name.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback() || mapped_v4_loopback(ip),
    }
}

fn mapped_v4_loopback(ip: &Ipv6Addr) -> bool {
    ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
}

/// Whether a redirect from `from` to `to` may be followed without asking the
/// model: same host and port, no credentials, and not a downgrade to http.
pub(crate) fn may_follow(from: &Url, to: &Url) -> bool {
    let scheme_ok = match (from.scheme(), to.scheme()) {
        (a, b) if a == b => true,
        ("http", "https") => true,
        _ => false,
    };
    // On an http -> https upgrade the default ports differ (80, 443) but mean
    // the same server; explicit ports must match either way.
    let same_port = if from.scheme() == to.scheme() {
        from.port_or_known_default() == to.port_or_known_default()
    } else {
        from.port() == to.port()
    };
    scheme_ok
        && same_port
        && to.username().is_empty()
        && to.password().is_none()
        && from.host_str().is_some()
        && from.host_str() == to.host_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn fetched(raw: &str) -> String {
        fetch_url(raw)
            .map(String::from)
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn http_is_upgraded_except_for_loopback() {
        assert_eq!(
            fetched("http://example.com/a?b=1#frag"),
            "https://example.com/a?b=1"
        );
        assert_eq!(fetched("http://docs.rs:8080/x"), "https://docs.rs:8080/x");
        assert_eq!(fetched("https://example.com"), "https://example.com/");
        assert_eq!(fetched("http://localhost:3000/"), "http://localhost:3000/");
        assert_eq!(fetched("http://LOCALHOST./"), "http://localhost./");
        assert_eq!(
            fetched("http://127.0.0.1:8000/docs"),
            "http://127.0.0.1:8000/docs"
        );
        assert_eq!(fetched("http://127.9.8.7/"), "http://127.9.8.7/");
        assert_eq!(fetched("http://[::1]:9000/"), "http://[::1]:9000/");
        assert_eq!(
            fetched("http://[::ffff:127.0.0.1]/"),
            "http://[::ffff:7f00:1]/"
        );
        // Near misses are not loopback.
        assert_eq!(fetched("http://128.0.0.1/"), "https://128.0.0.1/");
        assert_eq!(
            fetched("http://localhost.example.com/"),
            "https://localhost.example.com/"
        );
        assert_eq!(fetched("http://[::2]/"), "https://[::2]/");
    }

    #[test]
    fn unusable_urls_are_refused_with_a_reason() {
        assert_eq!(
            fetch_url("ftp://example.com/f"),
            Err(UrlError::Scheme("ftp".into()))
        );
        assert_eq!(
            fetch_url("https://user:pw@example.com/"),
            Err(UrlError::Credentials)
        );
        assert!(matches!(
            fetch_url("example.com"),
            Err(UrlError::Invalid { .. })
        ));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_LEN));
        assert_eq!(fetch_url(&long), Err(UrlError::TooLong(long.len())));
    }

    #[test]
    fn redirects_are_followed_only_on_the_same_host_and_port() {
        let u = |s: &str| Url::parse(s).unwrap();
        let from = u("http://127.0.0.1:8080/a");
        assert!(may_follow(&from, &u("http://127.0.0.1:8080/b")));
        assert!(!may_follow(&from, &u("http://localhost:8080/b")));
        assert!(!may_follow(&from, &u("http://127.0.0.1:8081/b")));
        assert!(!may_follow(&from, &u("http://u:p@127.0.0.1:8080/b")));
        let from = u("https://example.com/a");
        assert!(may_follow(&from, &u("https://EXAMPLE.com:443/b")));
        assert!(!may_follow(&from, &u("http://example.com/b")));
        assert!(!may_follow(&from, &u("https://www.example.com/b")));
        assert!(may_follow(
            &u("http://example.com/"),
            &u("https://example.com/")
        ));
        assert!(may_follow(
            &u("http://localhost:81/"),
            &u("https://localhost:81/")
        ));
        assert!(!may_follow(
            &u("http://localhost:81/"),
            &u("https://localhost/")
        ));
    }
}
