//! `tack plugin install | uninstall | enable | disable | update`: a plugin of
//! a marketplace is copied (or cloned) into
//! `cache/<marketplace>/<plugin>/<version>/`, recorded in
//! `installed_plugins.json` for its scope, and switched on or off in that
//! scope's settings file (`enabledPlugins["<plugin>@<marketplace>"]`).

use std::path::PathBuf;

use serde_json::Value;

use crate::context::Context;
use crate::copy::copy_plugin;
use crate::error::InstallError;
use crate::git;
use crate::installed::{Install, InstallScope, InstalledPlugins};
use crate::known::{KnownMarketplace, KnownMarketplaces};
use crate::layers::set_setting;
use crate::marketplace::{Marketplace, MarketplaceEntry};
use crate::marketplaces::{open_marketplace, update_marketplaces};
use crate::plugin::{Plugin, PluginSource};
use crate::source::{MarketplaceSource, PluginEntrySource, github_url};
use crate::store::{now, remove_dir, replace_dir};

/// What an install or update did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `plugin@marketplace`.
    pub id: String,
    pub version: String,
    pub install_path: PathBuf,
    /// The version before an update (`None` for a new install).
    pub previous: Option<String>,
}

/// `plugin@marketplace` split; without `@`, the marketplace is found.
fn split_id(spec: &str) -> (&str, Option<&str>) {
    match spec.rsplit_once('@') {
        Some((plugin, marketplace)) => (plugin, Some(marketplace)),
        None => (spec, None),
    }
}

/// Installs `spec` (`plugin` or `plugin@marketplace`) for `scope` and
/// enables it there.
pub fn install(ctx: &Context, spec: &str, scope: InstallScope) -> Result<Installed, InstallError> {
    let (plugin, marketplace) = split_id(spec);
    let marketplace = match marketplace {
        Some(m) => m.to_owned(),
        None => find_marketplace_of(ctx, plugin)?,
    };
    let (known, market) = open_marketplace(ctx, &marketplace)?;
    let entry = market.entry(plugin).ok_or_else(|| {
        InstallError::refused(format!(
            "plugin `{plugin}` not found in marketplace `{marketplace}`"
        ))
    })?;
    let installed = fetch_into_cache(ctx, &known, &market, entry, scope)?;
    let settings = scope.settings_file(&ctx.claude_dir, &ctx.project_dir);
    set_setting(
        &settings,
        "enabledPlugins",
        &installed.id,
        Some(Value::Bool(true)),
    )?;
    Ok(installed)
}

/// The one known marketplace that lists `plugin`.
fn find_marketplace_of(ctx: &Context, plugin: &str) -> Result<String, InstallError> {
    let known = KnownMarketplaces::read(&ctx.plugins_dir())?;
    let found: Vec<&String> = known
        .entries
        .iter()
        .filter(|(_, k)| {
            Marketplace::load(&k.install_location).is_ok_and(|m| m.entry(plugin).is_some())
        })
        .map(|(name, _)| name)
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(InstallError::refused(format!(
            "plugin `{plugin}` not found in any marketplace (see `tack plugin marketplace list`)"
        ))),
        many => Err(InstallError::refused(format!(
            "plugin `{plugin}` is in several marketplaces ({}): name one, as `{plugin}@<marketplace>`",
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Copies or clones the entry's plugin into the cache and records the
/// install for `scope`.
fn fetch_into_cache(
    ctx: &Context,
    known: &KnownMarketplace,
    market: &Marketplace,
    entry: &MarketplaceEntry,
    scope: InstallScope,
) -> Result<Installed, InstallError> {
    let dir = ctx.plugins_dir();
    let tmp = dir.staging("plugin-")?;
    let staged = tmp.path().join("plugin");
    let sha = stage_plugin(ctx, known, market, entry, &staged)?;
    let source = PluginSource::Installed {
        marketplace: market.name.clone(),
    };
    let mut plugin = Plugin::load_or_named(&staged, &entry.name, source)?;
    entry.apply_to(&mut plugin).map_err(InstallError::Refused)?;
    if plugin.name != entry.name {
        return Err(InstallError::refused(format!(
            "marketplace `{}` lists `{}`, but its manifest names it `{}`",
            market.name, entry.name, plugin.name
        )));
    }
    plugin.command_paths()?;
    plugin.agent_paths()?;
    plugin.skill_paths()?;
    plugin.output_style_paths()?;
    plugin.hooks()?;
    plugin.mcp_servers()?;
    let version = cache_version(&plugin, entry, sha.as_deref());
    let target = dir.cache_dir(&market.name, &entry.name, &version);
    replace_dir(&staged, &target)?;
    let id = format!("{}@{}", entry.name, market.name);
    let mut installed = InstalledPlugins::read(&dir)?;
    let previous = installed.plugins.get(&id).and_then(|list| {
        list.iter()
            .find(|i| i.is_for(scope, &ctx.project_dir))
            .cloned()
    });
    let time = now();
    installed.upsert(
        &id,
        Install {
            scope,
            project_path: (scope != InstallScope::User).then(|| ctx.project_dir.clone()),
            install_path: target.clone(),
            version: Some(version.clone()),
            installed_at: Some(
                previous
                    .as_ref()
                    .and_then(|p| p.installed_at.clone())
                    .unwrap_or_else(|| time.clone()),
            ),
            last_updated: Some(time),
            git_commit_sha: sha,
        },
    );
    installed.write(&dir)?;
    if let Some(old) = &previous
        && old.install_path != target
        && !installed.uses(&old.install_path)
    {
        remove_dir(&old.install_path)?;
    }
    Ok(Installed {
        id,
        version,
        install_path: target,
        previous: previous.and_then(|p| p.version),
    })
}

/// Puts the plugin's files at `dest`; returns the commit when it came from
/// git.
fn stage_plugin(
    ctx: &Context,
    known: &KnownMarketplace,
    market: &Marketplace,
    entry: &MarketplaceEntry,
    dest: &std::path::Path,
) -> Result<Option<String>, InstallError> {
    let clone = |url: &str, r: &Option<String>, sha: &Option<String>, to: &std::path::Path| {
        git::clone(url, r.as_deref(), sha.as_deref(), to, ctx.git_timeout)
    };
    match &entry.source {
        None => Err(InstallError::refused(format!(
            "{}: plugin `{}` has no `source`",
            market.path.display(),
            entry.name
        ))),
        Some(PluginEntrySource::Relative(rel)) => {
            if matches!(known.source, MarketplaceSource::Url { .. }) {
                return Err(InstallError::refused(format!(
                    "plugin `{}` has a relative source, which a marketplace added by URL \
                     cannot provide: add the marketplace from its git repository",
                    entry.name
                )));
            }
            copy_plugin(&market.relative_dir(rel)?, dest)?;
            Ok(git::head(&market.root, ctx.git_timeout).ok())
        }
        Some(PluginEntrySource::Github { repo, git_ref, sha }) => {
            let sha = clone(&github_url(repo), git_ref, sha, dest)?;
            remove_dir(&dest.join(".git"))?;
            Ok(Some(sha))
        }
        Some(PluginEntrySource::Git { url, git_ref, sha }) => {
            let sha = clone(url, git_ref, sha, dest)?;
            remove_dir(&dest.join(".git"))?;
            Ok(Some(sha))
        }
        Some(PluginEntrySource::GitSubdir {
            url,
            path,
            git_ref,
            sha,
        }) => {
            let tmp = ctx.plugins_dir().staging("subdir-")?;
            let repo = tmp.path().join("repo");
            let sha = clone(url, git_ref, sha, &repo)?;
            let fake = Marketplace {
                root: repo.clone(),
                plugin_root: None,
                ..market.clone()
            };
            copy_plugin(&fake.relative_dir(path)?, dest)?;
            Ok(Some(sha))
        }
        Some(PluginEntrySource::Unsupported(kind)) => Err(InstallError::refused(format!(
            "plugin `{}` comes from a `{kind}` source, which tack does not install yet",
            entry.name
        ))),
    }
}

/// The cache folder's version: the plugin's, the entry's, the commit's
/// first 12 characters, else `unknown`; made one safe path segment.
fn cache_version(plugin: &Plugin, entry: &MarketplaceEntry, sha: Option<&str>) -> String {
    let raw = plugin
        .manifest
        .version
        .clone()
        .or_else(|| entry.version.clone())
        .or_else(|| sha.map(|s| s.chars().take(12).collect()))
        .unwrap_or_else(|| "unknown".to_owned());
    let safe: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+') {
                c
            } else {
                '-'
            }
        })
        .collect();
    match safe.trim_start_matches('.') {
        "" => "unknown".to_owned(),
        s => s.to_owned(),
    }
}

/// The installed id `spec` means: itself with `@`, else the one installed
/// plugin of that name.
pub fn installed_id(ctx: &Context, spec: &str) -> Result<String, InstallError> {
    let installed = InstalledPlugins::read(&ctx.plugins_dir())?;
    if spec.contains('@') {
        return Ok(spec.to_owned());
    }
    let ids: Vec<&String> = installed
        .plugins
        .keys()
        .filter(|id| split_id(id).0 == spec)
        .collect();
    match ids.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(InstallError::refused(format!(
            "plugin `{spec}` is not installed"
        ))),
        _ => Err(InstallError::refused(format!(
            "several installed plugins are named `{spec}`: use `{spec}@<marketplace>`"
        ))),
    }
}

/// Removes the install of `scope` and its `enabledPlugins` entry there; the
/// cached files go when no other install uses them.
pub fn uninstall(ctx: &Context, spec: &str, scope: InstallScope) -> Result<String, InstallError> {
    let id = installed_id(ctx, spec)?;
    let dir = ctx.plugins_dir();
    let mut installed = InstalledPlugins::read(&dir)?;
    let Some(removed) = installed.remove(&id, scope, &ctx.project_dir) else {
        return Err(InstallError::refused(format!(
            "plugin `{id}` is not installed in {} scope",
            scope.name()
        )));
    };
    installed.write(&dir)?;
    let settings = scope.settings_file(&ctx.claude_dir, &ctx.project_dir);
    set_setting(&settings, "enabledPlugins", &id, None)?;
    if !installed.uses(&removed.install_path) && removed.install_path.starts_with(&dir.root) {
        remove_dir(&removed.install_path)?;
    }
    Ok(id)
}

/// Sets `enabledPlugins[id]` in `scope`'s settings file.
pub fn set_enabled(
    ctx: &Context,
    spec: &str,
    scope: InstallScope,
    on: bool,
) -> Result<String, InstallError> {
    let id = installed_id(ctx, spec)?;
    let installed = InstalledPlugins::read(&ctx.plugins_dir())?;
    if !installed.plugins.contains_key(&id) {
        return Err(InstallError::refused(format!(
            "plugin `{id}` is not installed"
        )));
    }
    let settings = scope.settings_file(&ctx.claude_dir, &ctx.project_dir);
    set_setting(&settings, "enabledPlugins", &id, Some(Value::Bool(on)))?;
    Ok(id)
}

/// Installs the marketplace's current version of `spec` again, for each of
/// its installs that applies here (or only `scope`'s).
pub fn update(
    ctx: &Context,
    spec: &str,
    scope: Option<InstallScope>,
) -> Result<Vec<Installed>, InstallError> {
    let id = installed_id(ctx, spec)?;
    let installed = InstalledPlugins::read(&ctx.plugins_dir())?;
    let scopes: Vec<InstallScope> = installed
        .plugins
        .get(&id)
        .into_iter()
        .flatten()
        .filter(|i| i.applies_in(&ctx.project_dir))
        .map(|i| i.scope)
        .filter(|s| scope.is_none_or(|want| want == *s))
        .collect();
    if scopes.is_empty() {
        return Err(InstallError::refused(format!(
            "plugin `{id}` is not installed here"
        )));
    }
    let marketplace = split_id(&id).1.unwrap_or_default();
    // The marketplace's clone is refreshed first: its file says what the
    // current version is.
    if KnownMarketplaces::read(&ctx.plugins_dir())?
        .get(marketplace)
        .is_some()
    {
        update_marketplaces(ctx, Some(marketplace))?;
    }
    reinstall(ctx, &id, scopes)
}

/// The installs of `id` of `scopes` made again from its marketplace as it
/// is now (not refreshed).
pub(crate) fn reinstall(
    ctx: &Context,
    id: &str,
    scopes: Vec<InstallScope>,
) -> Result<Vec<Installed>, InstallError> {
    let (plugin, marketplace) = split_id(id);
    let marketplace = marketplace.unwrap_or_default();
    let (known, market) = open_marketplace(ctx, marketplace)?;
    let entry = market.entry(plugin).ok_or_else(|| {
        InstallError::refused(format!(
            "plugin `{plugin}` is no longer in marketplace `{}`",
            market.name
        ))
    })?;
    scopes
        .into_iter()
        .map(|s| fetch_into_cache(ctx, &known, &market, entry, s))
        .collect()
}

/// The plugin of an install, loaded as the runtime loads it.
pub(crate) fn load_installed(
    id: &str,
    install: &Install,
    entry: Option<&MarketplaceEntry>,
) -> Result<Plugin, String> {
    let (name, marketplace) = split_id(id);
    if !install.install_path.is_dir() {
        return Err(format!(
            "plugin {id}: its files are missing from {} (reinstall: `tack plugin install {id}`)",
            install.install_path.display()
        ));
    }
    let source = PluginSource::Installed {
        marketplace: marketplace.unwrap_or_default().to_owned(),
    };
    let mut plugin = Plugin::load_or_named(&install.install_path, name, source)
        .map_err(|e| format!("plugin {id}: {e}"))?;
    if let Some(entry) = entry {
        entry
            .apply_to(&mut plugin)
            .map_err(|e| format!("plugin {id}: {e}"))?;
    }
    Ok(plugin)
}
