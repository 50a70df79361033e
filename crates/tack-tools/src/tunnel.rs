//! How Monitor's `ws` reaches its host, as the session's other connections
//! do:
//!
//! - with the sandbox on, through the sandbox's own way out
//!   ([`tack_sandbox::Egress`]): an HTTP CONNECT tunnel through the
//!   filtering proxy, so `deniedDomains`, `allowedDomains` and the network
//!   question decide it as they decide a sandboxed command's connection (or
//!   through the relay to the user's `httpProxyPort`); with only a
//!   `socksProxyPort`, a SOCKS5 connection through its relay, naming the
//!   host; no network, no socket;
//! - else through the proxy the environment names, as the web tools and
//!   Bash's commands do: `HTTPS_PROXY` for `wss:`, `HTTP_PROXY` for `ws:`
//!   (upper case first, then lower; `ALL_PROXY` after both), unless
//!   `NO_PROXY` names the host (`*`, a domain and its subdomains, `.domain`,
//!   an address or a CIDR block): an `http://` proxy (a CONNECT tunnel),
//!   an `https://` one (the same inside TLS to the proxy, with the
//!   session's rustls configuration), a `socks5h://` one (SOCKS5, the proxy
//!   resolves the host) or a `socks5://` one (resolved here); a
//!   `user:password@` in its URL is percent-decoded and sent as Basic
//!   credentials, or as SOCKS5's user name and password;
//! - else directly.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use tack_sandbox::{Egress, Sandbox};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};
use tokio_tungstenite::tungstenite::http::Uri;

use crate::percent::percent_decode;
use crate::socks5::{self, Target};

/// A stream to the host, whatever carries it.
pub(crate) trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// How long a proxy may take to answer the CONNECT.
const PROXY_ANSWER: Duration = Duration::from_secs(30);
/// The longest proxy answer head read.
const MAX_HEAD: usize = 16 * 1024;
/// The most of a refusal's body read, for the error.
const MAX_BODY: usize = 4 * 1024;

/// The proxy variables of the session's environment (what reqwest reads for
/// the web tools, and Bash's commands inherit).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxyVars {
    /// `HTTP_PROXY`, else `http_proxy`, else `ALL_PROXY`/`all_proxy`.
    pub http: Option<String>,
    /// `HTTPS_PROXY`, else `https_proxy`, else `ALL_PROXY`/`all_proxy`.
    pub https: Option<String>,
    /// `NO_PROXY`, else `no_proxy`.
    pub no_proxy: Option<String>,
}

impl ProxyVars {
    /// From an environment (`get` returns a variable's value, `None` when
    /// unset or empty).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> ProxyVars {
        let first = |names: &[&str]| names.iter().find_map(|n| get(n));
        let all = ["ALL_PROXY", "all_proxy"];
        ProxyVars {
            http: first(&["HTTP_PROXY", "http_proxy", all[0], all[1]]),
            https: first(&["HTTPS_PROXY", "https_proxy", all[0], all[1]]),
            no_proxy: first(&["NO_PROXY", "no_proxy"]),
        }
    }

    /// The proxy URL for a connection to `host` (`secure`: `wss:`), or
    /// `None` to connect directly.
    pub fn proxy_for(&self, host: &str, secure: bool) -> Option<&str> {
        let proxy = if secure { &self.https } else { &self.http };
        let proxy = proxy.as_deref()?;
        let bypass = self
            .no_proxy
            .as_deref()
            .is_some_and(|list| bypasses(list, host));
        (!bypass).then_some(proxy)
    }
}

/// Whether `NO_PROXY`'s `list` names `host` (reqwest's reading).
fn bypasses(list: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let ip = host.parse::<IpAddr>().ok();
    list.split(',').map(str::trim).any(|entry| {
        let entry = entry.trim_end_matches('.').to_ascii_lowercase();
        if entry.is_empty() {
            return false;
        }
        if entry == "*" {
            return true;
        }
        if let Some(ip) = ip {
            return entry.parse::<IpAddr>().is_ok_and(|e| e == ip) || in_block(&entry, ip);
        }
        match entry.strip_prefix('.') {
            Some(domain) => host == domain || host.ends_with(&entry),
            None => host == entry || host.ends_with(&format!(".{entry}")),
        }
    })
}

/// Whether `ip` is in the CIDR block `entry` (`10.0.0.0/8`, `fd00::/8`).
fn in_block(entry: &str, ip: IpAddr) -> bool {
    let Some((net, bits)) = entry.split_once('/') else {
        return false;
    };
    let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else {
        return false;
    };
    let masked = |a: u128, width: u32| match bits {
        0 => 0,
        b if b >= width => a,
        b => a >> (width - b),
    };
    match (net, ip) {
        (IpAddr::V4(n), IpAddr::V4(i)) => {
            masked(u32::from(n).into(), 32) == masked(u32::from(i).into(), 32)
        }
        (IpAddr::V6(n), IpAddr::V6(i)) => masked(n.into(), 128) == masked(i.into(), 128),
        _ => false,
    }
}

/// Where a connection goes: its host and port, and whether it is `wss:`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dest<'a> {
    pub host: &'a str,
    pub port: u16,
    pub secure: bool,
}

impl Dest<'_> {
    /// `host:port` as CONNECT names it (`[v6]:port`).
    fn authority(&self) -> String {
        match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V6(v6)) => format!("[{v6}]:{}", self.port),
            _ => format!("{}:{}", self.host, self.port),
        }
    }
}

/// A stream to `dest`, carried as this session carries its connections
/// (`tls`: the session's rustls configuration, for an `https://` proxy);
/// an error says why there is none.
pub(crate) async fn open(
    sandbox: Option<&Sandbox>,
    vars: &ProxyVars,
    tls: Option<&Arc<rustls::ClientConfig>>,
    dest: Dest<'_>,
) -> Result<Box<dyn Stream>, String> {
    let authority = dest.authority();
    match sandbox.map_or(Egress::Unfiltered, Sandbox::egress) {
        Egress::Closed => Err("the sandbox allows no network".into()),
        Egress::Tunnel(socket) => {
            let proxy = (unix(socket).await).map_err(|e| format!("the sandbox's proxy: {e}"))?;
            match connect(proxy, &authority, None).await {
                Ok(stream) => Ok(Box::new(stream)),
                // The proxy's own words, once: not a later Bash call's too.
                Err(why) => Err(sandbox
                    .map(Sandbox::take_refusals)
                    .filter(|r| !r.is_empty())
                    .map_or(why, |r| r.join("; "))),
            }
        }
        Egress::Socks(socket) => {
            let relay =
                (unix(socket).await).map_err(|e| format!("the sandbox's SOCKS relay: {e}"))?;
            let asked = socks5::connect(relay, Target::Name(dest.host), dest.port, None);
            Ok(Box::new(in_time(asked).await?))
        }
        Egress::Unfiltered => match vars.proxy_for(dest.host, dest.secure) {
            Some(proxy) => through_proxy(proxy, tls, dest).await,
            None => {
                let tcp = TcpStream::connect((dest.host, dest.port))
                    .await
                    .map_err(|e| e.to_string())?;
                let _ = tcp.set_nodelay(true);
                Ok(Box::new(tcp))
            }
        },
    }
}

/// The sandbox's socket at `path`, however long the path (a long TMPDIR:
/// reached through its folder's descriptor).
async fn unix(path: &std::path::Path) -> std::io::Result<UnixStream> {
    let short = tack_sandbox::SocketPath::new(path)?;
    UnixStream::connect(short.path()).await
}

/// A stream to `dest` through the proxy at `url`.
async fn through_proxy(
    url: &str,
    tls: Option<&Arc<rustls::ClientConfig>>,
    dest: Dest<'_>,
) -> Result<Box<dyn Stream>, String> {
    let bad = |why: &str| format!("the proxy {}: {why}", redacted(url));
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    let scheme = uri.scheme_str().unwrap_or("http").to_ascii_lowercase();
    let parts = uri.authority().ok_or_else(|| bad("no host"))?;
    let host = parts.host().trim_matches(['[', ']']);
    let credentials =
        parts
            .as_str()
            .rsplit_once('@')
            .map(|(userinfo, _)| match userinfo.split_once(':') {
                Some((user, password)) => (percent_decode(user), percent_decode(password)),
                None => (percent_decode(userinfo), String::new()),
            });
    let port = match (parts.port_u16(), scheme.as_str()) {
        (Some(port), _) => port,
        (None, "https") => 443,
        (None, "socks5" | "socks5h") => 1080,
        (None, _) => 80,
    };
    let tcp = TcpStream::connect((host, port))
        .await
        .map_err(|e| bad(&e.to_string()))?;
    let _ = tcp.set_nodelay(true);
    let basic = (credentials.as_ref())
        .map(|(u, p)| base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}")));
    let logged_in = credentials.as_ref().map(|(u, p)| (u.as_str(), p.as_str()));
    let authority = dest.authority();
    let stream: Box<dyn Stream> = match scheme.as_str() {
        "http" => Box::new(
            connect(tcp, &authority, basic.as_deref())
                .await
                .map_err(|w| bad(&w))?,
        ),
        "https" => {
            let config = tls.ok_or_else(|| bad("this session has no TLS configuration"))?;
            let tls = tls_to(config, host, tcp).await.map_err(|w| bad(&w))?;
            Box::new(
                connect(tls, &authority, basic.as_deref())
                    .await
                    .map_err(|w| bad(&w))?,
            )
        }
        "socks5h" => {
            let asked = socks5::connect(tcp, Target::Name(dest.host), dest.port, logged_in);
            Box::new(in_time(asked).await.map_err(|w| bad(&w))?)
        }
        "socks5" => {
            let addr = resolve(dest).await.map_err(|w| bad(&w))?;
            let asked = socks5::connect(tcp, Target::Addr(addr), dest.port, logged_in);
            Box::new(in_time(asked).await.map_err(|w| bad(&w))?)
        }
        other => return Err(bad(&format!("{other}:// proxies are not supported"))),
    };
    Ok(stream)
}

/// TLS to the proxy `host` over `tcp` (ALPN `http/1.1`: it is asked CONNECT).
async fn tls_to(
    config: &Arc<rustls::ClientConfig>,
    host: &str,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, String> {
    let mut config = rustls::ClientConfig::clone(config);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let name =
        rustls::pki_types::ServerName::try_from(host.to_owned()).map_err(|e| e.to_string())?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| format!("TLS: {e}"))
}

/// `dest`'s address, resolved here (`socks5://`).
async fn resolve(dest: Dest<'_>) -> Result<IpAddr, String> {
    if let Ok(ip) = dest.host.parse::<IpAddr>() {
        return Ok(ip);
    }
    let mut found = tokio::net::lookup_host((dest.host, dest.port))
        .await
        .map_err(|e| format!("cannot resolve {}: {e}", dest.host))?;
    found
        .next()
        .map(|a| a.ip())
        .ok_or_else(|| format!("{} has no address", dest.host))
}

/// A proxy's exchange, given as long as a CONNECT's answer is.
async fn in_time<S>(exchange: impl Future<Output = Result<S, String>>) -> Result<S, String> {
    tokio::time::timeout(PROXY_ANSWER, exchange)
        .await
        .map_err(|_| format!("no answer from the proxy in {}s", PROXY_ANSWER.as_secs()))?
}

/// `url` without its password, for errors.
fn redacted(url: &str) -> String {
    match (url.split_once("://"), url.rsplit_once('@')) {
        (Some((scheme, _)), Some((_, host))) => format!("{scheme}://…@{host}"),
        _ => url.to_owned(),
    }
}

/// Asks the proxy on `stream` for a tunnel to `authority`; the stream is
/// the tunnel once the proxy answers 200.
async fn connect<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    authority: &str,
    credentials: Option<&str>,
) -> Result<S, String> {
    let mut head = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
    if let Some(basic) = credentials {
        head.push_str(&format!("Proxy-Authorization: Basic {basic}\r\n"));
    }
    head.push_str("\r\n");
    let answer = async {
        stream.write_all(head.as_bytes()).await?;
        answer_head(&mut stream).await
    };
    let head = tokio::time::timeout(PROXY_ANSWER, answer)
        .await
        .map_err(|_| format!("no answer to CONNECT in {}s", PROXY_ANSWER.as_secs()))?
        .map_err(|e| e.to_string())?;
    let status = head.lines().next().unwrap_or_default();
    let code = status.split_whitespace().nth(1).unwrap_or_default();
    if code == "200" {
        return Ok(stream);
    }
    let mut body = vec![0; MAX_BODY];
    let read = tokio::time::timeout(Duration::from_secs(2), stream.read(&mut body)).await;
    let body = match read {
        Ok(Ok(n)) => String::from_utf8_lossy(&body[..n]).trim().to_owned(),
        _ => String::new(),
    };
    let status = status
        .trim_start_matches("HTTP/1.1 ")
        .trim_start_matches("HTTP/1.0 ");
    Err(match body.lines().next() {
        Some(line) => format!("the tunnel was refused ({status}): {line}"),
        None => format!("the tunnel was refused ({status})"),
    })
}

/// The answer's head, up to its blank line; read a byte at a time, so none
/// of what follows in the tunnel is taken.
async fn answer_head<S: AsyncRead + Unpin>(stream: &mut S) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_HEAD || stream.read(&mut byte).await? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the proxy's answer ended early or is too long",
            ));
        }
        head.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(http: &str, https: &str, no_proxy: &str) -> ProxyVars {
        let some = |v: &str| (!v.is_empty()).then(|| v.to_owned());
        ProxyVars {
            http: some(http),
            https: some(https),
            no_proxy: some(no_proxy),
        }
    }

    #[test]
    fn credentials_are_percent_decoded_and_passwords_kept_out_of_errors() {
        assert_eq!(percent_decode("us%40er%3a1"), "us@er:1");
        assert_eq!(percent_decode("p%20w%zz%"), "p w%zz%");
        assert_eq!(percent_decode("caf%C3%A9"), "café");
        assert_eq!(
            redacted("http://u:secret@proxy:3128"),
            "http://…@proxy:3128"
        );
        assert_eq!(redacted("http://proxy:3128"), "http://proxy:3128");
    }

    #[test]
    fn the_variables_are_read_upper_case_first_then_all_proxy() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            ProxyVars::from_env(move |k| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            })
        };
        assert_eq!(
            env(&[
                ("http_proxy", "http://lower:1"),
                ("HTTP_PROXY", "http://upper:1"),
                ("ALL_PROXY", "http://all:1"),
                ("no_proxy", "local"),
            ]),
            vars("http://upper:1", "http://all:1", "local")
        );
    }

    #[test]
    fn wss_takes_https_proxy_ws_http_proxy_and_no_proxy_bypasses_both() {
        let v = vars(
            "http://plain:3128",
            "http://secure:3128",
            "localhost, .internal,example.com,10.0.0.0/8,::1",
        );
        let got: Vec<Option<&str>> = [
            ("feed.example.org", true),
            ("feed.example.org", false),
            ("localhost", true),
            ("a.internal", false),
            ("internal", false),
            ("api.example.com", true),
            ("notexample.com", true),
            ("10.1.2.3", false),
            ("11.1.2.3", false),
            ("::1", true),
        ]
        .iter()
        .map(|(host, secure)| v.proxy_for(host, *secure))
        .collect();
        let (s, p) = (Some("http://secure:3128"), Some("http://plain:3128"));
        assert_eq!(got, [s, p, None, None, None, None, s, None, p, None]);
        assert_eq!(vars("", "", "").proxy_for("example.org", true), None);
        assert_eq!(
            vars("http://p:1", "", "*").proxy_for("example.org", false),
            None
        );
    }
}
