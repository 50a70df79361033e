//! One WebFetch download: GET with same-host redirects followed (bounded),
//! other redirects reported, the body streamed up to a byte cap, the whole
//! exchange under a time cap, and every failure named for the model.

use std::error::Error as StdError;
use std::io;
use std::sync::{Arc, Once};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use tack_api::body::read_capped;
use tack_sys::error_text::chain;
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::convert::{self, Kind};
use crate::resolver::{DnsFailure, HostResolver, ReqwestResolver};
use crate::url_policy;

/// A fetched page, converted to text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// Where the content came from (after same-host redirects).
    pub(crate) url: String,
    pub(crate) status: u16,
    pub(crate) status_text: String,
    /// The media type without parameters (`text/html`), empty if none was sent.
    pub(crate) content_type: String,
    /// Body bytes read (at most the cap).
    pub(crate) bytes: usize,
    /// The body was longer than the cap and was cut there.
    pub(crate) truncated: bool,
    /// Markdown for HTML, the text itself otherwise.
    pub(crate) text: String,
}

/// What a fetch ended with, short of an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    Page(Page),
    /// A redirect that was not followed (another host, port or a downgrade).
    Redirect {
        from: String,
        to: String,
        status: u16,
        status_text: String,
    },
}

/// Why a fetch failed; the message is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("DNS lookup failed for {host}: {message}. Check the domain name in the URL.")]
    Dns { host: String, message: String },
    #[error(
        "TLS handshake with {url} failed: {message}. The site's certificate or TLS setup was not accepted."
    )]
    Tls { url: String, message: String },
    #[error("Connection refused by {address} ({url}): nothing is listening there.")]
    Refused { url: String, address: String },
    #[error("Could not connect to {url}: {message}")]
    Connect { url: String, message: String },
    #[error("Fetching {url} took longer than {} s and was stopped.", .after.as_secs_f64())]
    Timeout { url: String, after: Duration },
    #[error("{url} answered HTTP {status} {status_text}.")]
    Status {
        url: String,
        status: u16,
        status_text: String,
    },
    #[error(
        "{url} returned {content_type} content, which WebFetch cannot read: it reads HTML and text only (not images, PDFs, archives or other binary files)."
    )]
    NotText { url: String, content_type: String },
    #[error("{url} redirected more than {max} times.")]
    TooManyRedirects { url: String, max: usize },
    #[error("{url} answered HTTP {status} with an unusable Location `{location}`.")]
    BadRedirect {
        url: String,
        status: u16,
        location: String,
    },
    #[error("Reading the response from {url} failed: {message}")]
    Body { url: String, message: String },
    #[error("The fetch was cancelled.")]
    Cancelled,
    #[error("WebFetch cannot set up its HTTP client: {message}")]
    Client { message: String },
}

/// Caps of one fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_bytes: usize,
    pub(crate) timeout: Duration,
    pub(crate) max_redirects: usize,
}

/// What the HTTP client is built from.
#[derive(Debug, Clone)]
pub(crate) struct ClientSettings {
    pub(crate) user_agent: String,
    pub(crate) resolver: Arc<dyn HostResolver>,
    pub(crate) system_proxy: bool,
    pub(crate) connect_timeout: Duration,
}

/// Downloads pages. The HTTP client is built on first use, on a blocking
/// thread: building it reads the system's root certificates, a few
/// milliseconds that start-up should not wait for when no page is fetched.
#[derive(Debug)]
pub(crate) struct Fetcher {
    settings: ClientSettings,
    http: OnceCell<Result<reqwest::Client, String>>,
    limits: Limits,
}

static CRYPTO_PROVIDER: Once = Once::new();

fn build_client(settings: ClientSettings) -> Result<reqwest::Client, String> {
    CRYPTO_PROVIDER.call_once(|| {
        // Err means a provider is installed already (tack-api's): fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    // The roots are read on the first https handshake, once per process.
    let tls = tack_api::tls::client_config(false).map_err(|e| e.to_string())?;
    let mut builder = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .user_agent(settings.user_agent)
        // Redirects are handled here, one hop at a time, to check each target.
        .redirect(reqwest::redirect::Policy::none())
        .dns_resolver(Arc::new(ReqwestResolver(settings.resolver)))
        .connect_timeout(settings.connect_timeout)
        .tcp_nodelay(true);
    if !settings.system_proxy {
        builder = builder.no_proxy();
    }
    builder.build().map_err(|e| chain(&e))
}

impl Fetcher {
    pub(crate) fn new(limits: Limits, settings: ClientSettings) -> Self {
        Fetcher {
            settings,
            http: OnceCell::new(),
            limits,
        }
    }

    async fn client(&self) -> Result<&reqwest::Client, FetchError> {
        let built = self
            .http
            .get_or_init(|| {
                let settings = self.settings.clone();
                async move {
                    tokio::task::spawn_blocking(move || build_client(settings))
                        .await
                        .unwrap_or_else(|e| Err(e.to_string()))
                }
            })
            .await;
        built.as_ref().map_err(|message| FetchError::Client {
            message: message.clone(),
        })
    }

    /// Fetches `url` (already checked and upgraded by [`url_policy::fetch_url`]).
    pub(crate) async fn fetch(
        &self,
        url: Url,
        cancel: &CancellationToken,
    ) -> Result<Outcome, FetchError> {
        let shown = url.to_string();
        let timeout = self.limits.timeout;
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(FetchError::Cancelled),
            done = tokio::time::timeout(timeout, self.fetch_hops(url)) => {
                done.unwrap_or(Err(FetchError::Timeout { url: shown, after: timeout }))
            }
        }
    }

    async fn fetch_hops(&self, start: Url) -> Result<Outcome, FetchError> {
        let http = self.client().await?;
        let mut url = start;
        for _ in 0..=self.limits.max_redirects {
            let response = http
                .get(url.clone())
                .header(
                    ACCEPT,
                    "text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.5",
                )
                .send()
                .await
                .map_err(|e| classify(&url, &e))?;
            let status = response.status();
            if status.is_redirection()
                && let Some(location) = response.headers().get(LOCATION)
            {
                let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
                let target = url.join(&location).map_err(|_| FetchError::BadRedirect {
                    url: url.to_string(),
                    status: status.as_u16(),
                    location: location.clone(),
                })?;
                if url_policy::may_follow(&url, &target) {
                    url = target;
                    continue;
                }
                return Ok(Outcome::Redirect {
                    from: url.to_string(),
                    to: target.to_string(),
                    status: status.as_u16(),
                    status_text: reason(status),
                });
            }
            if !status.is_success() {
                return Err(FetchError::Status {
                    url: url.to_string(),
                    status: status.as_u16(),
                    status_text: reason(status),
                });
            }
            return self
                .read_page(url, status, response)
                .await
                .map(Outcome::Page);
        }
        Err(FetchError::TooManyRedirects {
            url: url.to_string(),
            max: self.limits.max_redirects,
        })
    }

    /// Reads the body up to the cap, then decodes and converts it.
    async fn read_page(
        &self,
        url: Url,
        status: StatusCode,
        mut response: reqwest::Response,
    ) -> Result<Page, FetchError> {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        let not_text = |content_type: &str| FetchError::NotText {
            url: url.to_string(),
            content_type: content_type.to_owned(),
        };
        let declared = convert::kind(&content_type);
        if declared == Kind::Binary {
            // Refused before a byte of the body is read.
            return Err(not_text(&convert::essence(&content_type)));
        }
        // Dropping the response after the cap closes the connection: nothing more is read.
        let capped = read_capped(&mut response, self.limits.max_bytes)
            .await
            .map_err(|e| FetchError::Body {
                url: url.to_string(),
                message: chain(&e),
            })?;
        let (body, truncated) = (capped.bytes, capped.truncated);
        drop(response);
        let kind = match declared {
            Kind::Unknown => convert::sniff(&body),
            other => other,
        };
        if kind == Kind::Binary {
            let shown = match convert::essence(&content_type) {
                e if e.is_empty() => "binary (no Content-Type)".to_owned(),
                e => format!("binary {e}"),
            };
            return Err(not_text(&shown));
        }
        let bytes = body.len();
        let text = tokio::task::spawn_blocking(move || {
            let text = convert::decode(&body, &content_type);
            let text = if kind == Kind::Html {
                convert::html_to_markdown(&text)
            } else {
                text
            };
            (text, convert::essence(&content_type))
        })
        .await;
        let (text, content_type) = text.map_err(|e| FetchError::Body {
            url: url.to_string(),
            message: format!("converting the page failed: {e}"),
        })?;
        Ok(Page {
            url: url.to_string(),
            status: status.as_u16(),
            status_text: reason(status),
            content_type,
            bytes,
            truncated,
            text,
        })
    }
}

fn reason(status: StatusCode) -> String {
    status.canonical_reason().unwrap_or("").to_owned()
}

/// Names a failed request by its cause: DNS, TLS, a refused connection, or
/// else the connection error's own words.
fn classify(url: &Url, err: &reqwest::Error) -> FetchError {
    let shown = url.to_string();
    for e in causes(err) {
        if let Some(dns) = e.downcast_ref::<DnsFailure>() {
            return FetchError::Dns {
                host: dns.host.clone(),
                message: dns.message.clone(),
            };
        }
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return FetchError::Tls {
                url: shown,
                message: tls.to_string(),
            };
        }
        if e.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::ConnectionRefused)
        {
            return FetchError::Refused {
                address: address(url),
                url: shown,
            };
        }
    }
    let message = if err.is_timeout() {
        "the connection timed out".to_owned()
    } else {
        chain(err)
    };
    FetchError::Connect {
        url: shown,
        message,
    }
}

/// `err` and everything under it. An `io::Error` wrapping another error hides
/// it from `source()` (which skips to the inner error's own source), and the
/// TLS stack reports handshake failures exactly that way, nested twice: so the
/// payload of each `io::Error` is visited too.
fn causes<'a>(err: &'a (dyn StdError + 'static)) -> Vec<&'a (dyn StdError + 'static)> {
    let mut out = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        out.push(e);
        let payload = e
            .downcast_ref::<io::Error>()
            .and_then(|io| io.get_ref())
            .map(|inner| inner as &(dyn StdError + 'static));
        next = payload.or_else(|| e.source());
    }
    out
}

fn address(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}
