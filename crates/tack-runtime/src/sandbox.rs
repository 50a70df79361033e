//! The session's Bash sandbox, from the `sandbox` settings and `--sandbox`:
//! its temp dir, the filtering proxy (asking through the gate), the probe of
//! what the kernel allows, and the one notice saying what it is.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_config::Settings;
use tack_sandbox::proxy::{self, ProxyPolicy};
use tack_sandbox::{Availability, Config, Mode, Network, Policy, Sandbox};

use crate::emit::Emitter;
use crate::event::Notice;
use crate::gate::{Gate, GateNetworkAsk};

pub use tack_sandbox::Mode as SandboxMode;

/// Where the sandbox can write and what it protects, per `mode`.
fn config(settings: &Settings, mode: Mode, place: &SandboxPlace<'_>) -> Config {
    let roots = &place.roots;
    let s = settings.sandbox();
    let mut policy = Policy {
        writable: roots.iter().chain(s.allow_write()).cloned().collect(),
        read_only: s.deny_write().to_vec(),
        protected: Vec::new(),
        deny_read: s.deny_read().to_vec(),
        allow_unix_sockets: s.unix_sockets_allowed(),
        allow_local_binding: s.allow_local_binding(),
        ..Policy::default()
    };
    policy.protect_roots(roots, place.home, &place.user_files);
    Config {
        mode,
        auto_allow: s.auto_allow_bash_if_sandboxed(),
        excluded_commands: s.excluded_commands().to_vec(),
        allow_unsandboxed: s.allow_unsandboxed_commands(),
        fail_if_unavailable: s.fail_if_unavailable(),
        policy,
    }
}

/// The sandbox's private folder (removed with it): `tmp`, writable inside
/// and TMPDIR, and `net`, the proxy's sockets, which a command cannot touch.
fn private_dir(session_id: &str) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let unique = format!(
        "tack-sandbox-{session_id}-{}",
        uuid::Uuid::new_v4().simple()
    );
    let dir = std::env::temp_dir().join(unique);
    let mut builder = std::fs::DirBuilder::new();
    builder.mode(0o700);
    builder.create(&dir)?;
    builder.create(dir.join("tmp"))?;
    builder.create(dir.join("net"))?;
    Ok(dir)
}

/// The user's proxy when `httpProxyPort` / `socksProxyPort` name one, else
/// tack's filtering proxy; no network when neither can start.
async fn start_network(
    settings: &Settings,
    gate: &Arc<Gate>,
    dir: &Path,
    emit: &Emitter,
) -> Network {
    let s = settings.sandbox();
    let (http, socks) = s.proxy_ports();
    if http.is_some() || socks.is_some() {
        return match tack_sandbox::relay_ports(dir, http, socks) {
            Ok(relays) => Network::Ports(relays),
            Err(e) => {
                emit.notice(Notice::warning(format!(
                    "warning: sandbox: cannot reach your proxy ({e}); sandboxed commands have no network"
                )));
                Network::None
            }
        };
    }
    // `WebFetch(domain:x)` allow rules allow `x` too, as in Claude Code.
    let from_rules = settings.permissions().allow().iter().filter_map(|r| {
        r.value()
            .strip_prefix("WebFetch(domain:")?
            .strip_suffix(')')
            .map(str::to_owned)
    });
    let mut allowed_domains = s.allowed_domains().to_vec();
    allowed_domains.extend(from_rules.filter(|d| !s.allowed_domains().contains(d)));
    let policy = ProxyPolicy {
        allowed_domains,
        denied_domains: s.denied_domains().to_vec(),
    };
    let ask = Arc::new(GateNetworkAsk(Arc::downgrade(gate)));
    match proxy::start(policy, ask, dir).await {
        Ok(handle) => Network::Proxy(handle),
        Err(e) => {
            emit.notice(Notice::warning(format!(
                "warning: sandbox: {e}; sandboxed commands have no network"
            )));
            Network::None
        }
    }
}

/// Parts of the session the sandbox is built from.
pub(crate) struct SandboxPlace<'a> {
    pub settings: &'a Settings,
    pub flag: Option<Mode>,
    pub session_id: &'a str,
    /// The project and the added directories: writable, their `.git/hooks`
    /// and settings files protected.
    pub roots: Vec<PathBuf>,
    pub home: Option<&'a Path>,
    /// What tack and git read outside the projects, protected when a
    /// writable tree holds it: tack's config dirs, Claude Code's and its
    /// `.claude.json` (the trust store), `$XDG_CONFIG_HOME/git`.
    pub user_files: Vec<PathBuf>,
}

/// `None` when the sandbox is off. Says once what it is when it cannot work.
pub(crate) async fn start(
    place: SandboxPlace<'_>,
    gate: &Arc<Gate>,
    emit: &Emitter,
) -> Option<Arc<Sandbox>> {
    let enabled = place.settings.sandbox().enabled();
    let mode = place.flag.unwrap_or(if enabled {
        Mode::WorkspaceWrite
    } else {
        Mode::Off
    });
    if mode == Mode::Off {
        return None;
    }
    // A missing `.claude` could be created with settings in it: made now
    // (empty), it is protected like the rest (bound read-only inside).
    for root in &place.roots {
        let _ = std::fs::create_dir(root.join(".claude"));
    }
    let config = config(place.settings, mode, &place);
    let (dir, network) = match private_dir(place.session_id) {
        Ok(dir) => {
            let network = start_network(place.settings, gate, &dir.join("net"), emit).await;
            (dir, network)
        }
        Err(e) => {
            // Nothing is made writable in its place (a missing tree is skipped).
            emit.notice(Notice::warning(format!(
                "warning: sandbox: cannot make its temp dir ({e}); sandboxed commands have no TMPDIR"
            )));
            let missing = format!("tack-sandbox-{}-missing", uuid::Uuid::new_v4().simple());
            (std::env::temp_dir().join(missing), Network::None)
        }
    };
    let sandbox = Sandbox::start(config, PathBuf::from("/proc/self/exe"), dir, network).await;
    if let Availability::Unavailable(_) = sandbox.availability() {
        emit.notice(Notice::warning(format!("warning: {}", sandbox.status())));
    }
    let sandbox = Arc::new(sandbox);
    gate.set_sandbox(sandbox.clone());
    Some(sandbox)
}

/// `tack doctor`'s lines: the sandbox's setting, what the kernel offers, and
/// whether a confined command really runs here.
pub fn sandbox_report(settings: &Settings) -> String {
    let s = settings.sandbox();
    let mut out = format!(
        "sandbox: {}\n",
        if s.enabled() {
            "enabled (sandbox.enabled; Bash commands are confined)"
        } else {
            "off (sandbox.enabled is not set; `--sandbox` turns it on for a session)"
        }
    );
    #[cfg(target_os = "linux")]
    {
        let k = tack_sandbox::kernel_support();
        let userns = k
            .user_namespaces
            .map_or("yes".to_owned(), |why| format!("no ({why})"));
        let landlock = match k.landlock_abi {
            0 => "no".to_owned(),
            abi => format!("ABI {abi}"),
        };
        let seccomp = if k.seccomp { "yes" } else { "no" };
        out.push_str(&format!(
            "  kernel: user namespaces {userns}; Landlock {landlock}; seccomp {seccomp}\n"
        ));
        let works = match tack_sandbox::probe(Path::new("/proc/self/exe")) {
            Availability::Available => "works here".to_owned(),
            Availability::Unavailable(why) => format!("unavailable: {why}"),
        };
        out.push_str(&format!("  confinement: {works}\n"));
    }
    out
}
