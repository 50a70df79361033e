//! Destination hosts and the domain patterns of `allowedDomains` /
//! `deniedDomains`, as Claude Code's sandbox reads them:
//!
//! - `example.com` matches that host only;
//! - `*.example.com` matches every subdomain at any depth (`api.example.com`,
//!   `a.b.example.com`) but **not** the apex `example.com` (as Anthropic's
//!   sandbox-runtime does: list both to allow both);
//! - an optional `:port` suffix (`example.com:8443`, `[::1]:8080`) limits an
//!   entry to that port; without one it matches every port;
//! - case-insensitive, and a trailing dot (`example.com.`) is ignored, on both
//!   sides;
//! - an IP address is compared as an address (`::1` and `0:0::1` are the same),
//!   and never matches a wildcard;
//! - anything else (`*`, `*example.com`, `a.*.com`, an empty string) matches
//!   nothing.

use std::net::IpAddr;

/// The longest host name DNS can carry.
const MAX_NAME: usize = 253;
const MAX_LABEL: usize = 63;

/// A destination host in canonical form: a lower-case DNS name without
/// trailing dot, or an IP address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host {
    Name(String),
    Ip(IpAddr),
}

impl Host {
    /// Reads a host as a client sent it (a CONNECT authority's host part, an
    /// absolute URL's, a SOCKS5 domain or address). `None` for anything that
    /// is not a plausible DNS name or IP address: the input is hostile.
    pub(crate) fn parse(raw: &str) -> Option<Host> {
        let raw = raw.strip_suffix('.').unwrap_or(raw);
        let unbracketed = raw
            .strip_prefix('[')
            .and_then(|inner| inner.strip_suffix(']'));
        if let Some(inner) = unbracketed {
            return inner
                .parse::<std::net::Ipv6Addr>()
                .ok()
                .map(|ip| Host::Ip(ip.into()));
        }
        if let Ok(ip) = raw.parse::<IpAddr>() {
            return Some(Host::Ip(ip));
        }
        valid_name(raw).then(|| Host::Name(raw.to_ascii_lowercase()))
    }

    /// The text a pattern and the user see: the name, or the address.
    pub(crate) fn text(&self) -> String {
        match self {
            Host::Name(name) => name.clone(),
            Host::Ip(ip) => ip.to_string(),
        }
    }

    /// As it goes in a URL or a `Host:` header (IPv6 in brackets).
    pub(crate) fn bracketed(&self) -> String {
        match self {
            Host::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
            Host::Ip(IpAddr::V4(_)) | Host::Name(_) => self.text(),
        }
    }

    /// `host:port`, IPv6 in brackets.
    pub(crate) fn authority(&self, port: u16) -> String {
        format!("{}:{port}", self.bracketed())
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= MAX_LABEL
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Splits `host:port` (or `[v6]:port`, or a bare host when `default_port` is
/// given) and reads the host. `None` when malformed.
pub(crate) fn split_authority(authority: &str, default_port: Option<u16>) -> Option<(Host, u16)> {
    let (host, port) = split_port(authority)?;
    Some((Host::parse(host)?, port.or(default_port)?))
}

fn parse_port(digits: &str) -> Option<u16> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// One `allowedDomains` / `deniedDomains` entry, read once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    kind: PatternKind,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PatternKind {
    Exact(Host),
    /// `*.suffix`: strict subdomains of `suffix`.
    Subdomains(String),
}

impl Pattern {
    /// `None` for an entry that can match nothing (see the module's list).
    pub(crate) fn parse(entry: &str) -> Option<Pattern> {
        let entry = entry.trim();
        let (body, port) = split_port(entry)?;
        if let Some(suffix) = body.strip_prefix("*.") {
            return match Host::parse(suffix)? {
                Host::Name(name) => Some(Pattern {
                    kind: PatternKind::Subdomains(name),
                    port,
                }),
                Host::Ip(_) => None,
            };
        }
        Some(Pattern {
            kind: PatternKind::Exact(Host::parse(body)?),
            port,
        })
    }

    /// Whether this entry names the host exactly (not through a wildcard).
    pub(crate) fn is_exact(&self) -> bool {
        matches!(self.kind, PatternKind::Exact(_))
    }

    /// Whether this entry names `host` exactly, on any port or one.
    pub(crate) fn names(&self, host: &Host) -> bool {
        matches!(&self.kind, PatternKind::Exact(exact) if exact == host)
    }

    pub(crate) fn matches(&self, host: &Host, port: u16) -> bool {
        if self.port.is_some_and(|only| only != port) {
            return false;
        }
        match (&self.kind, host) {
            (PatternKind::Exact(exact), _) => exact == host,
            (PatternKind::Subdomains(suffix), Host::Name(name)) => name
                .strip_suffix(suffix.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            (PatternKind::Subdomains(_), Host::Ip(_)) => false,
        }
    }
}

/// `host:port`, `[v6]:port`, a bare IPv6 address (colons, no brackets), or a
/// bare host. `None` when a port is there but not a number in range.
fn split_port(entry: &str) -> Option<(&str, Option<u16>)> {
    if entry.starts_with('[') {
        let end = entry.find(']')?;
        let (host, rest) = entry.split_at(end + 1);
        return match rest.strip_prefix(':') {
            Some(digits) => Some((host, Some(parse_port(digits)?))),
            None if rest.is_empty() => Some((host, None)),
            None => None,
        };
    }
    match entry.split_once(':') {
        Some((host, digits)) if !digits.contains(':') => Some((host, Some(parse_port(digits)?))),
        _ => Some((entry, None)),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Host, Pattern, split_authority};

    fn matches(pattern: &str, host: &str, port: u16) -> bool {
        let host = Host::parse(host).expect("a host");
        Pattern::parse(pattern).is_some_and(|p| p.matches(&host, port))
    }

    #[test]
    fn patterns_match_as_claude_code_reads_them() {
        let cases = [
            ("example.com", "example.com", 443, true),
            ("example.com", "EXAMPLE.com.", 80, true),
            ("Example.COM.", "example.com", 80, true),
            ("example.com", "api.example.com", 443, false),
            ("*.example.com", "api.example.com", 443, true),
            ("*.example.com", "a.b.example.com", 443, true),
            ("*.example.com", "example.com", 443, false),
            ("*.example.com", "badexample.com", 443, false),
            ("*.EXAMPLE.com", "Api.Example.Com.", 443, true),
            ("example.com:8443", "example.com", 8443, true),
            ("example.com:8443", "example.com", 443, false),
            ("*.example.com:443", "api.example.com", 443, true),
            ("*.example.com:443", "api.example.com", 80, false),
            ("127.0.0.1", "127.0.0.1", 80, true),
            ("::1", "[::1]", 80, true),
            ("[0:0::1]:8080", "::1", 8080, true),
            ("[::1]:8080", "::1", 8081, false),
            ("*.0.0.1", "127.0.0.1", 80, false),
            ("*", "example.com", 443, false),
            ("*example.com", "example.com", 443, false),
            ("a.*.com", "a.b.com", 443, false),
            ("", "example.com", 443, false),
            ("example.com:", "example.com", 443, false),
            ("example.com:99999", "example.com", 443, false),
        ];
        let got: Vec<_> = cases
            .iter()
            .map(|&(pattern, host, port, _)| (pattern, host, port, matches(pattern, host, port)))
            .collect();
        assert_eq!(got, cases.to_vec());
    }

    #[test]
    fn authorities_split_into_host_and_port() {
        let cases = [
            ("example.com:443", None, Some(("example.com", 443))),
            ("Example.com.:80", None, Some(("example.com", 80))),
            ("[::1]:8080", None, Some(("::1", 8080))),
            ("127.0.0.1:22", None, Some(("127.0.0.1", 22))),
            ("example.com", Some(80), Some(("example.com", 80))),
            ("example.com", None, None),
            ("example.com:", Some(80), None),
            ("example.com:http", None, None),
            ("example.com:65536", None, None),
            ("[::1", None, None),
            ("[::1]x", Some(80), None),
            ("exa mple.com:80", None, None),
            ("a..b:80", None, None),
            ("user@host:80", None, None),
            (":80", None, None),
        ];
        let got: Vec<_> = cases
            .iter()
            .map(|&(authority, default, _)| {
                let split = split_authority(authority, default).map(|(h, p)| (h.text(), p));
                (authority, default, split)
            })
            .collect();
        let want: Vec<_> = cases
            .iter()
            .map(|&(a, d, w)| (a, d, w.map(|(h, p)| (h.to_owned(), p))))
            .collect();
        assert_eq!(got, want);
    }

    fn label() -> impl Strategy<Value = String> {
        "[a-z0-9][a-z0-9-]{0,9}"
    }

    proptest! {
        #[test]
        fn a_wildcard_matches_strict_subdomains_only(
            base in proptest::collection::vec(label(), 1..4),
            sub in proptest::collection::vec(label(), 1..3),
            glued in label(),
            upper in any::<bool>(),
            port in any::<u16>(),
        ) {
            let base = base.join(".");
            let pattern = format!("*.{base}");
            let sub = format!("{}.{base}", sub.join("."));
            let sub = if upper { sub.to_ascii_uppercase() + "." } else { sub };
            prop_assert!(matches(&pattern, &sub, port));
            prop_assert!(!matches(&pattern, &base, port));
            // A name that merely ends with the text, without the dot.
            let glued = format!("{glued}{base}");
            prop_assert!(!matches(&pattern, &glued, port));
            prop_assert!(matches(&base, &base.to_ascii_uppercase(), port));
            prop_assert!(!matches(&base, &sub, port));
        }

        #[test]
        fn hostile_text_never_panics(text in "\\PC{0,80}", port in proptest::option::of(any::<u16>())) {
            let _ = Host::parse(&text);
            let _ = Pattern::parse(&text);
            let _ = split_authority(&text, port);
        }
    }
}
