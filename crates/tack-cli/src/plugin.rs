//! `tack plugin …` and `tack plugin marketplace …`: the flags, then
//! tack-plugins' operations, printed like `claude plugin`. The one thing
//! done here is fetching a `marketplace.json` URL (tack-plugins has no HTTP
//! client).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;
use tack_plugins::{Context, InstallScope, InstalledPlugins, git::GIT_TIMEOUT};
use tack_runtime::Place;
use tack_sys::terminal_text::visible;

use crate::cli::{MarketplaceCommand, PluginCommand};

/// A marketplace file fetched over HTTP: the largest body read.
const MAX_FETCH_BYTES: usize = 8 << 20;
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `f` with the context `tack plugin`'s operations are given for
/// `place`; the settings files' warnings go to `warn`. With `changes`, under
/// the plugins folder's lock for the whole read-modify-write (and the tidy
/// after it).
pub fn with_context<T>(
    place: &Place,
    changes: bool,
    warn: &dyn Fn(&str),
    f: impl FnOnce(&Context) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let loaded = tack_runtime::load_settings(place, None)?;
    let (layers, warnings) = tack_runtime::plugin_layers(&loaded.locations);
    for w in warnings {
        warn(&w);
    }
    let fetch = fetch_url;
    let ctx = Context {
        claude_dir: place.claude_dir.clone(),
        project_dir: loaded.locations.project_dir.clone(),
        cwd: place.cwd.clone(),
        layers,
        project_trusted: loaded.locations.workspace_trusted,
        fetch: &fetch,
        git_timeout: GIT_TIMEOUT,
    };
    let lock = changes.then(|| ctx.plugins_dir().lock()).transpose()?;
    let result = f(&ctx);
    if lock.is_some() {
        ctx.plugins_dir().tidy();
    }
    drop(lock);
    result
}

pub fn run(place: &Place, command: PluginCommand) -> anyhow::Result<ExitCode> {
    if let PluginCommand::Validate { path } = &command {
        return Ok(validate(&place.cwd.join(path)));
    }
    let warn = |w: &str| eprintln!("warning: {}", visible(w));
    let changes = changes_state(&command);
    let result = with_context(place, changes, &warn, |ctx| command_text(ctx, command));
    // Names, descriptions and paths come from marketplaces and plugins.
    let text = result?;
    let text = visible(&text);
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `command` writes the plugins folder or a settings file.
fn changes_state(command: &PluginCommand) -> bool {
    match command {
        PluginCommand::Marketplace(m) => !matches!(m, MarketplaceCommand::List { .. }),
        PluginCommand::Install { .. }
        | PluginCommand::Uninstall { .. }
        | PluginCommand::Enable { .. }
        | PluginCommand::Disable { .. }
        | PluginCommand::Update { .. } => true,
        PluginCommand::List { .. }
        | PluginCommand::Details { .. }
        | PluginCommand::Validate { .. } => false,
    }
}

fn command_text(ctx: &Context, command: PluginCommand) -> anyhow::Result<String> {
    Ok(match command {
        PluginCommand::Marketplace(m) => marketplace(ctx, m)?,
        PluginCommand::Install { plugin, scope } => {
            let scope = InstallScope::parse(&scope)?;
            let done = tack_plugins::install(ctx, &plugin, scope)?;
            format!(
                "✔ Successfully installed plugin: {} (scope: {})",
                done.id,
                scope.name()
            )
        }
        PluginCommand::Uninstall { plugin, scope } => {
            let scope = InstallScope::parse(&scope)?;
            let id = tack_plugins::uninstall(ctx, &plugin, scope)?;
            format!(
                "✔ Successfully uninstalled plugin: {id} (scope: {})",
                scope.name()
            )
        }
        PluginCommand::Enable { plugin, scope } => toggle(ctx, &plugin, &scope, true)?,
        PluginCommand::Disable { plugin, scope } => toggle(ctx, &plugin, &scope, false)?,
        PluginCommand::List { json, available } => match available {
            true => crate::plugin_catalog::available(ctx, json)?,
            false => list(ctx, json)?,
        },
        PluginCommand::Update { plugin, scope } => {
            let scope = scope.as_deref().map(InstallScope::parse).transpose()?;
            let mut out = String::new();
            for done in tack_plugins::update(ctx, &plugin, scope)? {
                match done.previous.filter(|p| *p != done.version) {
                    Some(old) => writeln!(
                        out,
                        "✔ Plugin {} updated from {old} to {}",
                        done.id, done.version
                    ),
                    None => writeln!(
                        out,
                        "✔ Plugin {} is already at the latest version ({})",
                        done.id, done.version
                    ),
                }?;
            }
            out
        }
        PluginCommand::Details { plugin } => crate::plugin_catalog::details(ctx, &plugin)?,
        PluginCommand::Validate { .. } => String::new(),
    })
}

fn toggle(ctx: &Context, plugin: &str, scope: &str, on: bool) -> anyhow::Result<String> {
    let scope = InstallScope::parse(scope)?;
    let id = tack_plugins::set_enabled(ctx, plugin, scope, on)?;
    let verb = if on { "enabled" } else { "disabled" };
    Ok(format!(
        "✔ Successfully {verb} plugin: {id} (scope: {})",
        scope.name()
    ))
}

fn marketplace(ctx: &Context, command: MarketplaceCommand) -> anyhow::Result<String> {
    Ok(match command {
        MarketplaceCommand::Add { source, scope } => {
            let scope = InstallScope::parse(&scope)?;
            let added = tack_plugins::add_marketplace(ctx, &source, scope)?;
            format!("✔ Successfully added marketplace: {}", added.name)
        }
        MarketplaceCommand::List { json } => {
            let (rows, broken) = tack_plugins::list_marketplaces(ctx)?;
            for b in broken {
                eprintln!(
                    "warning: known_marketplaces.json: {}",
                    visible(&b.to_string())
                );
            }
            if json {
                let items: Vec<_> = rows
                    .iter()
                    .map(|r| json!({"name": r.name, "source": r.source, "added": r.added}))
                    .collect();
                return Ok(serde_json::to_string_pretty(&items)?);
            }
            if rows.is_empty() {
                return Ok("No marketplaces configured".to_owned());
            }
            let mut out = String::from("Configured marketplaces:\n");
            for r in rows {
                write!(
                    out,
                    "\n  ❯ {}\n    Source: {}\n",
                    r.name,
                    r.source.describe()
                )?;
                if !r.added {
                    out.push_str("    Declared in settings; added on first install\n");
                }
            }
            out
        }
        MarketplaceCommand::Update { name } => {
            let mut out = String::new();
            for n in tack_plugins::update_marketplaces(ctx, name.as_deref())? {
                writeln!(out, "✔ Successfully updated marketplace: {n}")?;
            }
            out
        }
        MarketplaceCommand::Remove { name } => {
            tack_plugins::remove_marketplace(ctx, &name)?;
            format!("✔ Successfully removed marketplace: {name}")
        }
    })
}

fn list(ctx: &Context, as_json: bool) -> anyhow::Result<String> {
    let installed = InstalledPlugins::read(&ctx.plugins_dir())?;
    let (enabled, _) = tack_plugins::merged_enabled(&ctx.layers, ctx.project_trusted);
    let mut items = Vec::new();
    let mut out = String::from("Installed plugins:\n");
    for (id, installs) in &installed.plugins {
        let on = enabled.get(id).copied().unwrap_or(false);
        for i in installs.iter().filter(|i| i.applies_in(&ctx.project_dir)) {
            let version = i.version.as_deref().unwrap_or("unknown");
            items.push(json!({
                "id": id,
                "version": version,
                "scope": i.scope.name(),
                "enabled": on,
                "installPath": i.install_path,
            }));
            let status = if on { "✔ enabled" } else { "✘ disabled" };
            write!(
                out,
                "\n  ❯ {id}\n    Version: {version}\n    Scope: {}\n    Status: {status}\n",
                i.scope.name()
            )?;
        }
    }
    if as_json {
        return Ok(serde_json::to_string_pretty(&items)?);
    }
    if items.is_empty() {
        return Ok(
            "No plugins installed. Install one with `tack plugin install <plugin>@<marketplace>`."
                .to_owned(),
        );
    }
    Ok(out)
}

fn validate(path: &Path) -> ExitCode {
    let report = tack_plugins::validate(path);
    println!(
        "Validating {} manifest: {}\n",
        report.kind,
        visible(&report.path.display().to_string())
    );
    if report.errors.is_empty() {
        println!("✔ Validation passed");
        return ExitCode::SUCCESS;
    }
    let n = report.errors.len();
    println!("✘ Found {n} error{}:\n", if n == 1 { "" } else { "s" });
    for e in &report.errors {
        println!("  ❯ {}", visible(&e.to_string()));
    }
    println!("\n✘ Validation failed");
    ExitCode::from(1)
}

/// GETs `url` with tack's TLS setup, at most [`MAX_FETCH_BYTES`] within [`FETCH_TIMEOUT`].
fn fetch_url(url: &str) -> Result<Vec<u8>, String> {
    fetch_within(url, FETCH_TIMEOUT)
}

/// [`fetch_url`] with its time limit given.
fn fetch_within(url: &str, timeout: Duration) -> Result<Vec<u8>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    // reqwest says "error sending request" for a server that never answers.
    let failed = |e: reqwest::Error| match e.is_timeout() {
        true => format!("timed out after {timeout:?}"),
        false => tack_sys::error_text::chain(&e),
    };
    runtime.block_on(async {
        let tls = tack_api::tls::client_config(false).map_err(|e| e.to_string())?;
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .tcp_nodelay(true)
            .timeout(timeout)
            .build()
            .map_err(|e| e.to_string())?;
        let mut response = client.get(url).send().await.map_err(failed)?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        let body = tack_api::body::read_capped(&mut response, MAX_FETCH_BYTES)
            .await
            .map_err(failed)?;
        if body.truncated {
            return Err("the file is too large".to_owned());
        }
        Ok(body.bytes)
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use pretty_assertions::assert_eq;

    use super::*;

    /// A server that reads each request, sends `answer` and then nothing more;
    /// its URL.
    fn stalling(answer: &'static [u8]) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/marketplace.json", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for mut stream in listener.incoming().flatten() {
                let _ = stream.read(&mut [0u8; 4096]);
                let _ = stream.write_all(answer);
                held.push(stream);
            }
        });
        url
    }

    #[test]
    fn a_marketplace_url_that_stalls_says_it_timed_out_and_after_how_long() {
        let silent = stalling(b"");
        let half = stalling(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"name\"");
        let limit = Duration::from_millis(300);
        let errors = [fetch_within(&silent, limit), fetch_within(&half, limit)];
        let timed_out = Err::<Vec<u8>, _>("timed out after 300ms".to_owned());
        assert_eq!(errors, [timed_out.clone(), timed_out]);
    }
}
