//! Where a marketplace comes from (the `source` object of
//! `known_marketplaces.json` and `extraKnownMarketplaces`), and where a
//! plugin of a marketplace comes from (an entry's `source`), as Claude Code
//! spells them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::InstallError;

/// A marketplace's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum MarketplaceSource {
    /// `owner/repo` on GitHub, cloned.
    Github {
        repo: String,
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        git_ref: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// Any git URL (`https://…`, `git@…`, `file://…`), cloned.
    Git {
        url: String,
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        git_ref: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// A `marketplace.json` over HTTP(S), fetched.
    Url { url: String },
    /// A local folder with `.claude-plugin/marketplace.json`, used in place.
    Directory { path: String },
    /// A local `marketplace.json`, used in place.
    File { path: String },
}

impl MarketplaceSource {
    /// What `marketplace list` shows.
    pub fn describe(&self) -> String {
        match self {
            MarketplaceSource::Github { repo, git_ref, .. } => match git_ref {
                Some(r) => format!("GitHub ({repo}@{r})"),
                None => format!("GitHub ({repo})"),
            },
            MarketplaceSource::Git { url, .. } => format!("Git ({url})"),
            MarketplaceSource::Url { url } => format!("URL ({url})"),
            MarketplaceSource::Directory { path } => format!("Directory ({path})"),
            MarketplaceSource::File { path } => format!("File ({path})"),
        }
    }

    /// The git URL and ref to clone, for the sources that are cloned.
    pub(crate) fn clone_spec(&self) -> Option<(String, Option<String>)> {
        match self {
            MarketplaceSource::Github { repo, git_ref, .. } => {
                Some((github_url(repo), git_ref.clone()))
            }
            MarketplaceSource::Git { url, git_ref, .. } => Some((url.clone(), git_ref.clone())),
            MarketplaceSource::Url { .. }
            | MarketplaceSource::Directory { .. }
            | MarketplaceSource::File { .. } => None,
        }
    }
}

pub(crate) fn github_url(repo: &str) -> String {
    format!("https://github.com/{repo}.git")
}

/// Reads the argument of `marketplace add`: a local folder or
/// `marketplace.json`, a URL to a `marketplace.json`, a git URL, or GitHub's
/// `owner/repo` (a ref after `@` or `#`).
pub fn parse_marketplace_arg(arg: &str, cwd: &Path) -> Result<MarketplaceSource, InstallError> {
    let arg = arg.trim();
    let (base, git_ref) = split_ref(arg);
    if arg.starts_with("http://") || arg.starts_with("https://") {
        if arg.ends_with(".json") {
            return Ok(MarketplaceSource::Url {
                url: arg.to_owned(),
            });
        }
        return Ok(MarketplaceSource::Git {
            url: base.to_owned(),
            git_ref,
            path: None,
        });
    }
    if ["file://", "git://", "ssh://", "git@"]
        .iter()
        .any(|p| arg.starts_with(p))
    {
        return Ok(MarketplaceSource::Git {
            url: base.to_owned(),
            git_ref,
            path: None,
        });
    }
    let local = cwd.join(arg);
    if local.exists() || arg.starts_with('.') || arg.starts_with('/') {
        let path = local.canonicalize().map_err(|source| InstallError::Read {
            path: local.clone(),
            source,
        })?;
        let path = path.to_string_lossy().into_owned();
        return Ok(if local.is_dir() {
            MarketplaceSource::Directory { path }
        } else {
            MarketplaceSource::File { path }
        });
    }
    if is_github_repo(base) {
        return Ok(MarketplaceSource::Github {
            repo: base.to_owned(),
            git_ref,
            path: None,
        });
    }
    Err(InstallError::refused(format!(
        "`{arg}` is not a marketplace source: use a folder, a path to marketplace.json, \
         a git URL, a URL to marketplace.json, or GitHub's owner/repo"
    )))
}

/// `base@ref` / `base#ref` (not the `@` of `git@host`).
fn split_ref(arg: &str) -> (&str, Option<String>) {
    let search_from = if arg.starts_with("git@") { 4 } else { 0 };
    let tail = &arg[search_from..];
    let cut = tail
        .rfind('#')
        .or_else(|| tail.rfind('@').filter(|_| !tail.contains("://")));
    match cut {
        Some(i) if i + 1 < tail.len() => (&arg[..search_from + i], Some(tail[i + 1..].to_owned())),
        _ => (arg, None),
    }
}

/// `owner/repo` with GitHub's characters.
fn is_github_repo(s: &str) -> bool {
    let ok = |part: &str| {
        !part.is_empty()
            && !part.starts_with('.')
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    matches!(s.split_once('/'), Some((owner, repo)) if ok(owner) && ok(repo) && !repo.contains('/'))
}

/// Where a marketplace entry's plugin comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginEntrySource {
    /// `./path` under the marketplace's root.
    Relative(String),
    /// `{source: "github", repo, ref?, sha?}`.
    Github {
        repo: String,
        git_ref: Option<String>,
        sha: Option<String>,
    },
    /// `{source: "url" | "git", url, ref?, sha?}`: a git repository.
    Git {
        url: String,
        git_ref: Option<String>,
        sha: Option<String>,
    },
    /// `{source: "git-subdir", url, path, ref?, sha?}`.
    GitSubdir {
        url: String,
        path: String,
        git_ref: Option<String>,
        sha: Option<String>,
    },
    /// A kind tack does not install (npm, pip, …): named in the error.
    Unsupported(String),
}

impl PluginEntrySource {
    /// Reads an entry's `source`; `None` when it has none or a malformed one.
    pub fn from_json(value: &serde_json::Value) -> Option<PluginEntrySource> {
        if let Some(path) = value.as_str() {
            return Some(PluginEntrySource::Relative(path.to_owned()));
        }
        let field = |k: &str| value.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        let (git_ref, sha) = (field("ref"), field("sha"));
        Some(match field("source")?.as_str() {
            "github" => PluginEntrySource::Github {
                repo: field("repo")?,
                git_ref,
                sha,
            },
            "url" | "git" => PluginEntrySource::Git {
                url: field("url")?,
                git_ref,
                sha,
            },
            "git-subdir" => {
                let url = field("url")?;
                let url = if is_github_repo(&url) {
                    github_url(&url)
                } else {
                    url
                };
                PluginEntrySource::GitSubdir {
                    url,
                    path: field("path")?,
                    git_ref,
                    sha,
                }
            }
            other => PluginEntrySource::Unsupported(other.to_owned()),
        })
    }
}
