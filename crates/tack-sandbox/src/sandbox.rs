//! [`Sandbox`]: one session's sandbox, as the Bash tool uses it: which way a
//! command runs ([`Sandbox::plan`]), the command line that confines it
//! ([`Sandbox::shell`]) and the network refusals to report after it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::policy::{Bridge, INIT_ARG, Policy};
use crate::proxy::{ProxyHandle, Refusal};
use crate::relay::PortRelays;

/// The namespace's one way out, if any.
#[derive(Debug)]
pub enum Network {
    /// No network at all.
    None,
    /// tack's filtering proxy.
    Proxy(ProxyHandle),
    /// The user's own proxy (`httpProxyPort` / `socksProxyPort`).
    Ports(PortRelays),
}

impl Network {
    /// The HTTP and SOCKS sockets outside the namespace.
    fn sockets(&self) -> (Option<&Path>, Option<&Path>) {
        match self {
            Network::None => (None, None),
            Network::Proxy(p) => (Some(&p.http_socket), Some(&p.socks_socket)),
            Network::Ports(r) => (r.http_socket.as_deref(), r.socks_socket.as_deref()),
        }
    }
}

/// How a connection tack opens itself for the session (Monitor's `ws`)
/// reaches the network while the sandbox is on, as a sandboxed command's
/// would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Egress<'a> {
    /// The sandbox is off: the sandbox's network rules do not apply.
    Unfiltered,
    /// An HTTP CONNECT tunnel through this socket: the filtering proxy
    /// (`allowedDomains`, `deniedDomains`, then a question), or the relay to
    /// the user's `httpProxyPort`.
    Tunnel(&'a Path),
    /// A SOCKS5 connection through this socket: the relay to the user's
    /// `socksProxyPort`, when no `httpProxyPort` is set.
    Socks(&'a Path),
    /// No network (none configured, or the proxy could not start).
    Closed,
}

/// `--sandbox` (Codex's modes); `sandbox.enabled` is `WorkspaceWrite` or `Off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Off,
    /// Writes only to the session's temp dir.
    ReadOnly,
    /// Writes to the project, added directories, `allowWrite` and the temp dir.
    WorkspaceWrite,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::ReadOnly => "read-only",
            Mode::WorkspaceWrite => "workspace-write",
        }
    }
}

/// The settings that decide how Bash runs (resolved by the runtime from
/// `sandbox.*`, the permission rules and `--sandbox`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub mode: Mode,
    /// `autoAllowBashIfSandboxed` (default true).
    pub auto_allow: bool,
    /// `excludedCommands`: these run outside the sandbox.
    pub excluded_commands: Vec<String>,
    /// `allowUnsandboxedCommands` (default true): `dangerouslyDisableSandbox`
    /// is honoured, and an unavailable sandbox runs commands unconfined.
    pub allow_unsandboxed: bool,
    /// `failIfUnavailable`: an unavailable sandbox refuses every command.
    pub fail_if_unavailable: bool,
    /// Writable trees, protected and unreadable paths, sockets, binding.
    pub policy: Policy,
}

/// Whether confinement works here, found once per session by running a
/// confined `true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    Available,
    /// Why not (the init's own message).
    Unavailable(String),
}

/// How one Bash command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Confined,
    /// Unconfined; the note (once per session) says why, for the result.
    Unconfined(Option<String>),
    /// Not run at all: the error says why.
    Refused(String),
}

/// The names of the namespace's loopback, in `NO_PROXY` unless listed.
const LOOPBACK_NAMES: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Ports inside every namespace (each command has its own loopback).
pub const HTTP_PROXY_PORT: u16 = 3128;
pub const SOCKS_PROXY_PORT: u16 = 1080;

#[derive(Debug)]
pub struct Sandbox {
    config: Config,
    exe: PathBuf,
    dir: PathBuf,
    tmp_dir: PathBuf,
    network: Network,
    availability: Availability,
    told_unavailable: AtomicBool,
}

impl Sandbox {
    /// `exe`: the tack binary (`/proc/self/exe`); `dir`: the session's
    /// private folder, removed with the sandbox (its `tmp` is writable
    /// inside and TMPDIR; its `net` holds the proxy's sockets); `network`:
    /// the proxy the namespace's loopback ports are bridged to.
    pub async fn start(
        mut config: Config,
        exe: PathBuf,
        dir: PathBuf,
        network: Network,
    ) -> Sandbox {
        let tmp_dir = dir.join("tmp");
        match config.mode {
            Mode::ReadOnly => config.policy.writable = vec![tmp_dir.clone()],
            Mode::WorkspaceWrite => config.policy.writable.push(tmp_dir.clone()),
            Mode::Off => {}
        }
        let (http, socks) = network.sockets();
        config.policy.bridges = [(HTTP_PROXY_PORT, http), (SOCKS_PROXY_PORT, socks)]
            .into_iter()
            .filter_map(|(port, socket)| {
                socket.map(|s| Bridge {
                    port,
                    socket: s.to_path_buf(),
                })
            })
            .collect();
        let availability = if config.mode == Mode::Off {
            Availability::Available
        } else {
            let exe = exe.clone();
            tokio::task::spawn_blocking(move || probe(&exe))
                .await
                .unwrap_or_else(|e| Availability::Unavailable(e.to_string()))
        };
        Sandbox {
            config,
            exe,
            dir,
            tmp_dir,
            network,
            availability,
            told_unavailable: AtomicBool::new(false),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn enabled(&self) -> bool {
        self.config.mode != Mode::Off
    }

    /// Where a connection tack opens for the session goes ([`Egress`]).
    pub fn egress(&self) -> Egress<'_> {
        if !self.enabled() {
            return Egress::Unfiltered;
        }
        match &self.network {
            Network::Proxy(proxy) => Egress::Tunnel(&proxy.http_socket),
            Network::Ports(relays) => match (&relays.http_socket, &relays.socks_socket) {
                (Some(http), _) => Egress::Tunnel(http),
                (None, Some(socks)) => Egress::Socks(socks),
                (None, None) => Egress::Closed,
            },
            Network::None => Egress::Closed,
        }
    }

    pub fn availability(&self) -> &Availability {
        &self.availability
    }

    pub fn tmp_dir(&self) -> &Path {
        &self.tmp_dir
    }

    /// `excludedCommands` holds this command (a pattern is a command prefix
    /// ending at a word boundary; `docker:*` and `docker *` read as `docker`).
    /// Only a simple command is excluded: `docker ps && rm -rf ~` runs in
    /// the sandbox.
    pub fn excluded(&self, command: &str) -> bool {
        let command = command.trim();
        let compound = ["&", "|", ";", "\n", "`", "$(", "<(", ">("]
            .iter()
            .any(|op| command.contains(op));
        if compound {
            return false;
        }
        self.config.excluded_commands.iter().any(|pattern| {
            let p = pattern
                .trim()
                .trim_end_matches(":*")
                .trim_end_matches(" *")
                .trim_end();
            !p.is_empty()
                && command.starts_with(p)
                && command[p.len()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
    }

    /// Whether a Bash call the permission rules would only ask about runs
    /// without asking: sandbox on and working, `autoAllowBashIfSandboxed`,
    /// and the call really confined.
    pub fn auto_allows(&self, command: &str, disable_requested: bool) -> bool {
        self.config.auto_allow && self.route(command, disable_requested).is_ok_and(|c| c)
    }

    /// How `command` runs (`disable_requested`: the model's
    /// `dangerouslyDisableSandbox`, which the permission check has approved).
    /// The first command run unconfined because the sandbox is unavailable
    /// gets a note saying so.
    pub fn plan(&self, command: &str, disable_requested: bool) -> Plan {
        match self.route(command, disable_requested) {
            Ok(true) => Plan::Confined,
            Ok(false) => Plan::Unconfined(None),
            Err(Availability::Available) => Plan::Unconfined(None),
            Err(Availability::Unavailable(why)) => {
                if self.config.fail_if_unavailable || !self.config.allow_unsandboxed {
                    let setting = if self.config.fail_if_unavailable {
                        "sandbox.failIfUnavailable is true"
                    } else {
                        "sandbox.allowUnsandboxedCommands is false"
                    };
                    Plan::Refused(format!(
                        "The sandbox is not available on this system ({why}) and {setting}, \
                         so the command was not run."
                    ))
                } else {
                    let first = !self.told_unavailable.swap(true, Ordering::Relaxed);
                    Plan::Unconfined(first.then(|| unavailable_note(&why)))
                }
            }
        }
    }

    /// `Ok(confined)`, or `Err` with the unavailable sandbox's reason.
    fn route(&self, command: &str, disable_requested: bool) -> Result<bool, Availability> {
        if !self.enabled()
            || self.excluded(command)
            || (disable_requested && self.config.allow_unsandboxed)
        {
            return Ok(false);
        }
        match &self.availability {
            Availability::Available => Ok(true),
            unavailable => Err(unavailable.clone()),
        }
    }

    /// A `bash -c script` (confined per [`Sandbox::plan`]'s answer).
    pub fn shell(&self, script: &str, confined: bool) -> tokio::process::Command {
        if !confined {
            let mut c = tokio::process::Command::new("bash");
            c.arg("-c").arg(script);
            return c;
        }
        let mut c = tokio::process::Command::new(&self.exe);
        c.args(self.init_args(script));
        c.env("TMPDIR", &self.tmp_dir);
        let (http, socks) = self.network.sockets();
        if http.is_some() {
            let http = format!("http://127.0.0.1:{HTTP_PROXY_PORT}");
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
                c.env(name, &http);
            }
        }
        if socks.is_some() {
            let socks = format!("socks5h://127.0.0.1:{SOCKS_PROXY_PORT}");
            for name in ["ALL_PROXY", "all_proxy"] {
                c.env(name, &socks);
            }
        }
        if http.is_some() || socks.is_some() {
            let direct = self.direct_names();
            c.env("NO_PROXY", &direct);
            c.env("no_proxy", &direct);
        }
        c
    }

    /// `NO_PROXY`: the loopback names a client should connect to directly,
    /// which reaches the namespace's own loopback (a server the command
    /// started). A loopback name `allowedDomains` lists is left out, so the
    /// clients that honour the proxy variables reach the host's own server
    /// through the proxy (which connects a listed loopback host), or hear
    /// the proxy's refusal of another port, with its reason.
    fn direct_names(&self) -> String {
        let listed = |name: &str| match &self.network {
            Network::Proxy(proxy) => proxy.lists(name),
            Network::None | Network::Ports(_) => false,
        };
        LOOPBACK_NAMES
            .iter()
            .filter(|name| !listed(name))
            .copied()
            .collect::<Vec<_>>()
            .join(",")
    }

    fn init_args(&self, script: &str) -> Vec<OsString> {
        let policy = serde_json::to_string(&self.config.policy).unwrap_or_default();
        vec![
            INIT_ARG.into(),
            policy.into(),
            "bash".into(),
            "-c".into(),
            script.into(),
        ]
    }

    /// The network refusals since the last call, one line each for the
    /// tool result ("sandbox: network access to HOST:PORT denied (...)").
    pub fn take_refusals(&self) -> Vec<String> {
        match &self.network {
            Network::Proxy(proxy) => proxy.take_refusals().iter().map(refusal_line).collect(),
            Network::None | Network::Ports(_) => Vec::new(),
        }
    }

    /// For a confined command's error output that shows the sandbox refused
    /// a write: a note saying so, and how the user could allow it
    /// ([`crate::explain::explain_refusal`]).
    pub fn explain_refusal(&self, cwd: &Path, stderr: &str) -> Option<String> {
        crate::explain::explain_refusal(
            &self.config.policy,
            cwd,
            stderr,
            self.config.allow_unsandboxed,
        )
    }

    /// One line for `/sandbox` and the session's start.
    pub fn status(&self) -> String {
        if !self.enabled() {
            return "sandbox: off (Bash commands run unconfined)".into();
        }
        let network = match &self.network {
            Network::None => "no network",
            Network::Proxy(_) => "network through the filtering proxy",
            Network::Ports(_) => "network through your proxy (httpProxyPort/socksProxyPort)",
        };
        match &self.availability {
            Availability::Available => format!(
                "sandbox: {} (namespaces, Landlock, seccomp; {network}; auto-allow {})",
                self.config.mode.name(),
                if self.config.auto_allow { "on" } else { "off" }
            ),
            Availability::Unavailable(why) => {
                let then = if self.config.fail_if_unavailable || !self.config.allow_unsandboxed {
                    "Bash commands are refused"
                } else {
                    "Bash commands run unconfined (allowUnsandboxedCommands)"
                };
                format!("sandbox: unavailable ({why}); {then}")
            }
        }
    }
}

fn unavailable_note(why: &str) -> String {
    format!(
        "Note: the sandbox is not available on this system ({why}); this command ran \
         without it (sandbox.allowUnsandboxedCommands is true)."
    )
}

fn refusal_line(r: &Refusal) -> String {
    format!(
        "sandbox: network access to {}:{} denied ({})",
        r.host, r.port, r.reason
    )
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs a confined `true`: the only sure test that every step works here
/// (blocking: about a millisecond plus a process start).
pub fn probe(exe: &Path) -> Availability {
    let policy = serde_json::to_string(&Policy::default()).unwrap_or_default();
    let out = std::process::Command::new(exe)
        .args([INIT_ARG, policy.as_str(), "true"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output();
    match out {
        Ok(out) if out.status.success() => Availability::Available,
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stderr);
            let line = text.lines().next().unwrap_or("").trim();
            let why = line.strip_prefix("tack sandbox: ").unwrap_or(line);
            Availability::Unavailable(if why.is_empty() {
                format!("the sandbox's init ended with {}", out.status)
            } else {
                why.to_owned()
            })
        }
        Err(e) => Availability::Unavailable(format!("cannot start {}: {e}", exe.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_a_simple_command_is_excluded() {
        let config = Config {
            mode: Mode::Off,
            auto_allow: true,
            excluded_commands: vec!["docker:*".into(), "git push".into()],
            allow_unsandboxed: true,
            fail_if_unavailable: false,
            policy: Policy::default(),
        };
        let dir = std::env::temp_dir().join("tack-sandbox-test-never-made");
        let sandbox =
            Sandbox::start(config, PathBuf::from("/nonexistent"), dir, Network::None).await;
        let excluded = [
            "docker ps",
            "  docker",
            "git push origin main",
            "dockerd",
            "docker ps && rm -rf ~",
            "docker ps; curl x",
            "docker $(curl x)",
            "git pushy",
            "echo docker",
        ]
        .map(|c| sandbox.excluded(c));
        assert_eq!(
            excluded,
            [true, true, true, false, false, false, false, false, false]
        );
    }
}
