//! `/plugin`: the browser of what the added marketplaces offer, and the
//! install, enable and disable it asks for (`/plugin <verb> <id>`, typed or
//! chosen), run off the UI thread with the library calls `tack plugin` uses,
//! under the same lock. Each answers with a notice and the refreshed list. A
//! change takes effect in the next session, as Claude Code's does.

use tack_runtime::Place;
use tack_tui::{NoticeLevel, UiAction, UiEvent};

use super::{Driver, Internal};
use crate::plugin::with_context;
use crate::plugin_catalog::catalog_row;

impl Driver {
    pub(super) fn plugin_command(&mut self, args: &str) -> Vec<UiAction> {
        let (place, tx, args) = (self.place.clone(), self.tx.clone(), args.to_owned());
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Internal::Ui(plugin_events(&place, &args)));
        });
        Vec::new()
    }
}

/// What `/plugin <args>` shows: the result of the change asked for (if any),
/// then the list.
pub(super) fn plugin_events(place: &Place, args: &str) -> Vec<UiEvent> {
    let mut events = Vec::new();
    let notice = |level, text: String| UiEvent::Notice { level, text };
    let warnings = std::sync::Mutex::new(Vec::new());
    let warn = |w: &str| {
        if let Ok(mut list) = warnings.lock() {
            list.push(w.to_owned());
        }
    };
    let mut words = args.split_whitespace();
    let (verb, id) = (words.next(), words.next());
    let change = match (verb, id) {
        (None, _) => None,
        (Some(verb @ ("install" | "enable" | "disable")), Some(id)) => Some((verb, id)),
        (Some(_), _) => {
            let usage = "Usage: /plugin, or /plugin install|enable|disable <plugin>@<marketplace>";
            return vec![notice(NoticeLevel::Warning, usage.to_owned())];
        }
    };
    if let Some((verb, id)) = change {
        let done = with_context(place, true, &warn, |ctx| {
            let user = tack_plugins::InstallScope::User;
            Ok(match verb {
                "install" => tack_plugins::install(ctx, id, user)?.id,
                _ => tack_plugins::set_enabled(ctx, id, user, verb == "enable")?,
            })
        });
        events.push(match done {
            Ok(id) => notice(
                NoticeLevel::Info,
                format!(
                    "✔ {}: {id} (user scope). It applies from the next session.",
                    past(verb)
                ),
            ),
            Err(e) => notice(NoticeLevel::Error, e.to_string()),
        });
    }
    let listed = with_context(place, false, &warn, |ctx| {
        Ok(tack_plugins::available_plugins(ctx)?)
    });
    match listed {
        Ok((offered, more)) => {
            warn_all(&mut events, more);
            events.push(UiEvent::Plugins(
                offered.into_iter().map(catalog_row).collect(),
            ));
        }
        Err(e) => events.push(notice(NoticeLevel::Error, e.to_string())),
    }
    warn_all(&mut events, warnings.into_inner().unwrap_or_default());
    events
}

fn past(verb: &str) -> &'static str {
    match verb {
        "install" => "Installed",
        "enable" => "Enabled",
        _ => "Disabled",
    }
}

fn warn_all(events: &mut Vec<UiEvent>, warnings: Vec<String>) {
    events.extend(warnings.into_iter().map(|text| UiEvent::Notice {
        level: NoticeLevel::Warning,
        text,
    }));
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use pretty_assertions::assert_eq;
    use tack_protocol::plugin_catalog::CatalogPlugin;

    use super::*;

    fn write(path: std::path::PathBuf, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A home with marketplace `m` (plugin `kit`) added, and its place.
    fn place(home: &std::path::Path) -> Place {
        let market = home.join("market");
        write(
            market.join(".claude-plugin/marketplace.json"),
            r#"{"name": "m", "plugins": [{"name": "kit", "source": "./kit", "description": "A kit"}]}"#,
        );
        write(market.join("kit/commands/hi.md"), "Hi\n");
        let cwd = home.join("project");
        std::fs::create_dir_all(&cwd).unwrap();
        let env = tack_runtime::Env(HashMap::from([(
            "HOME".to_owned(),
            home.display().to_string(),
        )]));
        let place = Place::new(cwd, env).unwrap();
        let added = with_context(&place, true, &|_| {}, |ctx| {
            Ok(tack_plugins::add_marketplace(
                ctx,
                market.to_str().unwrap(),
                tack_plugins::InstallScope::User,
            )?)
        });
        assert_eq!(added.unwrap().name, "m");
        place
    }

    fn kit(installed: bool, enabled: bool) -> UiEvent {
        UiEvent::Plugins(vec![CatalogPlugin {
            name: "kit".into(),
            marketplace: "m".into(),
            description: Some("A kit".into()),
            version: None,
            installed,
            enabled,
        }])
    }

    fn info(text: &str) -> UiEvent {
        UiEvent::Notice {
            level: NoticeLevel::Info,
            text: text.into(),
        }
    }

    #[test]
    fn the_browser_lists_installs_disables_and_enables_with_the_cli_calls() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path().canonicalize().unwrap();
        let place = place(&home);
        assert_eq!(plugin_events(&place, ""), [kit(false, false)]);
        let next = "(user scope). It applies from the next session.";
        assert_eq!(
            plugin_events(&place, "install kit@m"),
            [info(&format!("✔ Installed: kit@m {next}")), kit(true, true)]
        );
        assert_eq!(
            plugin_events(&place, "disable kit@m"),
            [info(&format!("✔ Disabled: kit@m {next}")), kit(true, false)]
        );
        assert_eq!(
            plugin_events(&place, "enable kit@m"),
            [info(&format!("✔ Enabled: kit@m {next}")), kit(true, true)]
        );
        let settings = std::fs::read_to_string(home.join(".claude/settings.json")).unwrap();
        let settings: serde_json::Value = serde_json::from_str(&settings).unwrap();
        assert_eq!(
            settings,
            serde_json::json!({"enabledPlugins": {"kit@m": true}})
        );
        assert_eq!(
            plugin_events(&place, "frobnicate"),
            [UiEvent::Notice {
                level: NoticeLevel::Warning,
                text: "Usage: /plugin, or /plugin install|enable|disable <plugin>@<marketplace>"
                    .into()
            }]
        );
    }
}
