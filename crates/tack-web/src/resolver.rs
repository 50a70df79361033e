//! Host name resolution for WebFetch, injectable.
//!
//! Every lookup goes through a [`HostResolver`]: the system's by default, a map
//! in tests (which must never touch real DNS). The adapter wraps failures in
//! [`DnsFailure`], so a failed lookup is told apart from a failed connection by
//! type rather than by reading reqwest's error text.

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Turns a host name into addresses.
pub trait HostResolver: Send + Sync + fmt::Debug {
    /// The addresses of `host`; an error or an empty list is a DNS failure.
    fn lookup(&self, host: &str) -> BoxFuture<'static, io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`, on tokio's blocking pool).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl HostResolver for SystemResolver {
    fn lookup(&self, host: &str) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> {
        let host = host.to_owned();
        async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        }
        .boxed()
    }
}

/// A lookup that failed: the host does not exist, or no resolver answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot resolve host {host}: {message}")]
pub(crate) struct DnsFailure {
    pub(crate) host: String,
    pub(crate) message: String,
}

/// The [`HostResolver`] as reqwest's resolver.
#[derive(Debug)]
pub(crate) struct ReqwestResolver(pub(crate) Arc<dyn HostResolver>);

impl Resolve for ReqwestResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let lookup = self.0.lookup(&host);
        Box::pin(async move {
            let failure = |message: String| DnsFailure {
                host: host.clone(),
                message,
            };
            match lookup.await {
                // Port 0: reqwest puts in the URL's port (or the scheme's default).
                Ok(ips) if !ips.is_empty() => {
                    let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
                    Ok(addrs)
                }
                Ok(_) => Err(failure("no addresses found".into()).into()),
                Err(e) => Err(failure(e.to_string()).into()),
            }
        })
    }
}
