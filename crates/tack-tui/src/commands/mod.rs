//! Slash commands: the UI's built-ins, the menu (with the session's custom
//! commands, which the runtime loads and expands) and its filtering.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

/// The built-in commands: (name, description).
pub const BUILTINS: &[(&str, &str)] = &[
    ("help", "Show help and available commands"),
    ("clear", "Clear the conversation and start a new one"),
    (
        "compact",
        "Summarise the conversation to free context [instructions]",
    ),
    ("model", "Show or set the model"),
    ("cost", "Show the cost and duration of this session"),
    ("context", "Show how the context window is used"),
    ("resume", "Resume a past session of this project"),
    (
        "rewind",
        "Restore the code and/or conversation to an earlier prompt",
    ),
    ("status", "Show version, model, account and settings"),
    ("permissions", "Show and edit permission rules"),
    ("hooks", "Show the configured hooks"),
    ("sandbox", "Show the Bash sandbox's state"),
    ("memory", "Edit the memory files (CLAUDE.md, AGENTS.md)"),
    ("init", "Write a CLAUDE.md for this repository"),
    ("config", "Show the settings"),
    (
        "keybindings",
        "Open ~/.claude/keybindings.json (created when missing)",
    ),
    ("mcp", "Show MCP servers and their status"),
    (
        "plugin",
        "Browse marketplaces' plugins: install, enable, disable",
    ),
    ("agents", "Show the configured sub-agents"),
    ("bg", "Send this session to the background"),
    ("vim", "Toggle between Vim and Normal editing modes"),
    ("exit", "Exit tack"),
];

/// One entry of the slash-command menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuEntry {
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
}

/// Every command, built-ins first; a custom command named like a built-in is
/// left out (the built-in runs).
pub fn menu_entries(custom: &[MenuEntry]) -> Vec<MenuEntry> {
    BUILTINS
        .iter()
        .map(|(name, description)| MenuEntry {
            name: (*name).to_string(),
            description: (*description).to_string(),
            argument_hint: None,
        })
        .chain(
            custom
                .iter()
                .filter(|c| !BUILTINS.iter().any(|(name, _)| *name == c.name))
                .cloned(),
        )
        .collect()
}

/// The entries matching `query` (what follows the `/`): names starting with it
/// first (in menu order), then fuzzy matches by score.
pub fn filter_menu<'a>(entries: &'a [MenuEntry], query: &str) -> Vec<&'a MenuEntry> {
    if query.is_empty() {
        return entries.iter().collect();
    }
    let lower = query.to_lowercase();
    let mut out: Vec<&MenuEntry> = entries
        .iter()
        .filter(|e| e.name.to_lowercase().starts_with(&lower))
        .collect();
    let mut matcher = Matcher::new(Config::DEFAULT);
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut fuzzy: Vec<(&MenuEntry, u32)> = entries
        .iter()
        .filter(|e| !out.iter().any(|o| o.name == e.name))
        .filter_map(|e| {
            let mut buf = Vec::new();
            let score = pattern.score(
                nucleo_matcher::Utf32Str::new(&e.name, &mut buf),
                &mut matcher,
            )?;
            Some((e, score))
        })
        .collect();
    fuzzy.sort_by_key(|(_, score)| std::cmp::Reverse(*score));
    out.extend(fuzzy.into_iter().map(|(e, _)| e));
    out
}

/// `/name args` split into (name, args); `None` when `text` is not a command.
pub fn parse_command(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if name.is_empty() || name.contains('/') {
        return None;
    }
    Some((name, args.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn prefix_matches_come_first_then_fuzzy() {
        let entries = menu_entries(&[]);
        let names = |q: &str| -> Vec<String> {
            filter_menu(&entries, q)
                .into_iter()
                .map(|e| e.name.clone())
                .collect()
        };
        assert_eq!(names("co"), vec!["compact", "cost", "context", "config"]);
        assert_eq!(names("cst")[0], "cost");
        assert_eq!(names("xyz"), Vec::<String>::new());
        assert_eq!(names("").len(), BUILTINS.len());
    }

    #[test]
    fn parses_commands() {
        assert_eq!(
            parse_command("/compact keep the API notes"),
            Some(("compact", "keep the API notes"))
        );
        assert_eq!(parse_command("/exit"), Some(("exit", "")));
        assert_eq!(parse_command("/usr/bin/env"), None);
        assert_eq!(parse_command("hello"), None);
    }
}
