//! `tack plugin marketplace add | list | update | remove`: a marketplace is
//! cloned (git, GitHub), fetched (a URL to `marketplace.json`) or used in
//! place (a local folder or file), then recorded in
//! `known_marketplaces.json` under the name its file gives.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::context::Context;
use crate::error::InstallError;
use crate::git;
use crate::installed::InstallScope;
use crate::known::{KnownMarketplace, KnownMarketplaces};
use crate::layers::{extra_marketplaces, marketplace_allowed, set_setting};
use crate::marketplace::{MARKETPLACE_PATH, Marketplace, parse_marketplace};
use crate::reserved::check_marketplace_name;
use crate::source::{MarketplaceSource, parse_marketplace_arg};
use crate::store::{MAX_JSON_BYTES, now, remove_dir, replace_dir};

/// A marketplace read from its source, not yet in place.
struct Staged {
    marketplace: Marketplace,
    /// The clone or fetched file, to move under `marketplaces/<name>`.
    dir: Option<tempfile::TempDir>,
    /// `path` of a git source: the file inside the clone.
    inner: Option<String>,
}

/// What `marketplace add` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedMarketplace {
    pub name: String,
    pub plugins: usize,
}

/// Adds the marketplace `arg` names. With a project or local scope it is
/// also declared in that settings file's `extraKnownMarketplaces`.
pub fn add_marketplace(
    ctx: &Context,
    arg: &str,
    scope: InstallScope,
) -> Result<AddedMarketplace, InstallError> {
    let source = parse_marketplace_arg(arg, &ctx.cwd)?;
    let added = add_source(ctx, &source, None)?;
    if scope != InstallScope::User {
        let path = scope.settings_file(&ctx.claude_dir, &ctx.project_dir);
        let entry = serde_json::json!({ "source": source });
        set_setting(&path, "extraKnownMarketplaces", &added.name, Some(entry))?;
    }
    Ok(added)
}

/// Adds `source`; `expected` is the name a declaration gave it.
pub(crate) fn add_source(
    ctx: &Context,
    source: &MarketplaceSource,
    expected: Option<&str>,
) -> Result<AddedMarketplace, InstallError> {
    marketplace_allowed(&ctx.layers, source).map_err(InstallError::Refused)?;
    let dir = ctx.plugins_dir();
    let mut known = KnownMarketplaces::read(&dir)?;
    let staged = stage(ctx, source)?;
    let name = staged.marketplace.name.clone();
    check_marketplace_name(&staged.marketplace, Some(source)).map_err(InstallError::Refused)?;
    if let Some(expected) = expected.filter(|e| *e != name) {
        return Err(InstallError::refused(format!(
            "marketplace `{expected}` is declared, but its file names it `{name}`"
        )));
    }
    if let Some(existing) = known.get(&name)
        && existing.source != *source
    {
        return Err(InstallError::refused(format!(
            "a marketplace named `{name}` is already added from {}: remove it first \
             (`tack plugin marketplace remove {name}`)",
            existing.source.describe()
        )));
    }
    let plugins = staged.marketplace.plugins.len();
    let location = place(ctx, staged, source)?;
    let other = known
        .get(&name)
        .map(|k| k.other.clone())
        .unwrap_or_default();
    known.insert(
        &name,
        KnownMarketplace {
            source: source.clone(),
            install_location: location,
            last_updated: Some(now()),
            other,
        },
    );
    known.write(&dir)?;
    Ok(AddedMarketplace { name, plugins })
}

/// Reads the marketplace from its source into a staging folder.
fn stage(ctx: &Context, source: &MarketplaceSource) -> Result<Staged, InstallError> {
    match source {
        MarketplaceSource::Directory { path } | MarketplaceSource::File { path } => Ok(Staged {
            marketplace: Marketplace::load(Path::new(path))?,
            dir: None,
            inner: None,
        }),
        MarketplaceSource::Url { url } => {
            let body = (ctx.fetch)(url).map_err(|message| InstallError::Fetch {
                url: url.clone(),
                message,
            })?;
            if body.len() as u64 > MAX_JSON_BYTES {
                return Err(InstallError::Fetch {
                    url: url.clone(),
                    message: "the file is too large".to_owned(),
                });
            }
            let value: Value = serde_json::from_slice(&body).map_err(|e| InstallError::Fetch {
                url: url.clone(),
                message: format!("not valid JSON: {e}"),
            })?;
            let tmp = ctx.plugins_dir().staging("marketplace-")?;
            let file = tmp.path().join(MARKETPLACE_PATH);
            crate::store::write_value(&file, &value)?;
            Ok(Staged {
                marketplace: parse_marketplace(&value, Path::new(url), tmp.path())?,
                dir: Some(tmp),
                inner: None,
            })
        }
        MarketplaceSource::Github { path, .. } | MarketplaceSource::Git { path, .. } => {
            let (url, git_ref) = source.clone_spec().unwrap_or_default();
            let tmp = ctx.plugins_dir().staging("marketplace-")?;
            let repo = tmp.path().join("repo");
            git::clone(&url, git_ref.as_deref(), None, &repo, ctx.git_timeout)?;
            let location = match path {
                Some(p) => inside(&repo, p)?,
                None => repo.clone(),
            };
            // Not the staging folder's path: the repository the user named.
            let marketplace = Marketplace::load(&location).map_err(|e| match e {
                InstallError::NotAMarketplace { looked, .. } => InstallError::NotAMarketplace {
                    place: source.describe(),
                    looked,
                },
                other => other,
            })?;
            Ok(Staged {
                marketplace,
                dir: Some(tmp),
                inner: path.clone(),
            })
        }
    }
}

/// A path inside `root` named by a marketplace source (no `..`).
fn inside(root: &Path, relative: &str) -> Result<PathBuf, InstallError> {
    let rel = Path::new(relative.trim_start_matches("./"));
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(InstallError::refused(format!(
            "marketplace path `{relative}` leaves the repository"
        )));
    }
    Ok(root.join(rel))
}

/// Moves a staged marketplace under `marketplaces/<name>`; returns its
/// `installLocation`.
fn place(
    ctx: &Context,
    staged: Staged,
    source: &MarketplaceSource,
) -> Result<PathBuf, InstallError> {
    let Some(tmp) = staged.dir else {
        return Ok(match source {
            MarketplaceSource::Directory { path } | MarketplaceSource::File { path } => {
                PathBuf::from(path)
            }
            _ => staged.marketplace.root,
        });
    };
    let target = ctx.plugins_dir().marketplace_dir(&staged.marketplace.name);
    let from = match source {
        MarketplaceSource::Url { .. } => tmp.path().to_path_buf(),
        _ => tmp.path().join("repo"),
    };
    replace_dir(&from, &target)?;
    match staged.inner {
        Some(p) => inside(&target, &p),
        None => Ok(target),
    }
}

/// A row of `marketplace list`.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketplaceRow {
    pub name: String,
    pub source: MarketplaceSource,
    /// Added to `known_marketplaces.json` (else only declared in settings).
    pub added: bool,
}

/// The known marketplaces, then those only declared in settings.
pub fn list_marketplaces(
    ctx: &Context,
) -> Result<(Vec<MarketplaceRow>, Vec<String>), InstallError> {
    let known = KnownMarketplaces::read(&ctx.plugins_dir())?;
    let mut rows: Vec<MarketplaceRow> = known
        .entries
        .iter()
        .map(|(name, k)| MarketplaceRow {
            name: name.clone(),
            source: k.source.clone(),
            added: true,
        })
        .collect();
    for (name, source) in extra_marketplaces(&ctx.layers, ctx.project_trusted) {
        if known.get(&name).is_none() {
            rows.push(MarketplaceRow {
                name,
                source,
                added: false,
            });
        }
    }
    Ok((rows, known.broken))
}

/// Refreshes one marketplace (or all): cloned and fetched ones from their
/// source again; local ones are re-read. Returns the names updated.
pub fn update_marketplaces(ctx: &Context, name: Option<&str>) -> Result<Vec<String>, InstallError> {
    let known = KnownMarketplaces::read(&ctx.plugins_dir())?;
    let names: Vec<String> = match name {
        Some(n) if known.get(n).is_none() => {
            return Err(InstallError::refused(format!(
                "marketplace `{n}` not found (see `tack plugin marketplace list`)"
            )));
        }
        Some(n) => vec![n.to_owned()],
        None => known.entries.keys().cloned().collect(),
    };
    for n in &names {
        if let Some(k) = known.get(n) {
            add_source(ctx, &k.source, Some(n))?;
        }
    }
    Ok(names)
}

/// Forgets a marketplace, deleting its clone (never a local folder).
pub fn remove_marketplace(ctx: &Context, name: &str) -> Result<(), InstallError> {
    let dir = ctx.plugins_dir();
    let mut known = KnownMarketplaces::read(&dir)?;
    let Some(entry) = known.remove(name) else {
        return Err(InstallError::refused(format!(
            "marketplace `{name}` not found (see `tack plugin marketplace list`)"
        )));
    };
    known.write(&dir)?;
    let ours = dir.marketplace_dir(name);
    if entry.install_location.starts_with(&ours) {
        remove_dir(&ours)?;
    }
    Ok(())
}

/// The marketplace `name`, added first when only settings declare it.
pub fn open_marketplace(
    ctx: &Context,
    name: &str,
) -> Result<(KnownMarketplace, Marketplace), InstallError> {
    let dir = ctx.plugins_dir();
    let mut known = KnownMarketplaces::read(&dir)?;
    if known.get(name).is_none() {
        let Some(source) = extra_marketplaces(&ctx.layers, ctx.project_trusted).remove(name) else {
            return Err(InstallError::refused(format!(
                "marketplace `{name}` not found: add it with `tack plugin marketplace add <source>`"
            )));
        };
        add_source(ctx, &source, Some(name))?;
        known = KnownMarketplaces::read(&dir)?;
    }
    let entry = known
        .remove(name)
        .ok_or_else(|| InstallError::refused(format!("marketplace `{name}` not found")))?;
    let marketplace = Marketplace::load(&entry.install_location)?;
    Ok((entry, marketplace))
}
