//! Marketplaces with `autoUpdate` (Claude Code's per-marketplace switch in
//! `known_marketplaces.json`, or on an `extraKnownMarketplaces` entry of a
//! settings file the session may use): refreshed, and the plugins installed
//! from them here made again at the marketplace's current version. The
//! runtime runs this on a thread of its own after a terminal UI session
//! starts (never on the start-up path, never for `-p`, SDK or `tack batch`
//! sessions); the new versions load in the next session.

use crate::context::Context;
use crate::error::InstallError;
use crate::install::{Installed, reinstall};
use crate::installed::{InstallScope, InstalledPlugins};
use crate::known::KnownMarketplaces;
use crate::marketplaces::update_marketplaces;

/// What an auto-update did: the plugins whose version changed, and one line
/// each about what failed.
#[derive(Debug, Default)]
pub struct AutoUpdated {
    pub updated: Vec<Installed>,
    pub warnings: Vec<String>,
}

/// Refreshes the `autoUpdate` marketplaces and updates their installed
/// plugins, holding the plugins folder's lock throughout. Nothing to do (no
/// marketplace asks for it): nothing written.
pub fn auto_update(ctx: &Context) -> Result<AutoUpdated, InstallError> {
    let dir = ctx.plugins_dir();
    let known = KnownMarketplaces::read(&dir)?;
    let names: Vec<String> = known
        .entries
        .iter()
        .filter(|(name, entry)| {
            entry.other.get("autoUpdate").and_then(|v| v.as_bool()) == Some(true)
                || declared_auto_update(ctx, name)
        })
        .map(|(name, _)| name.clone())
        .collect();
    let mut out = AutoUpdated::default();
    if names.is_empty() {
        return Ok(out);
    }
    let _lock = dir.lock()?;
    let installed = InstalledPlugins::read(&dir)?;
    for name in names {
        if let Err(e) = update_marketplaces(ctx, Some(&name)) {
            out.warnings
                .push(format!("marketplace {name} could not be auto-updated: {e}"));
            continue;
        }
        let suffix = format!("@{name}");
        for (id, installs) in installed
            .plugins
            .iter()
            .filter(|(id, _)| id.ends_with(&suffix))
        {
            let scopes: Vec<InstallScope> = installs
                .iter()
                .filter(|i| i.applies_in(&ctx.project_dir))
                .map(|i| i.scope)
                .collect();
            if scopes.is_empty() {
                continue;
            }
            match reinstall(ctx, id, scopes) {
                Ok(done) => out.updated.extend(
                    done.into_iter()
                        .filter(|d| d.previous.as_ref() != Some(&d.version)),
                ),
                Err(e) => out
                    .warnings
                    .push(format!("plugin {id} could not be auto-updated: {e}")),
            }
        }
    }
    dir.tidy();
    Ok(out)
}

/// Whether a settings file the session may use sets `autoUpdate: true` on
/// the `extraKnownMarketplaces` entry `name` (an untrusted checkout's does
/// not count).
fn declared_auto_update(ctx: &Context, name: &str) -> bool {
    ctx.layers
        .iter()
        .filter(|l| ctx.project_trusted || !l.level.from_checkout())
        .filter_map(|l| {
            l.value
                .get("extraKnownMarketplaces")?
                .get(name)?
                .get("autoUpdate")
        })
        .any(|v| v.as_bool() == Some(true))
}
