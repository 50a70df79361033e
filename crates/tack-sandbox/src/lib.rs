//! The OS sandbox for the Bash tool (issue 25). Two halves:
//!
//! - [`proxy`]: the filtering network proxy that runs in the tack process. It
//!   listens on Unix sockets (HTTP CONNECT / plain HTTP, and SOCKS5), decides
//!   each destination by domain (the settings' `allowedDomains` /
//!   `deniedDomains`, then a [`proxy::NetworkAsk`] for a new domain) and keeps
//!   every refusal so it can be reported to the model and the user.
//! - the confinement of a command (user, mount, PID and network namespaces,
//!   Landlock, seccomp), whose network namespace has no route out: the only way
//!   out is a bridge from loopback ports inside the namespace to the proxy's
//!   Unix sockets. On Linux the `tack` binary itself is the namespace's init
//!   ([`init_main`], dispatched by [`INIT_ARG`] at the very top of `main`);
//!   [`Sandbox`] is what a session keeps and the Bash tool asks.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - the Bash sandbox's policy (writable trees, protected paths, `denyRead`, sockets, bridges),
//!   handed to the init as JSON after the hidden first argument `__tack_sandbox_init`:
//!   `tack-sandbox/src/policy.rs`
//! - Linux confinement with nothing installed: `tack` re-executed as the init of new
//!   user/mount/PID/net/IPC/UTS namespaces (dispatched at the top of `main`), PID 1's mounts
//!   (fresh /proc, read-only binds, `denyRead` hidden), `lo` and the loopback → Unix-socket
//!   bridges to the proxy, the command's capabilities dropped, Landlock, seccomp; what the
//!   kernel offers (`tack doctor`):
//!   `tack-sandbox/src/linux/{init,mounts,bridge,caps,landlock_rules,seccomp,support}.rs`
//! - a session's sandbox as the Bash tool asks it: confined, unconfined (`excludedCommands`,
//!   `dangerouslyDisableSandbox`, unavailable with a note once) or refused; the confined
//!   command line and its proxy variables (`NO_PROXY` holds the loopback names `allowedDomains`
//!   does not list: a listed one reaches the host's loopback through the proxy); refusals;
//!   `/sandbox`'s line; the probe; the way out for a connection tack opens itself for the
//!   session (`Egress`: Monitor's `ws`): `tack-sandbox/src/sandbox.rs`
//! - what git and tack run later and a confined command must not plant: the git dirs by real
//!   path (`.git` file's `gitdir:`, `commondir`), `.git`/`.claude`/`.mcp.json` anywhere in a
//!   root, found before the command (bound read-only) and after it (new ones, or ones in a
//!   folder made anew, moved to `NAME.blocked-by-sandbox` and reported on the command's
//!   stderr): `tack-sandbox/src/planted.rs`
//! - a Unix socket path past `sun_path` (108 bytes, a long TMPDIR) bound and reached as
//!   `/proc/self/fd/N/NAME` through its folder's descriptor: `tack-sandbox/src/socket_path.rs`
//! - the filtering network proxy (HTTP CONNECT, SOCKS5, by domain): `tack-sandbox/src/proxy/`
//! - `httpProxyPort` / `socksProxyPort`: the user's own proxy reached from the namespace
//!   through a Unix-socket relay in the tack process: `tack-sandbox/src/relay.rs`
//! - the sandbox's filtering network proxy, on the caller's runtime: `http.sock` (CONNECT
//!   tunnels; absolute-form http rewritten to origin form, hop-by-hop headers dropped, one
//!   request per connection) and `socks.sock` (SOCKS5 CONNECT; BIND/UDP refused), mode 0600;
//!   heads and handshakes size- and time-bounded (hostile clients); each destination decided by
//!   `deniedDomains`, then `allowedDomains` (`*.x.com` subdomains only, not the apex; optional
//!   `:port`; case and trailing dot ignored), then `AllowDomain` answers remembered for the
//!   proxy's life, then the `NetworkAsk` (one question for concurrent connections to a domain);
//!   every refusal kept for `ProxyHandle::take_refusals` (last 100); names resolved by the
//!   proxy, and a name reaching a loopback or link-local address needs an exact
//!   `allowedDomains` entry (DNS rebinding):
//!   `tack-sandbox/src/proxy/{mod,host,decide,upstream,http,socks}.rs`; tests
//!   `tack-sandbox/tests/proxy/`; latency bench `tack-sandbox/benches/proxy.rs`
//! - the bridge from loopback ports inside the sandbox's network namespace to the proxy's
//!   sockets: std only (it runs in the sandbox's init process, before seccomp), a thread per
//!   direction, half-close passed on, at most 256 connections:
//!   `tack-sandbox/src/proxy/bridge.rs`

mod explain;
#[cfg(target_os = "linux")]
mod linux;
pub mod planted;
mod policy;
pub mod proxy;
mod relay;
mod sandbox;
mod socket_path;

#[cfg(target_os = "linux")]
pub use linux::{KernelSupport, init_main, kernel_support};
pub use policy::{Bridge, FORCE_UNAVAILABLE_ENV, INIT_ARG, PROTECTED_IN_PROJECT, Policy};
pub use relay::{PortRelays, relay_ports};
pub use sandbox::{Availability, Config, Egress, Mode, Network, Plan, Sandbox, probe};
pub use socket_path::SocketPath;
