//! The `/plugin` browser: every plugin the added marketplaces offer, with
//! whether it is installed and enabled; Enter installs the selected one, or
//! turns an installed one on or off. Each choice is a `/plugin <verb> <id>`
//! the driver runs with the library calls `tack plugin` uses, answering with
//! the refreshed list.

use crossterm::event::KeyEvent;
use ratatui::text::{Line, Span};
use tack_protocol::plugin_catalog::CatalogPlugin;

use super::{ListKey, boxed, list_key, one_line, picker_header, row_marker, window};
use crate::theme::Theme;

/// Rows of plugins shown at once.
const VISIBLE: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct PluginBrowser {
    plugins: Vec<CatalogPlugin>,
    filter: String,
    selected: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginOutcome {
    Open,
    Cancelled,
    /// The arguments of the `/plugin` command to run: `install <id>`,
    /// `enable <id>` or `disable <id>`.
    Run(String),
}

impl PluginBrowser {
    pub fn new(plugins: Vec<CatalogPlugin>) -> PluginBrowser {
        PluginBrowser {
            plugins,
            filter: String::new(),
            selected: 0,
        }
    }

    /// The list after an action: the same plugin stays selected.
    pub fn refreshed(&self, plugins: Vec<CatalogPlugin>) -> PluginBrowser {
        let id = self.visible().get(self.selected).map(|p| p.id());
        let mut next = PluginBrowser {
            plugins,
            filter: self.filter.clone(),
            selected: 0,
        };
        next.selected = next
            .visible()
            .iter()
            .position(|p| Some(p.id()) == id)
            .unwrap_or(0);
        next
    }

    fn visible(&self) -> Vec<&CatalogPlugin> {
        let needle = self.filter.to_lowercase();
        self.plugins
            .iter()
            .filter(|p| {
                needle.is_empty()
                    || p.id().to_lowercase().contains(&needle)
                    || p.description
                        .as_deref()
                        .is_some_and(|d| d.to_lowercase().contains(&needle))
            })
            .collect()
    }

    pub fn key(&mut self, key: KeyEvent) -> PluginOutcome {
        let count = self.visible().len();
        match list_key(key, &mut self.selected, &mut self.filter, count) {
            ListKey::Cancelled => PluginOutcome::Cancelled,
            ListKey::Chose => match self.visible().get(self.selected) {
                Some(p) => PluginOutcome::Run(format!("{} {}", verb(p), p.id())),
                None => PluginOutcome::Open,
            },
            ListKey::Moved | ListKey::Other => PluginOutcome::Open,
        }
    }

    pub fn render(&self, theme: &Theme, width: u16) -> Vec<Line<'static>> {
        let mut lines = picker_header(theme, "Plugins", &self.filter);
        let visible = self.visible();
        if visible.is_empty() {
            lines.push(Line::styled(
                "No plugins: add a marketplace with `tack plugin marketplace add <source>`",
                theme.dim(),
            ));
        }
        for i in window(self.selected, visible.len(), VISIBLE) {
            let p = visible[i];
            let (marker, style) = row_marker(theme, i == self.selected);
            let state = match (p.installed, p.enabled) {
                (false, _) => "  ",
                (true, true) => "✔ ",
                (true, false) => "○ ",
            };
            let mut spans = vec![
                Span::styled(marker, style),
                Span::styled(state, theme.dim()),
                Span::styled(one_line(&p.id()), style),
            ];
            if let Some(d) = &p.description {
                spans.push(Span::styled(format!(" · {}", one_line(d)), theme.dim()));
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::default());
        let verb = visible
            .get(self.selected)
            .map(|p| match (p.installed, p.enabled) {
                (false, _) => "install",
                (true, true) => "disable",
                (true, false) => "enable",
            });
        let hint = match verb {
            Some(v) => format!("↑/↓ select · enter {v} · esc close · ✔ enabled ○ disabled"),
            None => "esc close".to_owned(),
        };
        lines.push(Line::styled(hint, theme.dim()));
        boxed(lines, theme, width)
    }
}

/// What Enter does to `p`.
fn verb(p: &CatalogPlugin) -> &'static str {
    match (p.installed, p.enabled) {
        (false, _) => "install",
        (true, true) => "disable",
        (true, false) => "enable",
    }
}
