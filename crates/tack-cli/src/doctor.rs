//! `tack doctor`: what a user needs to know about this machine and folder
//! before a session: credentials, settings files (and what was wrong or
//! ignored in them), trust, hooks, the model, transcripts, versions, MCP
//! servers. Reads only; runs nothing a settings file configures (no MCP
//! server is started).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use tack_git::run::{GitCommand, GitOutput};
use tack_mcp::{
    ConfigScope, LoadOptions, McpPaths, NotStartedReason, ProjectApprovals, ServerConfig,
};
use tack_runtime::{LoadedSettings, NoticeLevel, Place};

/// How long `git --version` may take.
const GIT_VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Writes the report to stdout; exit 1 when something would stop a session.
pub fn run(place: &Place) -> anyhow::Result<ExitCode> {
    let (report, ok) = report(place);
    print!("{report}");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The report, and whether a session could start.
pub fn report(place: &Place) -> (String, bool) {
    let mut out = String::new();
    let mut ok = true;
    let project = tack_config::find_project_dir(&place.cwd);
    let _ = writeln!(out, "tack {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(out, "config dir: {}", place.config_dir.display());
    let _ = writeln!(out, "project: {}", project.display());
    let trust = match place.trust_store().lookup(&project) {
        Ok(t) if t.trusted => "trusted".to_owned(),
        Ok(_) => "not trusted: its settings cannot allow tools, run hooks or set the environment (`tack trust` to trust it)".to_owned(),
        Err(e) => {
            ok = false;
            format!("unknown: {e}")
        }
    };
    let _ = writeln!(out, "  trust: {trust}");

    let loaded = match tack_runtime::load_settings(place, None) {
        Ok(loaded) => Some(loaded),
        Err(e) => {
            ok = false;
            let _ = writeln!(out, "settings: ERROR {e}");
            None
        }
    };
    if let Some(loaded) = &loaded {
        let settings = &loaded.settings;
        let _ = writeln!(out, "settings files (lowest first):");
        let mut any = false;
        for source in settings.sources() {
            any = true;
            let _ = writeln!(out, "  {} ({})", source, source.scope().name());
        }
        if !any {
            let _ = writeln!(out, "  (none)");
        }
        for notice in &loaded.notices {
            let level = match notice.level {
                NoticeLevel::Info => "note",
                NoticeLevel::Warning => "warning",
                NoticeLevel::Error => "error",
            };
            let text = notice
                .text
                .strip_prefix("warning: ")
                .unwrap_or(&notice.text);
            let _ = writeln!(out, "  {level}: {text}");
        }
        ok &= credentials_and_model(place, settings, &mut out);
        let hooks = settings.hooks_by_source();
        if hooks.is_empty() {
            let _ = writeln!(out, "hooks: none");
        } else {
            let _ = writeln!(out, "hooks:");
            for (source, value) in hooks {
                let events: Vec<String> = value
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(event, groups)| {
                                let n = groups.as_array().map_or(0, Vec::len);
                                format!("{event} ×{n}")
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let _ = writeln!(out, "  {source}: {}", events.join(", "));
            }
        }
        let mode = settings
            .permissions()
            .default_mode()
            .map_or("default", |m| m.value().as_str());
        let _ = writeln!(
            out,
            "permissions: mode {mode}; {} allow, {} ask, {} deny rules",
            settings.permissions().allow().len(),
            settings.permissions().ask().len(),
            settings.permissions().deny().len()
        );
    }
    let sessions = place
        .session_store()
        .list_sessions(&place.cwd)
        .map_or(0, |s| s.len());
    let _ = writeln!(out, "sessions in this folder: {sessions}");
    // The `git` every git command of tack runs, hardened as they are.
    let git = GitCommand::new(&place.cwd, &["--version"], GIT_VERSION_TIMEOUT)
        .run_blocking()
        .and_then(GitOutput::success)
        .map(|version| version.trim().to_owned())
        .unwrap_or_else(|_| "not found (the git context is left out)".to_owned());
    let _ = writeln!(out, "git: {git}");
    if let Some(loaded) = &loaded {
        out.push_str(&tack_runtime::sandbox_report(&loaded.settings));
    }
    if let Some(loaded) = &loaded {
        ok &= mcp_servers(loaded, &mut out);
    }
    keybindings(place, &mut out);
    let _ = writeln!(
        out,
        "{}",
        if ok {
            "ok: a session can start here"
        } else {
            "problems above would stop a session"
        }
    );
    (out, ok)
}

/// `keybindings.json`'s problems, as Claude Code's /doctor lists them (a
/// bad file never stops a session: the defaults stay).
fn keybindings(place: &Place, out: &mut String) {
    let path = place.claude_dir.join("keybindings.json");
    if !path.exists() {
        let _ = writeln!(out, "keybindings: defaults ({} not found)", path.display());
        return;
    }
    let (_, warnings) = tack_tui::keybindings::Keymap::load(&path);
    if warnings.is_empty() {
        let _ = writeln!(out, "keybindings: {}", path.display());
        return;
    }
    let _ = writeln!(out, "keybindings: {}", path.display());
    for w in warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
}

/// The configured MCP servers, each with its scope and file, transport,
/// command or URL, and whether it would start; false when the configuration
/// cannot be read (a session would not start).
/// The credentials (or the Bedrock / Vertex platform and its credentials),
/// API, model and provider lines; false if no session could get credentials
/// for its model.
fn credentials_and_model(
    place: &Place,
    settings: &tack_config::Settings,
    out: &mut String,
) -> bool {
    let env = |k: &str| place.env.get(k);
    let mut missing = false;
    let mut platform_ok = true;
    let mut default = "anthropic (the default)".to_owned();
    match tack_runtime::cloud_platform(&place.env) {
        Err(e) => {
            let _ = writeln!(out, "platform: {e}");
            platform_ok = false;
        }
        Ok(Some(cloud)) => {
            let _ = writeln!(out, "platform: {}", cloud.describe());
            let _ = writeln!(out, "credentials: {}", cloud.credentials);
            default = "the default (the platform above)".to_owned();
        }
        Ok(None) => missing = !anthropic_credentials(place, settings, out),
    }
    let specs = match tack_runtime::provider_specs(settings, &place.env) {
        Ok(specs) => specs,
        Err(e) => {
            let _ = writeln!(out, "providers: {e}");
            platform_ok = false;
            Default::default()
        }
    };
    let (model, from) = match (env("ANTHROPIC_MODEL"), settings.model()) {
        (Some(m), _) => (m, "ANTHROPIC_MODEL"),
        (None, Some(m)) => (m.to_owned(), "settings"),
        (None, None) => (tack_runtime::DEFAULT_MODEL.to_owned(), "default"),
    };
    let resolved = tack_runtime::ModelAliases::from_env(&place.env).resolve(&model, false);
    let provider = tack_runtime::route_model(&specs, &resolved).and_then(|(n, _)| specs.get(&n));
    // A model of another provider needs no Anthropic key.
    let ok = platform_ok && !(missing && provider.is_none());
    let limits = tack_api::model_limits(&resolved);
    let known = if limits.known {
        format!(
            "{}k context, {}k output",
            limits.context_window / 1000,
            limits.max_output_tokens / 1000
        )
    } else {
        "not in tack's model table: limits and prices are estimates".to_owned()
    };
    let _ = writeln!(out, "model: {resolved} (from {from}; {known})");
    let provider = match provider {
        None => default,
        Some(p) => format!(
            "{} ({} at {}; {})",
            p.name,
            p.api.as_str(),
            p.base_url.as_deref().unwrap_or("its default URL"),
            if p.api_key.is_some() {
                "key set"
            } else {
                "no key"
            }
        ),
    };
    let _ = writeln!(out, "  provider: {provider}");
    ok
}

/// The Anthropic API's credentials and URL lines; false when there are none.
fn anthropic_credentials(
    place: &Place,
    settings: &tack_config::Settings,
    out: &mut String,
) -> bool {
    let env = |k: &str| place.env.get(k);
    let mut found = true;
    let credentials = match (env("ANTHROPIC_AUTH_TOKEN"), env("ANTHROPIC_API_KEY")) {
        (Some(t), _) => format!("ANTHROPIC_AUTH_TOKEN ({})", redacted(&t)),
        (None, Some(k)) => format!("ANTHROPIC_API_KEY ({})", redacted(&k)),
        (None, None) => match settings.api_key_helper() {
            Some(h) => format!("apiKeyHelper from {} (not run by doctor)", h.source()),
            None => {
                found = false;
                "none: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or an apiKeyHelper command in settings".to_owned()
            }
        },
    };
    let _ = writeln!(out, "credentials: {credentials}");
    let base = env("ANTHROPIC_BASE_URL");
    let _ = writeln!(
        out,
        "API: {}",
        base.as_deref()
            .unwrap_or("https://api.anthropic.com (default)")
    );
    found
}

fn mcp_servers(loaded: &LoadedSettings, out: &mut String) -> bool {
    let paths = McpPaths::from_locations(&loaded.locations);
    let approvals = ProjectApprovals::from_settings(&loaded.settings);
    let options = LoadOptions {
        mcp_config: &[],
        strict: false,
        approvals: &approvals,
    };
    let config = match tack_mcp::load_config(&paths, options) {
        Ok(config) => config,
        Err(e) => {
            let _ = writeln!(out, "MCP servers: ERROR {e}");
            return false;
        }
    };
    if config.servers.is_empty()
        && config.not_started.is_empty()
        && config.issues.is_empty()
        && config.warnings.is_empty()
    {
        let _ = writeln!(out, "MCP servers: none");
    } else {
        let _ = writeln!(out, "MCP servers (not started by doctor):");
    }
    for server in &config.servers {
        let target = match &server.config {
            ServerConfig::Stdio(s) if s.args.is_empty() => s.command.clone(),
            ServerConfig::Stdio(s) => format!("{} {}", s.command, s.args.join(" ")),
            ServerConfig::Http(r) | ServerConfig::Sse(r) => r.url.clone(),
            ServerConfig::Sdk { .. } => "served by the Agent SDK program".to_owned(),
        };
        let approval = match server.scope {
            ConfigScope::Project => "approved",
            ConfigScope::User | ConfigScope::Local | ConfigScope::Dynamic | ConfigScope::Plugin => {
                "needs no approval"
            }
        };
        let _ = writeln!(
            out,
            "  {}: {} {target} ({}, {}); {approval}",
            server.name,
            server.config.transport(),
            server.scope,
            server.origin
        );
    }
    for server in &config.not_started {
        let why = match server.reason {
            NotStartedReason::NeedsApproval => {
                "not approved (enabledMcpjsonServers or enableAllProjectMcpServers)"
            }
            NotStartedReason::Disabled => "disabled (disabledMcpjsonServers)",
        };
        let _ = writeln!(
            out,
            "  {}: {} ({}, {}); {why}",
            server.name,
            server.transport,
            ConfigScope::Project,
            server.origin
        );
    }
    for issue in &config.issues {
        let _ = writeln!(out, "  error: {issue}");
    }
    for warning in &config.warnings {
        let _ = writeln!(out, "  warning: {warning}");
    }
    true
}

/// `sk-ant-…wxyz`: enough to tell keys apart, not enough to use one.
fn redacted(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= 12 {
        return "…".to_owned();
    }
    let head: String = chars[..7].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_shortened() {
        assert_eq!(redacted("sk-ant-api03-abcdefghijklmnop"), "sk-ant-…mnop");
        assert_eq!(redacted("short"), "…");
    }
}
