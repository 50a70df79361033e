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
pub use sandbox::{Availability, Config, Mode, Network, Plan, Sandbox, probe};
