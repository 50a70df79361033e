//! Marketplace names only Anthropic may use, as Claude Code reserves them (so
//! a marketplace cannot pass for the official one): one check, made by
//! `marketplace add` (and update) and by `plugin validate`, so a marketplace
//! that validates is one that can be added.

use crate::marketplace::Marketplace;
use crate::source::MarketplaceSource;

/// The reserved names: Anthropic's official marketplaces, the community
/// ones it runs, and its plugin directory.
pub const RESERVED_NAMES: &[&str] = &[
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
    "life-sciences",
    "knowledge-work-plugins",
    "claude-for-legal",
    "claude-for-financial-services",
    "financial-services-plugins",
    "first-party-plugins",
    "claude-tag-plugins",
    "claude-community",
    "claude-plugins-community",
    "healthcare",
    "anthropic-plugin-directory",
    "claude-plugin-directory",
];

/// Whether `market` may be added from `source` (`None`: a local folder or
/// file, as `validate` reads it): a reserved name only from a GitHub or git
/// repository of github.com/anthropics/. The refusal says what to do.
pub fn check_marketplace_name(
    market: &Marketplace,
    source: Option<&MarketplaceSource>,
) -> Result<(), String> {
    let name = market.name.as_str();
    let anthropic = match source {
        Some(MarketplaceSource::Github { repo, .. }) => repo.starts_with("anthropics/"),
        Some(MarketplaceSource::Git { url, .. }) => {
            let url = url.trim_start_matches("git@").replace(':', "/");
            url.contains("github.com/anthropics/")
        }
        Some(
            MarketplaceSource::Url { .. }
            | MarketplaceSource::Directory { .. }
            | MarketplaceSource::File { .. },
        )
        | None => false,
    };
    if anthropic || !RESERVED_NAMES.contains(&name) {
        return Ok(());
    }
    Err(format!(
        "{}: the marketplace name `{name}` is reserved for Anthropic's own marketplaces; \
         rename it (its `name` field) to one of your own. Reserved names: {}",
        market.path.display(),
        RESERVED_NAMES.join(", ")
    ))
}
